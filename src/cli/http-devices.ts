// The HTTP devices of `hub scan`, `hub devices add` and `hub devices trust`: an Enphase gateway, a
// Powerwall gateway or a Daikin adapter recognised by its own discovery answer; the certificate it
// presents is shown and pinned in its binding (trust on first use), and changed only by the
// installer with `hub devices trust`.
import type { DeviceRecord, DriverBinding } from '../domain/device.ts';
import type { HttpDriverDefinition } from '../runtime/http/definition.ts';
import { BATTERY_VENDORS, type DeviceKind } from '../domain/vocabulary.ts';
import type { Store } from '../store/store.ts';
import { peekCertificate } from '../transport/http-device.ts';
import { describeDiscovered, discoverHttp, type DiscoveredHttpDevice } from '../runtime/http/http-discovery.ts';
import { HttpReader } from '../runtime/http/http-reader.ts';
import { discoveredBinding, discoveredModel } from '../runtime/http/http-device-prober.ts';
import { readFileSync } from 'node:fs';
import { httpSettingsOf, pinnedOf, targetOf } from '../runtime/http/http-registry.ts';
import { withoutSecrets } from '../domain/secrets.ts';
import { isOcppBinding } from '../domain/ocpp-binding.ts';
import { PASSWORD_PATTERN, PASSWORD_RULE, hashPassword } from '../domain/ocpp-password.ts';
import { builtInHttpDrivers } from '../../drivers/http/index.ts';
import { int, type CliIo, type Flags } from './modbus-args.ts';
import { resolveDeviceId } from './device-id.ts';
import { saveReadDevice } from './save-read.ts';
import { identityWith } from '../domain/binding-identity.ts';
import { builtInBindingDefaults } from '../binding-defaults.ts';

export const HTTP_ADD_USAGE = `  devices add --user USER --host HOST [--driver enphase-envoy|tesla-powerwall|daikin-brp069|daikin-brp084]
              [--token-file F] [--email E --password-file F] [--uuid-file F] [--http-port P] [--kind K]
              [--name NAME] [--room ROOM]      a secret from a file's first line, or - for standard input
              [--fingerprint SHA256]   HTTP devices: recognised by their discovery answer; the TLS
                                      certificate shown is pinned (or must equal --fingerprint)
  devices trust ID [--fingerprint SHA256]   accept the certificate a device presents now
  devices secret ID NAME [--from-file F]    give a device a secret again (an Envoy's token, a
                                      Powerwall's password, an OCPP charger's password; an export
                                      leaves them out), read from the file or standard input,
                                      never from the command line`;

/** The HTTP devices at a host (for `hub scan`), printed as found. */
export async function scanHttp(host: string, io: CliIo, timeoutMs: number, port?: number): Promise<DiscoveredHttpDevice[]> {
  io.err(`asking ${host} over HTTP(S) for an Enphase gateway, a Powerwall gateway or a Daikin adapter …`);
  const found = await discoverHttp(host, builtInHttpDrivers(), { timeoutMs, port });
  for (const device of found) io.err(`  ${describeDiscovered(device)}`);
  return found;
}

