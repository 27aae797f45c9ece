// Devices declared in the configuration file: checked with the configuration (every problem at once,
// with its path), then added to the store at start. A declared device that was deleted through the
// API or the CLI stays deleted (decisions: deletion is permanent), and one already stored keeps its
// state; its name, model and binding follow the file.
import { createHash } from 'node:crypto';
import type { Config } from './config-schema.ts';
import { CHARGER_BINDING, canonicalBinding, stampedStaticData, type DeviceRecord, type DriverBinding } from './domain/device.ts';
import { chargerBindingProblems } from './domain/bindings.ts';
import { OCPP_BINDING, ocppBindingProblems, splitOcppBinding } from './domain/ocpp-binding.ts';
import { verifyPasswordSync } from './domain/ocpp-password.ts';
import { VENDORS_BY_KIND, type DeviceKind } from './domain/vocabulary.ts';
import type { Logger } from './log.ts';
import type { Store } from './store/store.ts';
import { endpointOf } from './transport/endpoint.ts';
import { builtInDrivers } from '../drivers/modbus/index.ts';
import { builtInMqttDrivers } from '../drivers/mqtt/index.ts';
import { settingsOf } from './runtime/mqtt/mqtt-registry.ts';
import { builtInHttpDrivers } from '../drivers/http/index.ts';
import { httpBindingProblems } from './runtime/http/http-registry.ts';
import { devicesByIdentity, identityWith, type IdentityOf } from './domain/binding-identity.ts';
import { builtInBindingDefaults } from './binding-defaults.ts';

type ConfiguredDevice = Config['devices'][number];

/** The binding as the drivers read it: a named bus becomes its serial settings, a named charger id lower case. */
export function resolveBinding(device: ConfiguredDevice, config: Config): DriverBinding {
  const { bus, ...binding } = device.driver;
  if (bus === undefined) return canonicalBinding(binding as DriverBinding);
  const settings = config.modbus.buses[bus];
  if (!settings) throw new Error(`names bus "${bus}", which modbus.buses does not declare`);
  return canonicalBinding({ ...settings, ...binding, bus } as DriverBinding);
}

/** Every problem of the declared devices, with its path, for the configuration's error list. */
export function configuredDeviceProblems(config: Config): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  const modbus = builtInDrivers();
  const mqtt = builtInMqttDrivers();
  const http = builtInHttpDrivers();
  const ids = new Map<string, number>();
  const identities = new Map<string, number>();
  const identityOf = identityWith(builtInBindingDefaults());
  const chargePoints = new Map<string, number>();
  config.devices.forEach((device, index) => {
    const at = (field: string, message: string) => problems.push({ field: `devices[${index}]${field ? `.${field}` : ''}`, message });
    if (!VENDORS_BY_KIND[device.kind].includes(device.vendor)) at('vendor', `must be one of ${VENDORS_BY_KIND[device.kind].join(', ')} for a ${device.kind}`);
    if (device.kind === 'hvac' && !device.type) at('type', 'an HVAC device needs its type (AC, HEATING_CIRCUIT, DHW, THERMOSTAT)');
    if (device.kind !== 'hvac' && device.type) at('type', 'only HVAC devices have a type');
    for (const [key, kind] of Object.entries(DECLARED_STATIC_KIND)) {
      if ((device as Record<string, unknown>)[key] !== undefined && device.kind !== kind) at(key, `only ${kind === 'hvac' ? 'HVAC devices' : 'vehicles'} have a ${key}`);
    }
    let binding: DriverBinding;
    try {
      binding = resolveBinding(device, config);
    } catch (err) {
      at('driver.bus', (err as Error).message);
      return;
    }
    try {
      if (binding.type === CHARGER_BINDING) {
        for (const problem of chargerBindingProblems(device.kind, device.driver)) at(`driver.${problem.field}`, problem.message);
      } else if (binding.type === OCPP_BINDING) {
        for (const problem of ocppBindingProblems(device.kind, device.driver)) at(`driver.${problem.field}`, problem.message);
        const chargePointId = String(binding['chargePointId']);
        const first = chargePoints.get(chargePointId);
        if (first !== undefined) at('driver.chargePointId', `is the charge point id of devices[${first}] already`);
        else chargePoints.set(chargePointId, index);
      } else if (modbus.has(binding.type)) {
        const definition = modbus.definitionFor(binding);
        if (!definition.kinds[device.kind]) throw new Error(`driver ${binding.type} cannot read a ${device.kind}`);
        endpointOf(binding);
      } else if (mqtt.has(binding.type)) {
        if (!config.mqtt) throw new Error(`driver ${binding.type} speaks MQTT, and no mqtt broker is configured`);
        const definition = mqtt.definitionFor(binding);
        if (!definition.kinds.includes(device.kind)) throw new Error(`driver ${binding.type} cannot drive a ${device.kind}`);
        settingsOf(definition, binding);
      } else if (http.has(binding.type)) {
        const definition = http.get(binding.type);
        if (!definition.kinds[device.kind]) throw new Error(`driver ${binding.type} cannot read a ${device.kind}`);
        for (const problem of httpBindingProblems(definition, binding)) at('driver', problem);
      } else {
        const known = [...modbus.all(), ...mqtt.all(), ...http.all()].map((d) => d.type);
        throw new Error(`unknown driver type "${binding.type}" (known: ${known.join(', ')}; ${OCPP_BINDING} for a charger speaking OCPP; and ${CHARGER_BINDING} for a vehicle with no driver)`);
      }
    } catch (err) {
      at('driver', (err as Error).message);
    }
    const id = configuredId(device, config);
    // The same device: the same id, or a binding that reaches it (defaults applied, whoever owns it).
    const identity = identityOf(device.kind, binding);
    const first = ids.get(id) ?? (identity !== null ? identities.get(identity) : undefined);
    if (first !== undefined) at('', `is the same device as devices[${first}] (same id, or same kind and address once the driver's defaults are applied)`);
    else {
      ids.set(id, index);
      if (identity !== null) identities.set(identity, index);
    }
  });
  return problems;
}

