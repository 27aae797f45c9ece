// The generic register-map driver: for a device without a definition, the installer writes the
// points and field rules into the device's binding, in the same shape a definition uses, e.g.
//   { "type": "modbus-registers", "host": "192.0.2.7", "unitId": 3, "kind": "meter",
//     "points": { "power": { "register": 20, "fn": 4, "type": "int32", "unit": "W" } },
//     "fields": { "power": { "point": "power", "unit": "kW" } } }
// Points are named without a group; adjacent ones are read together (set maxGap to bridge gaps
// the device allows). The registry checks the binding when the device is added or loaded.
import { defineDriver } from '../../src/runtime/modbus/definition.ts';

export default defineDriver({
  type: 'modbus-registers',
  title: 'Any Modbus device, register map given in the binding',
  family: 'register-map',
  vendors: [],
  defaults: { unitId: 1, port: 502, pollIntervalMs: 10_000 },
  maxGap: 0,
  groups: {},
  kinds: {},
  configurable: true,
});