/** `hub devices add` for an HTTP device; undefined when the host has none (the Modbus path follows). */
export async function addHttp(store: Store, host: string, flags: Flags, io: CliIo, update = false): Promise<number | undefined> {
  const registry = builtInHttpDrivers();
  const type = flags['driver'];
  if (type !== undefined && !registry.has(type)) return undefined;
  const timeoutMs = int(flags, 'timeout', 3000)!;
  // --port is the HTTP port when an HTTP driver is named; otherwise (it may be a Modbus port) --http-port.
  const port = int(flags, 'http-port') ?? (type !== undefined ? int(flags, 'port') : undefined);
  const found = await discoverHttp(host, registry, { timeoutMs, port, types: type ? [type] : undefined, settings: flags });
  const device = found[0];
  if (!device) {
    if (type === undefined) return undefined;
    io.err(`no ${registry.get(type).title} answered at ${host}${port !== undefined ? `:${port}` : ''}`);
    return 1;
  }
  const definition = device.definition;
  io.err(`found: ${describeDiscovered(device)}`);
  if (device.certificate) {
    const wanted = flags['fingerprint']?.toUpperCase();
    if (wanted !== undefined && wanted !== device.certificate.sha256) {
      io.err(`the device presents certificate SHA-256 ${device.certificate.sha256}, not the ${wanted} given: not added`);
      return 1;
    }
    io.err(`pinning the device's TLS certificate SHA-256 ${device.certificate.sha256}${wanted ? ' (as given)' : ' (trust on first use: compare it with the device\'s own page if in doubt)'}`);
  }
  // The device's main kind first (a Powerwall is a battery, an Envoy a PV system); --kind for the others.
  const kind = (flags['kind'] as DeviceKind | undefined) ?? device.kinds.find((k) => definition.kinds[k]);
  if (!kind || !definition.kinds[kind]) {
    io.err(`the device offers ${Object.keys(definition.kinds).join(', ')}; choose one with --kind`);
    return 2;
  }
  // Said before anything is read: the API's battery has a vendor set of its own (FRONIUS, SMA,
  // HUAWEI, TESLA), so an Enphase gateway's IQ Batteries are read but cannot be stored as one.
  const maker = definition.vendors[0]!.code;
  if (kind === 'battery' && !(BATTERY_VENDORS as readonly string[]).includes(maker)) {
    io.err(`cannot add the ${maker} batteries as a battery: the API's battery vendors are ${BATTERY_VENDORS.join(', ')}, `
      + `without ${maker} (docs/drivers-http.md); this device also offers ${Object.keys(definition.kinds).filter((k) => k !== 'battery').join(', ')}`);
    return 2;
  }
  const binding = discoveredBinding(device, host, flags);
  if (store.devices.wasDeletedAs(kind, binding, identityWith(builtInBindingDefaults()))) {
    io.err('a device at this address was deleted before; delete stays final (re-add it by import with its id to restore)');
    return 1;
  }
  let reader: HttpReader;
  try {
    reader = new HttpReader(definition, binding, { now: () => Date.now() });
  } catch (err) {
    io.err((err as Error).message);
    return 2;
  }
  // A first read with the credentials given: a wrong token or password is found now, not later.
  const state = await reader.readState(kind, { timeoutMs: 10_000 });
  const staticRead = await reader.readStatic(kind, { timeoutMs: 10_000 }).catch(() => ({}));
  const vendor = definition.vendors[0]!.code;
  const model = discoveredModel(device);
  const saved = saveReadDevice(store, {
    kind, userId: flags['user']!, binding, state, hvacType: kind === 'hvac' ? 'AC' : undefined,
    staticData: {
      vendor, model, ...(flags['name'] ? { name: flags['name'] } : {}),
      // Where an HVAC unit is: the installer's word, which no device tells.
      ...(kind === 'hvac' && flags['room'] ? { room: flags['room'] } : {}), ...staticRead,
    },
  }, io, update);
  return saved ? 0 : 1;
}

/**
 * `hub devices trust ID`: shows the certificate the device presents now and pins it, for the other
 * records of the same gateway (same address, same certificate accepted until now) too.
 */
