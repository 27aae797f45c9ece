// Fronius Symo / Primo / GEN24 and their Smart Meters: SunSpec over Modbus TCP (port 502, enabled
// in the inverter's web UI as "Modbus TCP, int + SF"). The inverter answers on unit 1, a Smart Meter
// behind it on unit 200 (or 240 on older Datamanagers); the storage models sit with the inverter.
import { defineDriver } from '../../src/runtime/modbus/definition.ts';
import sunspec from './sunspec.ts';

export default defineDriver({
  ...sunspec,
  type: 'fronius',
  title: 'Fronius inverter, battery or Smart Meter (SunSpec)',
  vendors: [{ domain: 'homePower', code: 'FRONIUS' }],
  defaults: { ...sunspec.defaults, unitIds: [1, 200, 240] },
  // Fronius Datamanagers drop requests that follow each other too closely.
  line: { pauseBetweenMs: 20 },
});
