// `hub devices add …`: probes a Modbus device, detects what it is (or uses the named definition),
// reads its model and capacity, and saves it for a user; `hub devices list` shows every device.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatTimestamp } from '../domain/time.ts';
import { runningHubPid } from '../store/data-dir-lock.ts';
import type { DeviceRecord, DriverBinding } from '../domain/device.ts';
import { missingSecrets, missingSecretsReason } from '../runtime/http/http-registry.ts';
import { builtInCloudDrivers } from '../../drivers/cloud/index.ts';
import { ImportError } from '../domain/import.ts';
import { ownMakerModel, vendorOf } from '../domain/maker.ts';
import { HOME_POWER_VENDORS, type DeviceKind } from '../domain/vocabulary.ts';
import { silentLogger } from '../log.ts';
import { Store } from '../store/store.ts';
import { LinePool } from '../transport/line-pool.ts';
import { endpointOf, describeEndpoint } from '../transport/endpoint.ts';
import { DeviceReader } from '../runtime/modbus/modbus-reader.ts';
import { hybridSettings, identify } from '../runtime/modbus/modbus-discovery.ts';
import { builtInDrivers } from '../../drivers/modbus/index.ts';
import { isOcppBinding } from '../domain/ocpp-binding.ts';
import { NO_PASSWORD } from '../domain/ocpp-password.ts';
import { addressBinding, int, parseArgs, type CliIo } from './modbus-args.ts';
import { DEFAULT_UNITS, summary } from './scan.ts';
import { resolveDeviceId } from './device-id.ts';
import { addHttp, HTTP_ADD_USAGE, secretFrom, setSecret, shownBinding, trust } from './http-devices.ts';
import { saveReadDevice, saveProblem } from './save-read.ts';
import { builtInHttpDrivers } from '../../drivers/http/index.ts';
import { identityWith } from '../domain/binding-identity.ts';
import { builtInBindingDefaults } from '../binding-defaults.ts';

export const DEVICES_USAGE = `usage: npm run hub -- devices <add|list|remove|trust|secret>
  devices add --user USER (--host HOST [--port P] | --serial-port PATH [--baud N --parity P --stop-bits S])
              [--unit N] [--driver TYPE] [--kind battery|pvInverter|meter] [--name NAME] [--vendor CODE]
${HTTP_ADD_USAGE}
  devices add … --update    the device is bound already (same driver, address and kind): update it in place
                            (without it, adding it again changes nothing and names the device)
  devices list              every device: id, kind, maker, owner, name, online, how the hub reaches it;
                            then those waiting for a secret (an import of an export) and what to do
  devices remove ID         delete for good: polling stops, pending commands fail, it stays deleted
  (an ID may be given by its first characters when they name one device)`;

const KIND_PREFERENCE: DeviceKind[] = ['pvInverter', 'battery', 'meter'];

/**
 * The HTTP drivers' secret settings (an Envoy's token, a Powerwall's password, a BRP072C's uuid):
 * `devices add` takes each from a file or standard input (`--token-file FILE`, `-` for stdin), never
 * from the command line, where other users of the machine see it (ps) and the shell keeps it.
 */
function secretSettings(): string[] {
  return [...new Set(builtInHttpDrivers().all().flatMap((definition) => Object.entries(definition.settings).filter(([, spec]) => spec.secret).map(([name]) => name)))];
}

/** What `devices add` takes: the Modbus options, the HTTP ones, and every HTTP driver's settings (secrets as `--NAME-file`). */
function addFlags(): string[] {
  const secrets = secretSettings();
  const settings = builtInHttpDrivers().all().flatMap((definition) => Object.keys(definition.settings)).filter((name) => !secrets.includes(name));
  return [...new Set(['user', 'host', 'port', 'serial-port', 'baud', 'parity', 'stop-bits', 'unit', 'driver', 'kind', 'name',
    'vendor', 'http-port', 'fingerprint', 'timeout', 'room', ...settings, ...secrets.map((name) => `${name}-file`)])];
}

