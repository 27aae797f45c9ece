// `hub scan HOST[:PORT] | SERIAL_PORT`: probes unit ids and SunSpec bases, shows progress, and
// reports every device found with the driver and kinds that fit it.
import { silentLogger } from '../log.ts';
import { LinePool } from '../transport/line-pool.ts';
import { endpointOf, describeEndpoint } from '../transport/endpoint.ts';
import { DEFAULT_UNITS, identify, type Identified } from '../runtime/modbus/modbus-discovery.ts';
import { builtInDrivers } from '../../drivers/modbus/index.ts';
import { addressBinding, int, parseArgs, unitList, type CliIo } from './modbus-args.ts';
import { scanHttp } from './http-devices.ts';

export const SCAN_USAGE = `usage: npm run hub -- scan HOST[:PORT] | SERIAL_PORT [options]
  a HOST is first asked over HTTP(S) for an Enphase gateway, a Powerwall gateway or a Daikin
  adapter (by their own discovery answers; the TLS certificate's SHA-256 is shown), then over Modbus
  --units LIST      unit ids to probe (default 1,2,3,71,100,126,200-204,240; e.g. 1-10,126)
  --timeout MS      per request (default 500)
  --http-port N     the port HTTP(S) devices are asked on (default 443 and 80)
  --baud N --parity none|even|odd --stop-bits 1|2   serial line settings`;

const SCAN_FLAGS = ['units', 'timeout', 'http-port', 'port', 'baud', 'parity', 'stop-bits'] as const;

/** The unit ids makers use (modbus-discovery.ts, where the connect page's scan takes them too). */
export { DEFAULT_UNITS };

export async function runScan(args: string[], io: CliIo): Promise<number> {
  let target: string;
  let units: number[];
  let timeoutMs: number;
  let address;
  let httpPort: number | undefined;
  try {
    const { flags, words } = parseArgs(args, SCAN_FLAGS);
    if (words.length !== 1) throw new Error('name one host or serial port');
    target = words[0]!;
    units = unitList(flags['units'], DEFAULT_UNITS);
    timeoutMs = int(flags, 'timeout', 500)!;
    address = addressBinding(target, flags);
    // HOST:PORT with a port given names where the device answers, HTTP(S) as well as Modbus.
    const given = /^(\[[^\]]+\]|[^:/]+):(\d+)$/.exec(target)?.[2];
    httpPort = int(flags, 'http-port') ?? (given !== undefined ? Number(given) : undefined);
  } catch (err) {
    io.err(`${(err as Error).message}\n\n${SCAN_USAGE}`);
    return 2;
  }
  if (typeof address['host'] === 'string') {
    // HTTP devices answer on 80/443, on --http-port, or on the port of HOST:PORT.
    const http = await scanHttp(address['host'], io, Math.max(timeoutMs, 1500), httpPort);
    if (http.length > 0) {
      io.out(`found ${http.length} HTTP device(s) at ${target}:`);
      for (const device of http) io.out(`  ${device.definition.type}  ${device.model ?? ''} ${device.serial ?? ''}${device.certificate ? `  certificate SHA-256 ${device.certificate.sha256}` : ''}`);
      io.out(`add one with: npm run hub -- devices add --user USER --host ${address['host']}${httpPort !== undefined ? ` --http-port ${httpPort}` : ''} (see docs/drivers-http.md for the token or password: --token-file or --password-file)`);
      return 0;
    }
  }
  const endpoint = endpointOf({ type: 'scan', ...address });
  const pool = new LinePool(silentLogger());
  const line = pool.get(endpoint, { timeoutMs, backoffMinMs: 0, maxConsecutiveTimeouts: 1_000 });
  const registry = builtInDrivers();
  const found: Identified[] = [];
  io.err(`scanning ${describeEndpoint(endpoint)}: ${units.length} unit ids`);
  try {
    for (const [i, unitId] of units.entries()) {
      io.err(`  [${i + 1}/${units.length}] unit ${unitId} …`);
      try {
        const device = await identify(line, unitId, registry, { timeoutMs });
        if (device) {
          found.push(device);
          io.err(`  [${i + 1}/${units.length}] unit ${unitId}: ${summary(device)}`);
        }
      } catch (err) {
        const message = (err as Error).message;
        if (/cannot connect|unreachable/.test(message)) {
          io.err(`cannot reach ${describeEndpoint(endpoint)}: ${message}`);
          return 1;
        }
        io.err(`  [${i + 1}/${units.length}] unit ${unitId}: ${message}`);
      }
    }
  } finally {
    await pool.closeAll();
  }
  if (found.length === 0) {
    io.out(`no Modbus device found at ${target}`);
    io.out(`  other unit ids: --units 1-247; an Enphase, Powerwall or Daikin answering on another port: --http-port N${httpPort === undefined ? ' (80 and 443 were asked)' : ` (${httpPort} was asked)`}`);
    return 1;
  }
  io.out(`found ${found.length} device(s) at ${target}:`);
  for (const device of found) io.out(`  unit ${device.unitId}  ${summary(device)}`);
  io.out(`add one with: npm run hub -- devices add --user USER --host ${target} --unit N`);
  return 0;
}

export function summary(device: Identified): string {
  const what = [device.manufacturer, device.model].filter(Boolean).join(' ') || 'unknown device';
  const map = device.base !== undefined ? `SunSpec at ${device.base}, models ${device.models!.join(',')}` : 'register map';
  return `${what} (${map}) -> driver ${device.driver}, kinds ${device.kinds.join(', ') || 'none'}`;
}
