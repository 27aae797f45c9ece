// The defaults the shipped driver definitions give a binding's settings, for the one rule of device
// identity (src/domain/binding-identity.ts): pairing, `hub import`, `hub devices add` and the
// configuration file compare bindings with the defaults applied, so that one leaving out `port: 502`
// or `topicPrefix: go-eCharger` is the device one writing them out is. The defaults are read from the
// definitions themselves, where the drivers read them, so the two cannot drift apart. Built here,
// beside the other entry points, because only they may load drivers/ (layers).
import type { BindingDefaults } from './domain/binding-identity.ts';
import type { DriverBinding } from './domain/device.ts';
import { builtInDrivers } from '../drivers/modbus/index.ts';
import { builtInMqttDrivers } from '../drivers/mqtt/index.ts';
import { builtInHttpDrivers } from '../drivers/http/index.ts';
import { MODBUS_TCP_PORT } from './transport/endpoint.ts';

/** The defaults of the built-in definitions; the definitions are loaded once. */
export function builtInBindingDefaults(): BindingDefaults {
  const modbus = builtInDrivers();
  const mqtt = builtInMqttDrivers();
  const http = builtInHttpDrivers();
  return (binding: DriverBinding) => {
    if (modbus.has(binding.type)) {
      const { defaults } = modbus.get(binding.type);
      // What the runtime does: the definition's unit id, else the only one it scans (a SunSpec
      // definition that scans several names no unit until one is given); a TCP endpoint's port
      // is 502 unless the binding gives one (endpointOf in src/transport/endpoint.ts).
      const unitId = defaults?.unitId ?? (defaults?.unitIds?.length === 1 ? defaults.unitIds[0] : undefined);
      return {
        ...(unitId !== undefined ? { unitId } : {}),
        ...(binding['host'] !== undefined ? { port: MODBUS_TCP_PORT } : {}),
      };
    }
    if (mqtt.has(binding.type)) {
      const settings = mqtt.get(binding.type).settings;
      return Object.fromEntries(Object.entries(settings).filter(([, spec]) => spec.default !== undefined).map(([name, spec]) => [name, spec.default]));
    }
    if (http.has(binding.type)) {
      const definition = http.get(binding.type);
      const scheme = binding['scheme'] ?? definition.scheme;
      const settings = Object.entries(definition.settings).filter(([, spec]) => spec.default !== undefined).map(([name, spec]) => [name, spec.default]);
      // targetOf (http-registry.ts): the scheme's port unless the binding gives one.
      return { ...Object.fromEntries(settings), port: scheme === 'https' ? 443 : 80 };
    }
    // OCPP (the charge point id is all its identity) and the cloud cars (their VIN) have no defaults.
    return {};
  };
}
