// A driver definition to copy: rename the file after the device family, fill in the registers from
// the maker's Modbus documentation (one comment per register naming its entry there), add it to
// drivers/modbus/index.ts and give test/drivers/modbus/definitions.test.ts a simulator for it.
import { defineDriver } from '../../src/runtime/modbus/definition.ts';

export default defineDriver({
  type: 'example-maker-model', // the binding's `type`; unique
  title: 'Example Maker Model X inverter',
  family: 'register-map', // or 'sunspec', with `models` on each group
  vendors: [], // e.g. [{ domain: 'homePower', code: 'FRONIUS' }] once the maker is in the vocabulary
  defaults: { unitId: 1, port: 502, pollIntervalMs: 10_000 },
  line: { pauseAfterConnectMs: 0, pauseBetweenMs: 0 }, // what the device needs on its line
  maxGap: 0, // registers that may be read through between two points (they must exist on the device)
  busyExceptions: [6], // exception codes meaning "busy, ask again later"
  groups: {
    inverter: {
      points: {
        power: { register: 1000, fn: 4, type: 'int32', unit: 'W' }, // manual §4.2 "Active power" (I32, W)
        status: { register: 1002, fn: 4, type: 'uint16' }, // manual §4.2 "Operating state" (U16)
      },
    },
  },
  kinds: {
    pvInverter: {
      fields: {
        solarPower: { point: 'inverter.power', unit: 'kW', min: 0 },
        state: [
          { point: 'inverter.status', enum: { 1: 'PRODUCING', 2: 'IDLE', 3: 'FAULT' } },
          { sign: 'solarPower', positive: 'PRODUCING', negative: 'IDLE', zero: 'IDLE' },
        ],
      },
    },
  },
});