export async function trust(store: Store, args: string[], flags: Flags, io: CliIo): Promise<number> {
  const [given] = args;
  if (!given) {
    io.err(HTTP_ADD_USAGE);
    return 2;
  }
  const found = httpDeviceOf(store, given, io, (device) => `device ${device.id} is not reached over HTTP(S): there is no certificate to trust`);
  if (typeof found === 'number') return found;
  const { device, definition, registry } = found;
  const target = targetOf(definition, device.driver);
  if (target.scheme !== 'https') {
    io.err(`device ${device.id} is reached over plain HTTP: there is no certificate to trust`);
    return 1;
  }
  let presented;
  try {
    presented = await peekCertificate(target.host, target.port, int(flags, 'timeout', 5000)!);
  } catch (err) {
    io.err(`cannot reach ${target.host}:${target.port}: ${(err as Error).message}`);
    return 1;
  }
  const before = pinnedOf(device.driver);
  io.out(`accepted until now: ${before?.sha256 ?? '(none)'}`);
  io.out(`presented now:      ${presented.sha256}`);
  if (before?.sha256 === presented.sha256) {
    io.out('the device presents the certificate already accepted; nothing to change');
    return 0;
  }
  const wanted = flags['fingerprint']?.toUpperCase();
  if (wanted !== undefined && wanted !== presented.sha256) {
    io.err(`the device presents ${presented.sha256}, not the ${wanted} given: nothing changed`);
    return 1;
  }
  // One gateway, several records (its PV, its meter: one per kind): the records at the same address
  // that trusted the same certificate are the same device, and take the new one with it.
  const sameGateway = store.devices.all().filter((other) => {
    if (other.id === device.id || !other.driver || !registry.has(other.driver.type)) return false;
    try {
      const at = targetOf(registry.get(other.driver.type), other.driver);
      return at.scheme === target.scheme && at.host === target.host && at.port === target.port && pinnedOf(other.driver)?.sha256 === before?.sha256;
    } catch {
      return false;
    }
  });
  for (const record of [device, ...sameGateway]) {
    store.devices.updateDriver(record.id, { ...record.driver!, tls: presented });
    io.out(`device ${record.id} now trusts ${presented.sha256}; a running hub uses it within its resync interval`);
  }
  return 0;
}

/** The binding without its secrets (src/domain/secrets.ts), for listings; a pinned certificate by its fingerprint. */
export function shownBinding(binding: DriverBinding): Record<string, unknown> {
  const { type: _type, ...settings } = withoutSecrets(binding);
  const pinned = pinnedOf(binding);
  if (pinned) settings['tls'] = { sha256: pinned.sha256 };
  return settings;
}

/**
 * `hub devices secret ID NAME`: gives an HTTP device a secret setting again (an export leaves them
 * out), to it and to the other records of the same gateway (its PV, its meter) that lack it or hold
 * another. The value is read from a file or standard input: on the command line, other users of the
 * machine would see it (ps) and the shell would keep it (history).
 */
export function setSecret(store: Store, args: string[], flags: Flags, io: CliIo): number {
  const [given, name] = args;
  if (!given || !name || args.length > 2) {
    io.err(HTTP_ADD_USAGE);
    return 2;
  }
  const charger = ocppChargerOf(store, given);
  if (charger) return setOcppPassword(store, charger, name, flags, io);
  const found = httpDeviceOf(store, given, io, (device) => (device.kind === 'vehicle'
      ? `device ${device.id} is a car: its maker's login is not set by hand but made again, through the connect page (POST /v1.0.0/connections/vehicles; docs/pairing.md)`
      : `device ${device.id} is not an HTTP device: its secrets, if any, are given by importing its binding again (hub import FILE --update)`));
  if (typeof found === 'number') return found;
  const { device, definition } = found;
  const secrets = Object.entries(definition.settings).filter(([, spec]) => spec.secret).map(([setting]) => setting);
  if (!secrets.includes(name)) {
    io.err(`${definition.title} has no secret "${name}"${secrets.length > 0 ? `; its secrets: ${secrets.join(', ')}` : ''}`);
    return 2;
  }
  const value = secretFrom(flags['from-file'] ?? '-', name, io);
  if (value === undefined) return 1;
  const binding: DriverBinding = { ...device.driver, [name]: value };
  try {
    httpSettingsOf(definition, binding);
  } catch (err) {
    // The definition's words: the setting's name and what it should look like, never the value.
    io.err(`${(err as Error).message}; nothing changed`);
    return 1;
  }
  const target = targetOf(definition, device.driver);
  const sameGateway = store.devices.all().filter((other) => {
    if (other.id === device.id || other.driver?.type !== device.driver!.type) return false;
    try {
      const at = targetOf(definition, other.driver);
      return at.scheme === target.scheme && at.host === target.host && at.port === target.port;
    } catch {
      return false;
    }
  });
  for (const record of [device, ...sameGateway]) {
    if (record.driver![name] === value) continue;
    store.devices.updateDriver(record.id, { ...record.driver!, [name]: value });
    io.out(`device ${record.id} has its ${name} now; a running hub reads it within its resync interval (15 s)`);
  }
  return 0;
}

