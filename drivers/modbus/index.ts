// Every driver definition the hub ships. A new family is a new file here plus one line below; the
// every-definition test (test/drivers/modbus/definitions.test.ts) then insists on a simulator for it.
import { DriverRegistry } from '../../src/runtime/modbus/modbus-registry.ts';
import type { DriverDefinition } from '../../src/runtime/modbus/definition.ts';
import sunspec from './sunspec.ts';
import fronius from './fronius.ts';
import sma from './sma.ts';
import solaredge from './solaredge.ts';
import huaweiSun2000 from './huawei-sun2000.ts';
import modbusRegisters from './modbus-registers.ts';

export const DRIVER_DEFINITIONS: readonly DriverDefinition[] = [sunspec, fronius, sma, solaredge, huaweiSun2000, modbusRegisters];

export function builtInDrivers(): DriverRegistry {
  return new DriverRegistry(DRIVER_DEFINITIONS);
}
