// When two bindings reach the same device: the same driver at the same address (host and port or
// serial port, Modbus unit, MQTT topic prefix or serial, OCPP charge point id, a car's VIN), for the
// same kind, once the driver definition's defaults are applied and each setting is written one way.
// A binding that leaves out `port: 502` or `topicPrefix: go-eCharger` reaches the charger that one
// writing them out reaches; so does `unitId: "0x01"` the unit 1, `INVERTER.local` the host
// inverter.local, `127.0.0.1` localhost. Secrets, pinned certificates and tuning (poll intervals,
// time zones) are no part of it: a device whose token or poll interval changed is still that device.
// Pairing, `hub import`, `hub devices add` and the configuration file all use this one rule, to refuse
// a second device where one is already bound (or, asked to, to update it in place).
//
// The identity is worked out when it is needed and never stored: a driver's defaults live in its
// definition, and a stored key would go stale the day a definition changes one.
import { posix } from 'node:path';
import { CHARGER_BINDING, type DriverBinding } from './device.ts';
import { isLoopbackHost } from './device-address.ts';
import { OCPP_BINDING } from './ocpp-binding.ts';
import { isSecretSetting } from './secrets.ts';
import type { DeviceKind } from './vocabulary.ts';

/**
 * The defaults the binding's driver definition gives its settings (a Modbus port and unit id, an
 * HTTP port by scheme, an MQTT bridge's topic prefix…); `{}` for a driver it does not know. Built
 * from the definitions where they are loaded (src/binding-defaults.ts).
 */
export type BindingDefaults = (binding: DriverBinding) => Readonly<Record<string, unknown>>;

/** For callers that know no definitions (tests of other things, the demo's own records). */
export const NO_DEFAULTS: BindingDefaults = () => ({});

/** A key equal for every binding that reaches the same device of the kind; see bindingIdentity. */
export type IdentityOf = (kind: DeviceKind, binding: DriverBinding) => string | null;

/** One spelling of each address setting: what two spellings of one address both become. */
const ADDRESS_SETTINGS: Readonly<Record<string, (value: unknown) => unknown>> = {
  // Modbus TCP or RTU, HTTP(S)
  host: (value) => canonicalHost(String(value)),
  port: (value) => canonicalNumber(value),
  serialPort: (value) => canonicalPath(String(value)),
  unitId: (value) => canonicalNumber(value),
  // MQTT bridges; a car in a maker's cloud
  serial: (value) => canonicalSerial(String(value)),
  vin: (value) => String(value).trim().toUpperCase(),
  carId: (value) => canonicalNumber(value),
  topicPrefix: (value) => canonicalTopic(String(value)),
  prefix: (value) => canonicalTopic(String(value)),
  circuit: (value) => String(value).trim(),
  zone: (value) => canonicalNumber(value),
  ecu: (value) => canonicalHex(String(value)),
  priceTopic: (value) => canonicalTopic(String(value)),
};

/** Settings that are no part of where a device is: its secrets, and the certificate pinned for it. */
const notIdentity = (key: string) => key === 'type' || key === 'tls' || isSecretSetting(key);

/** A setting left empty is a setting left out: the drivers apply their default to either. */
const given = (value: unknown) => value !== undefined && value !== null && value !== '';

/**
 * A key equal for every binding that reaches the same device of this kind, after the driver's
 * defaults (`defaults`) are applied; null for a vehicle bound to its charger (other cars charge
 * there too: the binding is no address of the car) and for a binding that names only its driver.
 */
export function bindingIdentity(kind: DeviceKind, binding: DriverBinding, defaults: BindingDefaults): string | null {
  if (binding.type === CHARGER_BINDING) return null;
  // The charge point id is the last segment of the URL the charger connects to, taken as it is.
  if (binding.type === OCPP_BINDING) return JSON.stringify([kind, OCPP_BINDING, String(binding['chargePointId'])]);
  const own = Object.fromEntries(Object.entries(binding).filter(([, value]) => given(value)));
  const resolved: Record<string, unknown> = { ...defaultsOf(defaults, binding), ...own };
  const address = Object.keys(ADDRESS_SETTINGS).filter((key) => given(resolved[key])).map((key) => [key, ADDRESS_SETTINGS[key]!(resolved[key])]);
  // A binding that names no address (a generic MQTT device described by its own topics) is
  // identified by all it says but its secrets; one that says nothing but its driver names no device.
  const settings = address.length > 0 ? address
    : Object.keys(own).filter((key) => !notIdentity(key)).sort().map((key) => [key, own[key]]);
  if (settings.length === 0) return null;
  return JSON.stringify([kind, binding.type, settings]);
}

