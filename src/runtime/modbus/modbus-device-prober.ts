// Connecting a home-power device over Modbus TCP (Fronius, SMA: SunSpec; Huawei SUN2000): the user
// gives the host, the hub scans the unit ids makers use as `hub scan` does (modbus-discovery.ts), and
// when it finds more than one device or kind the page asks which; the chosen one is read once, so
// what is added is known to answer.
import type { Logger } from 'pino';
import type { DriverBinding } from '../../domain/device.ts';
import { ownMakerModel } from '../../domain/maker.ts';
import type { DeviceKind } from '../../domain/vocabulary.ts';
import { LinePool } from '../../transport/line-pool.ts';
import { endpointOf } from '../../transport/endpoint.ts';
import { HOST_PATTERN, type DeviceConnectDomain, type DeviceProber, type ProbeOutcome } from '../devices/device-prober.ts';
import { PairingProbeError, type PairingForm } from '../devices/pairing-prober.ts';
import { DEFAULT_UNITS, hybridSettings, identify, type Identified } from './modbus-discovery.ts';
import { DeviceReader } from './modbus-reader.ts';
import { ModbusTimeoutError } from '../../transport/modbus-errors.ts';
import type { ModbusLine } from '../../transport/modbus-line.ts';
import type { DriverRegistry } from './modbus-registry.ts';

const FORM: PairingForm = {
  fields: [
    { name: 'host', required: true, pattern: HOST_PATTERN, maxLength: 253 },
    { name: 'port', required: false, pattern: '[0-9]{1,5}', maxLength: 5 },
    // Set by the page's choice after a scan found several: "<unit id>:<kind>".
    { name: 'device', required: false, pattern: '[0-9]{1,3}:(pvInverter|battery|meter)', maxLength: 16 },
  ],
};

/** The makers this page connects over Modbus, and the definitions whose devices are theirs. */
const MAKERS: Record<string, readonly string[]> = {
  FRONIUS: ['fronius', 'sunspec'],
  SMA: ['sma', 'sunspec'],
  HUAWEI: ['huawei-sun2000'],
};

const KIND_ORDER: readonly DeviceKind[] = ['pvInverter', 'battery', 'meter'];

export class ModbusDeviceProber implements DeviceProber {
  /** `timeoutMs`: per request, as `hub scan`'s default. */
  constructor(private readonly registry: DriverRegistry, private readonly log: Logger, private readonly timeoutMs = 500) {}

  forms(domain: DeviceConnectDomain): ReadonlyMap<string, PairingForm> {
    if (domain !== 'homePower') return new Map();
    return new Map(Object.entries(MAKERS).filter(([, types]) => types.some((t) => this.registry.has(t))).map(([vendor]) => [vendor, FORM]));
  }

  async probe(domain: DeviceConnectDomain, vendor: string, fields: Record<string, string>, signal: AbortSignal): Promise<ProbeOutcome> {
    const types = MAKERS[vendor];
    if (domain !== 'homePower' || !types) throw new PairingProbeError('NOT_A_CHARGER', `${vendor} is not reached over Modbus`);
    const port = fields['port'] !== undefined ? Number(fields['port']) : 502;
    if (!(port >= 1 && port <= 65535)) throw new PairingProbeError('UNREACHABLE', 'no such port');
    const address = { host: fields['host'] ?? '', port };
    const chosen = /^(\d{1,3}):(\w+)$/.exec(fields['device'] ?? '');
    const units = chosen ? [Number(chosen[1])] : DEFAULT_UNITS;
    // A line of its own: the scan's timeouts must not hold up the devices the hub drives.
    const pool = new LinePool(this.log);
    const line = pool.get(endpointOf({ type: 'connect', ...address }), { timeoutMs: this.timeoutMs, backoffMinMs: 0, maxConsecutiveTimeouts: 1_000 });
    try {
      const found: Identified[] = [];
      for (const unitId of units) {
        if (signal.aborted) throw new PairingProbeError('TIMEOUT');
        try {
          // A unit id nobody answers to costs one timeout, not one per place identify looks (a bare
          // device keeps silent for unit ids it is not: the scan's list took 14 s, now 5 s, measured).
          if (!(await answers(line, unitId, this.timeoutMs))) continue;
          const device = await identify(line, unitId, this.registry, { timeoutMs: this.timeoutMs });
          if (device && types.includes(device.driver)) found.push(device);
        } catch (err) {
          if (/cannot connect|unreachable|ECONNREFUSED|EHOSTUNREACH/i.test((err as Error).message)) throw new PairingProbeError('UNREACHABLE', 'nothing answers Modbus TCP at the host');
        }
      }
      const choices = found.flatMap((device) => KIND_ORDER.filter((kind) => device.kinds.includes(kind)).map((kind) => ({ device, kind })));
      if (chosen) {
        const pick = choices.find((c) => c.kind === chosen[2]);
        if (!pick) throw new PairingProbeError('NOT_A_CHARGER', 'the chosen device does not answer as it did');
        return await this.read(line, address, vendor, pick.device, pick.kind);
      }
      if (choices.length === 0) throw new PairingProbeError('NOT_A_CHARGER', `no ${vendor} device answered at the host`);
      if (choices.length === 1) return await this.read(line, address, vendor, choices[0]!.device, choices[0]!.kind);
      return {
        choices: choices.map(({ device, kind }) => ({
          value: `${device.unitId}:${kind}`,
          label: `${[device.manufacturer, device.model].filter(Boolean).join(' ') || vendor} · unit ${device.unitId}`,
          kind,
        })),
      };
    } finally {
      await pool.closeAll();
    }
  }

  private async read(line: ModbusLine, address: { host: string; port: number }, vendor: string, device: Identified, kind: DeviceKind): Promise<ProbeOutcome> {
    // A hybrid's storage modules in model 160 (a GEN24's StCha/StDisCha) make the right default, as for `hub devices add`.
    const binding: DriverBinding = { ...hybridSettings(device.mpptModules, kind), type: device.driver, ...address, unitId: device.unitId };
    const reader = new DeviceReader(this.registry.definitionFor(binding), binding, kind, line);
    let state: Record<string, unknown>;
    let staticRead: Record<string, unknown>;
    try {
      staticRead = await reader.readStatic({ timeoutMs: 2000 });
      state = await reader.readState({ timeoutMs: 2000 });
    } catch (err) {
      throw new PairingProbeError('UNREACHABLE', (err as Error).message);
    }
    const { manufacturer: _m, model: readModel, ...moreStatic } = staticRead;
    const model = ownMakerModel(device.manufacturer, typeof readModel === 'string' ? readModel : device.model, vendor) ?? 'Modbus device';
    return { device: { kind, driver: binding, model, name: null, hvacType: null, state: Object.keys(state).length > 0 ? state : null, staticData: moreStatic } };
  }
}

/** Whether anything answers at this unit id: a value or an exception (a gateway's "no such unit" included: identify tells). */
async function answers(line: ModbusLine, unitId: number, timeoutMs: number): Promise<boolean> {
  try {
    await line.readRegisters(unitId, 3, 40000, 2, { timeoutMs });
    return true;
  } catch (err) {
    return !(err instanceof ModbusTimeoutError);
  }
}
