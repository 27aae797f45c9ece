// When two bindings reach the same device: the same driver at the same address (host and port or
// serial port, Modbus unit, MQTT topic prefix or serial, OCPP charge point id), for the same kind.
// Secrets, pinned certificates and tuning (poll intervals, time zones) are no part of it: a device
// whose token or poll interval changed is still that device. `hub import` and `hub devices add` use
// it to refuse a second device where one is already bound (or, asked to, to update it in place).
import { CHARGER_BINDING, type DriverBinding } from './device.ts';
import { OCPP_BINDING } from './ocpp-binding.ts';
import { isSecretSetting } from './secrets.ts';
import type { DeviceKind } from './vocabulary.ts';

/** The settings that say where a device is, across the driver families. */
const ADDRESS_SETTINGS = [
  'host', 'port', 'serialPort', 'unitId', // Modbus TCP or RTU, HTTP(S)
  'serial', 'vin', 'carId', 'topicPrefix', 'prefix', 'circuit', 'zone', 'ecu', 'priceTopic', // MQTT bridges
] as const;

/** Settings that are no part of where a device is: its secrets, and the certificate pinned for it. */
const notIdentity = (key: string) => key === 'type' || key === 'tls' || isSecretSetting(key);

/**
 * A key equal for every binding that reaches the same device of this kind; null for a vehicle bound
 * to its charger (other cars charge there too: the binding is no address of the car) and for a
 * binding that names only its driver.
 */
export function bindingIdentity(kind: DeviceKind, binding: DriverBinding): string | null {
  if (binding.type === CHARGER_BINDING) return null;
  if (binding.type === OCPP_BINDING) return JSON.stringify([kind, OCPP_BINDING, String(binding['chargePointId'])]);
  const address = ADDRESS_SETTINGS.filter((key) => binding[key] !== undefined)
    .map((key) => [key, key === 'host' ? String(binding[key]).toLowerCase() : binding[key]]);
  // A binding that names no address (a generic MQTT device described by its own topics) is
  // identified by all it says but its secrets; one that says nothing but its driver names no device.
  const settings = address.length > 0 ? address
    : Object.keys(binding).filter((key) => !notIdentity(key)).sort().map((key) => [key, binding[key]]);
  if (settings.length === 0) return null;
  return JSON.stringify([kind, binding.type, settings]);
}

/** Where a binding points, for messages: its address settings (no secrets). */
export function describeBinding(binding: DriverBinding): string {
  if (binding.type === OCPP_BINDING) return `${OCPP_BINDING} charge point ${String(binding['chargePointId'])}`;
  const address = ADDRESS_SETTINGS.filter((key) => binding[key] !== undefined).map((key) => `${key} ${String(binding[key])}`);
  return [binding.type, ...address].join(', ');
}