/**
 * The secrets given to `devices add`, read from their files (or standard input) into `flags` under
 * their settings' names; a secret given on the command line is refused, naming the way to give it.
 */
function readSecretFlags(flags: Record<string, string>, io: CliIo): number | undefined {
  const fromStdin = secretSettings().filter((name) => flags[`${name}-file`] === '-');
  if (fromStdin.length > 1) {
    io.err(`only one secret can come from standard input (${fromStdin.map((name) => `--${name}-file -`).join(', ')}): give the others as files`);
    return 2;
  }
  for (const name of secretSettings()) {
    const file = flags[`${name}-file`];
    if (file === undefined) continue;
    const value = secretFrom(file, name, io);
    if (value === undefined) return 1;
    delete flags[`${name}-file`];
    flags[name] = value;
  }
  return undefined;
}

export async function runDevices(args: string[], io: CliIo, dataDir: string): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'add' && sub !== 'list' && sub !== 'remove' && sub !== 'trust' && sub !== 'secret') {
    io.err(DEVICES_USAGE);
    return 2;
  }
  // Before this command opens the database (which may write to it).
  const writtenMs = lastWritten(dataDir);
  const store = Store.open(resolve(dataDir, 'hub.db'));
  try {
    if (sub === 'remove') return remove(store, rest, io);
    if (sub === 'trust') {
      let parsed;
      try {
        parsed = parseArgs(rest, ['fingerprint', 'timeout']);
      } catch (err) {
        io.err(`${(err as Error).message}\n\n${DEVICES_USAGE}`);
        return 2;
      }
      return await trust(store, parsed.words, parsed.flags, io);
    }
    if (sub === 'secret') {
      let parsed;
      try {
        parsed = parseArgs(rest, ['from-file']);
      } catch (err) {
        io.err(`${(err as Error).message}\n\n${DEVICES_USAGE}`);
        return 2;
      }
      return setSecret(store, parsed.words, parsed.flags, io);
    }
    return sub === 'list' ? list(store, io, dataDir, writtenMs) : await add(store, rest, io);
  } finally {
    store.close();
  }
}

/** The same deletion as the API's DELETE: a running daemon stops polling it at its next reload. */
function remove(store: Store, args: string[], io: CliIo): number {
  const [given] = args;
  if (!given) {
    io.err(DEVICES_USAGE);
    return 2;
  }
  const found = resolveDeviceId(store, given);
  if ('problem' in found) {
    io.err(found.problem);
    return 1;
  }
  const id = found.id;
  const device = store.devices.get(id)!;
  const failed = store.deleteDevice(device, Date.now());
  io.out(`Removed ${device.kind} ${id}${failed > 0 ? `; ${failed} pending command${failed === 1 ? '' : 's'} failed` : ''}.`);
  return 0;
}