/** The HTTP device `given` names (an id or its prefix), with its definition; else the exit status, the reason said. */
function httpDeviceOf(store: Store, given: string, io: CliIo, notHttp: (device: DeviceRecord) => string):
  { device: DeviceRecord & { driver: DriverBinding }; definition: HttpDriverDefinition; registry: ReturnType<typeof builtInHttpDrivers> } | number {
  const found = resolveDeviceId(store, given);
  if ('problem' in found) {
    io.err(found.problem);
    return 1;
  }
  const device = store.devices.get(found.id)!;
  const registry = builtInHttpDrivers();
  if (!device.driver || !registry.has(device.driver.type)) {
    io.err(notHttp(device));
    return 1;
  }
  return { device: device as DeviceRecord & { driver: DriverBinding }, definition: registry.get(device.driver.type), registry };
}

/**
 * A secret from a file's first line, or standard input's (`-`), never from the command line; undefined
 * when it cannot be read or is empty (said on stderr, without the value).
 */
export function secretFrom(file: string, name: string, io: CliIo): string | undefined {
  let value: string;
  try {
    // Its first line: a file written by an editor ends with a newline that is no part of the secret.
    value = readFileSync(file === '-' ? 0 : file, 'utf8').split(/\r?\n/, 1)[0]!.trim();
  } catch (err) {
    io.err(`cannot read ${file === '-' ? 'standard input' : file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    return undefined;
  }
  if (value === '') {
    io.err(`no ${name} given (${file === '-' ? 'standard input' : file} is empty); nothing changed`);
    return undefined;
  }
  return value;
}

/** The OCPP charger `given` names, when it names one (anything else is setSecret's to explain). */
function ocppChargerOf(store: Store, given: string): (DeviceRecord & { driver: DriverBinding }) | undefined {
  const found = resolveDeviceId(store, given);
  if ('problem' in found) return undefined;
  const device = store.devices.get(found.id);
  return device && isOcppBinding(device.driver) ? device as DeviceRecord & { driver: DriverBinding } : undefined;
}

/**
 * `hub devices secret ID password` of an OCPP charger: its password given again (a plain export
 * leaves even its hash out), hashed into the store's credentials; the charger gets in at its next
 * connection attempt.
 */
function setOcppPassword(store: Store, device: DeviceRecord & { driver: DriverBinding }, name: string, flags: Flags, io: CliIo): number {
  if (name !== 'password') {
    io.err(`device ${device.id} is an OCPP charger: its only secret is "password"`);
    return 2;
  }
  const value = secretFrom(flags['from-file'] ?? '-', name, io);
  if (value === undefined) return 1;
  if (!PASSWORD_PATTERN.test(value)) {
    io.err(`the password ${PASSWORD_RULE}; nothing changed`);
    return 1;
  }
  store.ocpp.setCredential({ chargePointId: String(device.driver['chargePointId']), deviceId: device.id, passwordHash: hashPassword(value) }, Date.now());
  io.out(`charger ${device.id} (charge point ${String(device.driver['chargePointId'])}) has its password now; it is let in at its next connection`);
  return 0;
}