/** Address settings of the MQTT bridges that the derived id names when a binding gives them. */
const EXTRA_ID_SETTINGS = ['topicPrefix', 'prefix', 'circuit', 'zone', 'ecu', 'priceTopic'] as const;

/** The declared id, else one derived from what identifies the device, stable across restarts. */
export function configuredId(device: ConfiguredDevice, config: Config): string {
  // Lower case, as the API looks ids up (UUIDs are case-insensitive, RFC 9562).
  if (device.id) return device.id.toLowerCase();
  let binding: DriverBinding;
  try {
    binding = resolveBinding(device, config);
  } catch {
    binding = device.driver as DriverBinding;
  }
  const identity = JSON.stringify([device.kind, device.userId, binding.type, binding['host'] ?? binding['serialPort'] ?? null,
    binding['port'] ?? null, binding['unitId'] ?? null, binding['serial'] ?? binding['vin'] ?? binding['carId'] ?? binding['chargePointId'] ?? null,
    // A vehicle bound to its charger has no address of its own: two cars of a household differ by
    // charger or by maker (two of one maker at one charger need their own ids).
    ...(binding.type === CHARGER_BINDING ? [binding['chargerId'] ?? null, device.vendor] : []),
    // Where a bridge's device is beyond the settings above (an ebusd zone, an open3e ECU…): only when
    // given, so that the ids of devices declared before these were part of it stay what they were.
    ...EXTRA_ID_SETTINGS.filter((key) => binding[key] !== undefined).map((key) => [key, binding[key]])]);
  const hex = createHash('sha256').update(identity).digest('hex');
  // A UUID (version 8, "custom"): the API's ids are UUIDs.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Adds or updates the declared devices; returns how many were added, updated and left deleted.
 * A declared device the hub has already under another id (paired, imported, added, or declared
 * before in other words: its binding reaches it, defaults applied) is that device, updated in place,
 * when it is the same household's; another household's is left alone and named in a warning.
 */
export function applyConfiguredDevices(store: Store, config: Config, nowMs: number, log: Logger,
  identityOf: IdentityOf = identityWith(builtInBindingDefaults())): { added: number; updated: number; deleted: number } {
  const counts = { added: 0, updated: 0, deleted: 0 };
  const records: DeviceRecord[] = [];
  const credentials: { chargePointId: string; deviceId: string; passwordHash: string }[] = [];
  const bound = boundIdentities(store, identityOf, log);
  for (const device of config.devices) {
    let id = configuredId(device, config);
    let binding = resolveBinding(device, config);
    const identity = identityOf(device.kind, binding);
    const other = identity !== null && !store.devices.get(id) ? bound.get(identity) : undefined;
    if (other && other.userId !== device.userId) {
      log.warn({ device: id, existing: other.id, existingName: other.name }, 'configured device is another household\'s device already (same kind and address); it is not added');
      continue;
    }
    if (other) id = other.id;
    if (store.devices.wasDeleted(id) || store.devices.wasDeletedAs(device.kind, binding, identityOf)) {
      counts.deleted++;
      log.info({ device: id }, 'configured device was deleted; it is not added again (remove it from the file)');
      continue;
    }
    if (binding.type === OCPP_BINDING) {
      const credential = ocppCredential(store, id, binding);
      binding = credential.binding;
      if (credential.changed) credentials.push({ chargePointId: String(binding['chargePointId']), deviceId: id, passwordHash: credential.passwordHash });
    }
    const existing = store.devices.get(id);
    // The stored stamp is dropped here and given back only while the static data stays the same.
    const { lastUpdated: _stamp, ...kept } = existing?.staticData ?? {};
    const staticData = { ...kept, ...declaredStatic(device as Record<string, unknown>) };
    const record: DeviceRecord = {
      id, kind: device.kind, userId: device.userId, vendor: device.vendor, name: device.name ?? existing?.name ?? null,
      model: device.model ?? existing?.model ?? null, isOnline: existing?.isOnline ?? false, lastUpdatedMs: existing?.lastUpdatedMs ?? null,
      locationId: device.locationId?.toLowerCase() ?? existing?.locationId ?? null, hvacType: device.type ?? null, staticData,
      state: existing?.state ?? null, driver: binding, createdAtMs: existing?.createdAtMs ?? nowMs,
    };
    record.staticData = stampedStaticData(record, existing, nowMs);
    if (existing && JSON.stringify(existing) === JSON.stringify(record)) continue;
    if (existing) counts.updated++;
    else counts.added++;
    records.push(record);
  }
  if (records.length > 0 || credentials.length > 0) store.importDevices(records, new Map(), nowMs, credentials);
  return counts;
}

/**
 * The stored devices by binding identity. A database may hold two devices that are one (written
 * before the identity applied the drivers' defaults): both are kept and driven as before, and each
 * such pair is named in a warning, for the installer to delete one.
 */
function boundIdentities(store: Store, identityOf: IdentityOf, log: Logger): Map<string, DeviceRecord> {
  return devicesByIdentity(store.devices.all(), identityOf, (device, first) =>
    log.warn({ device: device.id, sameAs: first.id }, 'two stored devices reach the same device (same kind and address); both are kept: delete one'));
}

/**
 * A configured OCPP charger's binding as stored (without its password) and its password hash: the
 * stored hash is kept while the file's password still matches it, so that a restart rewrites nothing.
 */
function ocppCredential(store: Store, deviceId: string, binding: DriverBinding): { binding: DriverBinding; passwordHash: string; changed: boolean } {
  const stored = store.ocpp.credentialOfDeviceId(deviceId);
  const { password, passwordHash, ...rest } = binding;
  const same = stored !== undefined && stored.chargePointId === rest['chargePointId']
    && (typeof passwordHash === 'string' ? passwordHash === stored.passwordHash : verifyPasswordSync(String(password), stored.passwordHash));
  if (same) return { binding: rest as DriverBinding, passwordHash: stored.passwordHash, changed: false };
  const split = splitOcppBinding(binding);
  return { ...split, changed: true };
}

/** Static fields the file may declare, and the kind each belongs to. */
const DECLARED_STATIC_KIND: Record<string, DeviceKind> = { vin: 'vehicle', engineType: 'vehicle', batteryCapacity: 'vehicle', vehicleVariant: 'vehicle', room: 'hvac' };

/** The static fields the file declares for a device (vehicles: vin…; HVACs: room), as staticData. */
function declaredStatic(device: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(DECLARED_STATIC_KIND)) {
    if (device[key] !== undefined) out[key] = device[key];
  }
  return out;
}