/** Every device of every kind, by kind; secrets of a binding (passwords) are not shown. */
function list(store: Store, io: CliIo, dataDir: string, writtenMs: number | undefined): number {
  const devices = store.devices.all();
  // STATE is what the store holds: live while a hub runs here, else as the last hub (or import) left it.
  const pid = runningHubPid(dataDir);
  if (pid === undefined) {
    io.out(`No hub is running on ${resolve(dataDir)}: STATE is the last stored state${writtenMs ? `, as of ${formatTimestamp(writtenMs)}` : ''}, not a live reading.`);
  }
  const rows = devices.map((d) => {
    const address = d.driver ? shownBinding(d.driver) : {};
    return [d.id, d.kind, d.vendor, d.userId, d.name ?? d.model ?? '', d.isOnline ? 'online' : 'offline', d.driver ? `${d.driver.type} ${JSON.stringify(address)}` : '(no driver)'];
  });
  const header = ['ID', 'KIND', 'VENDOR', 'USER', 'NAME', 'STATE', 'DRIVER'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const row of [header, ...rows]) io.out(row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
  io.out(`${devices.length} device${devices.length === 1 ? '' : 's'}`);
  // A device that cannot be reached until it is given a secret again (an import of an export), and how.
  const waiting = devices.flatMap((d) => {
    const why = secretNeeded(d, store);
    return why ? [`  ${d.id}: ${why}`] : [];
  });
  if (waiting.length > 0) io.out(`Waiting for a secret (offline until it is given):\n${waiting.join('\n')}`);
  return 0;
}

/** Why the device cannot be reached without a secret its binding lacks, with what to do; undefined when it lacks none. */
function secretNeeded(device: DeviceRecord, store: Store): string | undefined {
  const binding = device.driver;
  if (!binding) return undefined;
  // An OCPP charger from a plain export, which leaves even its password's hash out.
  if (isOcppBinding(binding) && store.ocpp.credentialOfDeviceId(device.id)?.passwordHash === NO_PASSWORD) {
    return `no password (an export leaves it out): give it with \`hub devices secret ${device.id} password\` (the one the charger is set up with)`;
  }
  const http = builtInHttpDrivers();
  if (http.has(binding.type)) {
    const missing = missingSecrets(http.get(binding.type), binding);
    return missing.length > 0 ? missingSecretsReason(device.id, missing) : undefined;
  }
  // A car read from its maker's cloud: its refresh token is never exported (src/domain/secrets.ts).
  if (builtInCloudDrivers().some((d) => d.type === binding.type) && typeof binding['refreshToken'] !== 'string') {
    return 'no login to its maker\'s cloud on this hub: a new login is due (docs/drivers-cloud.md)';
  }
  return undefined;
}

/** When the database was last written (its WAL holds the latest writes), in ms. */
function lastWritten(dataDir: string): number | undefined {
  const times = ['hub.db', 'hub.db-wal'].flatMap((name) => {
    try {
      return [statSync(resolve(dataDir, name)).mtimeMs];
    } catch {
      return [];
    }
  });
  return times.length > 0 ? Math.floor(Math.max(...times)) : undefined;
}

async function add(store: Store, given: string[], io: CliIo): Promise<number> {
  let flags: Record<string, string>;
  let binding: DriverBinding;
  const update = given.includes('--update');
  const args = given.filter((a) => a !== '--update');
  // Refused before anything else, the value unread: it is on the command line already.
  const onCommandLine = secretSettings().filter((name) => args.some((a) => a === `--${name}` || a.startsWith(`--${name}=`)));
  if (onCommandLine.length > 0) {
    io.err(`${onCommandLine.map((name) => `--${name}`).join(', ')} would put a device secret on the command line, where others on the machine see it (ps) `
      + `and the shell keeps it (history): give it with ${onCommandLine.map((name) => `--${name}-file FILE`).join(', ')} (its first line), or - for standard input, `
      + 'as for hub devices secret. Nothing was added.');
    return 2;
  }
  try {
    flags = parseArgs(args, addFlags()).flags;
    if (!flags['user']) throw new Error('--user is required');
    const target = flags['serial-port'] ?? flags['host'];
    if (!target) throw new Error('--host or --serial-port is required');
    binding = { type: flags['driver'] ?? 'sunspec', ...addressBinding(target, flags) };
    const unitId = int(flags, 'unit');
    if (unitId !== undefined) binding['unitId'] = unitId;
  } catch (err) {
    io.err(`${(err as Error).message}\n\n${DEVICES_USAGE}`);
    return 2;
  }
  const unread = readSecretFlags(flags, io);
  if (unread !== undefined) return unread;
  // An HTTP device (Enphase, Powerwall, Daikin) recognised by its own answer; else Modbus.
  // Not when the flags name a Modbus device (a unit id, or a --port without an HTTP driver).
  const modbusHinted = flags['unit'] !== undefined || (flags['port'] !== undefined && flags['driver'] === undefined && flags['http-port'] === undefined);
  if (typeof binding['host'] === 'string' && !modbusHinted) {
    try {
      const done = await addHttp(store, binding['host'], flags, io, update);
      if (done !== undefined) return done;
    } catch (err) {
      if (err instanceof ImportError) io.err(saveProblem(err));
      else io.err(`cannot add the device: ${(err as Error).message}`);
      return 1;
    }
  }
  const registry = builtInDrivers();
  if (flags['driver'] && !registry.has(flags['driver'])) {
    io.err(`unknown driver ${flags['driver']} (known: ${registry.all().map((d) => d.type).join(', ')})`);
    return 2;
  }
  const endpoint = endpointOf(binding);
  const pool = new LinePool(silentLogger());
  const line = pool.get(endpoint, { timeoutMs: 1000, ...registry.get(binding.type).line });
  try {
    io.err(`probing ${describeEndpoint(endpoint)} …`);
    let kinds = Object.keys(registry.get(binding.type).kinds) as DeviceKind[];
    let manufacturer: string | undefined;
    let mpptModules: string[] | undefined;
    if (!flags['driver'] || registry.get(binding.type).family === 'sunspec') {
      const units = binding['unitId'] !== undefined ? [binding['unitId'] as number] : [...new Set([1, 126, ...DEFAULT_UNITS])];
      let found;
      for (const unitId of units) if ((found = await identify(line, unitId, registry).catch(() => undefined))) break;
      if (!found) {
        io.err(`no SunSpec or Huawei device answered at ${describeEndpoint(endpoint)} (unit ${units.join(', ')}); name a --driver`);
        return 1;
      }
      io.err(`found: ${summary(found)}`);
      binding = { ...binding, type: flags['driver'] ?? found.driver, unitId: found.unitId };
      kinds = found.kinds;
      manufacturer = found.manufacturer;
      mpptModules = found.mpptModules;
    }
    const kind = (flags['kind'] as DeviceKind | undefined) ?? KIND_PREFERENCE.find((k) => kinds.includes(k));
    if (!kind || !kinds.includes(kind)) {
      io.err(`the device offers ${kinds.join(', ') || 'no kind'}; choose one with --kind`);
      return 2;
    }
    if (store.devices.wasDeletedAs(kind, binding, identityWith(builtInBindingDefaults()))) {
      io.err('a device at this address was deleted before; delete stays final (re-add it by import with its id to restore)');
      return 1;
    }
    // A hybrid's storage modules in model 160 (a GEN24's StCha/StDisCha) make the right default:
    // battery power from them, solar power from the PV modules. Settings given by hand stand.
    binding = { ...hybridSettings(mpptModules, kind), ...binding };
    const definition = registry.definitionFor(binding);
    const reader = new DeviceReader(definition, binding, kind, line);
    const staticRead = await reader.readStatic();
    const state = await reader.readState();
    const vendor = flags['vendor'] ?? definition.vendors[0]?.code ?? vendorOf(manufacturer);
    if (!vendor) {
      io.err(`cannot tell the maker of "${manufacturer ?? 'this device'}"; give --vendor (${HOME_POWER_VENDORS.join(', ')})`);
      return 2;
    }
    const { manufacturer: _m, model: readModel, ...moreStatic } = staticRead;
    // A maker outside the vendor catalog (a KOSTAL driven by the sunspec driver) is added under the
    // code the installer gives; its own name stays visible in the model ("KOSTAL PLENTICORE plus").
    const model = ownMakerModel(manufacturer, readModel as string | undefined, vendor);
    const saved = saveReadDevice(store, {
      kind, userId: flags['user']!, binding, state,
      staticData: { vendor, model: model ?? 'Modbus device', ...(flags['name'] ? { name: flags['name'] } : {}), ...moreStatic },
    }, io, update);
    return saved ? 0 : 1;
  } catch (err) {
    if (err instanceof ImportError) io.err(saveProblem(err));
    else io.err(`cannot add the device: ${(err as Error).message}`);
    return 1;
  } finally {
    await pool.closeAll();
  }
}

