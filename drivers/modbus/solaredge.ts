// SolarEdge inverters and their Modbus meters: SunSpec over Modbus TCP (port 1502 or 502, unit 1).
// The meter is the second logical device of the inverter's map (model 1 again, then 203), and its
// power counts feed-in as positive: evcc's solaredge-hybrid template reads it with scale -1, and the
// SE5000H capture in evcc issue 15445 shows 58 W of import as -58. The hub keeps meter power
// positive while importing, so it is inverted here. SolarEdge has no vendor code in the catalog: such
// a device is imported under the code the installer chooses, its own maker shown in the model.
import { defineDriver, type FieldRule } from '../../src/runtime/modbus/definition.ts';
import sunspec, { meterMapping } from './sunspec.ts';

const invertedPower = (meterMapping.fields['power'] as FieldRule[]).map((rule) => ({ ...rule, invert: true }) as FieldRule);

export default defineDriver({
  ...sunspec,
  type: 'solaredge',
  title: 'SolarEdge inverter and meter (SunSpec; meter power counted feed-in positive)',
  vendors: [],
  defaults: { ...sunspec.defaults, unitIds: [1] },
  kinds: { ...sunspec.kinds, meter: { ...meterMapping, fields: { ...meterMapping.fields, power: invertedPower } } },
});