/** bindingIdentity with the definitions' defaults, for callers that compare many bindings. */
export function identityWith(defaults: BindingDefaults): IdentityOf {
  return (kind, binding) => bindingIdentity(kind, binding, defaults);
}

/**
 * The devices by the identity of their bindings, the first of each; `same` hears of every later
 * device that is one already (a database written before the identity applied the drivers' defaults).
 */
export function devicesByIdentity<D extends { kind: DeviceKind; driver: DriverBinding | null }>(
  devices: Iterable<D>, identityOf: IdentityOf, same: (device: D, first: D) => void = () => undefined,
): Map<string, D> {
  const found = new Map<string, D>();
  for (const device of devices) {
    const identity = device.driver ? identityOf(device.kind, device.driver) : null;
    if (identity === null) continue;
    const first = found.get(identity);
    if (first) same(device, first);
    else found.set(identity, device);
  }
  return found;
}

/** The driver's defaults; a definition that cannot say (a malformed binding) gives none. */
function defaultsOf(defaults: BindingDefaults, binding: DriverBinding): Readonly<Record<string, unknown>> {
  try {
    return defaults(binding);
  } catch {
    return {};
  }
}

/**
 * A host as a connection reaches it: names in lower case without a root dot, IP addresses in their
 * one written form (the WHATWG URL parser's: `192.168.001.010`, `0xc0.168.1.8` and their like become
 * the address a socket would reach, IPv6 compressed), every loopback address `localhost`.
 */
export function canonicalHost(raw: string): string {
  const bare = raw.trim().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();
  if (bare === '') return bare;
  let host = bare;
  try {
    host = new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    // not a host a URL can hold: compared as written (lower case)
  }
  return isLoopbackHost(host) ? 'localhost' : host;
}

/** A number however written: `502`, `"502"`, `"0502"`, `"0x1F6"`; anything else as text. */
function canonicalNumber(value: unknown): unknown {
  if (typeof value === 'number') return value;
  const text = String(value).trim();
  if (/^0x[0-9a-f]+$/i.test(text)) return parseInt(text.slice(2), 16);
  if (/^\d+$/.test(text)) return Number(text);
  return text;
}

/** A serial number: case does not matter (hex serials), nor leading zeros of a numeric one. */
function canonicalSerial(raw: string): string {
  const text = raw.trim().toLowerCase();
  return /^\d+$/.test(text) ? text.replace(/^0+(?=\d)/, '') : text;
}

/** A hex address (an ECU's `680`): with or without `0x`, any case, leading zeros. */
function canonicalHex(raw: string): string {
  const text = raw.trim().replace(/^0x/i, '');
  return /^[0-9a-f]+$/i.test(text) ? parseInt(text, 16).toString(16).toUpperCase() : text;
}

/** A topic prefix: with or without its leading or trailing slash (the go-e firmware writes both). */
function canonicalTopic(raw: string): string {
  return raw.trim().replace(/^\/+|\/+$/g, '');
}

/** A serial device's path, with `//` and a trailing slash taken out. */
function canonicalPath(raw: string): string {
  const text = raw.trim();
  return text === '' ? text : posix.normalize(text).replace(/(.)\/$/, '$1');
}

/** Where a binding points, for messages: its address settings (no secrets). */
export function describeBinding(binding: DriverBinding): string {
  if (binding.type === OCPP_BINDING) return `${OCPP_BINDING} charge point ${String(binding['chargePointId'])}`;
  const address = Object.keys(ADDRESS_SETTINGS).filter((key) => binding[key] !== undefined).map((key) => `${key} ${String(binding[key])}`);
  return [binding.type, ...address].join(', ');
}
