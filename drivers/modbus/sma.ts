// SMA Sunny Boy / Tripower / Sunny Island: SunSpec over Modbus TCP. SMA devices answer SunSpec on
// unit id 126 (their native map lives on unit 3), at base 40000.
import { defineDriver } from '../../src/runtime/modbus/definition.ts';
import sunspec from './sunspec.ts';

export default defineDriver({
  ...sunspec,
  type: 'sma',
  title: 'SMA inverter or battery inverter (SunSpec on unit 126)',
  vendors: [{ domain: 'homePower', code: 'SMA' }],
  defaults: { ...sunspec.defaults, unitId: 126, unitIds: [126] },
});
