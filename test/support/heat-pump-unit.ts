// A Modbus heat pump for the command tests (test/runtime/commands.test.ts, test/store/storage-faults.test.ts):
// its register map on our Modbus simulator, and the import record that drives it through the generic
// Modbus register driver.
import { readHoldingRegisters, type SimUnit } from '../../src/sim/modbus-sim-server.ts';
import { drivenRecord } from './mqtt-hub.ts';

export const HEAT_PUMP = '6f1c2a4e-0000-4000-8000-0000000a0001';

/** A heat pump's register map: 100 flow setpoint (0.1 °C, writable), 101 room temperature (0.1 °C). */
export class HeatPumpUnit implements SimUnit {
  readonly registers = new Map<number, number>([[100, 200], [101, 195]]);
  /** A setpoint the controller clamps to (it accepts the write but keeps its limit). */
  clampAt: number | undefined;

  read(fn: 3 | 4, address: number, count: number): number[] | null {
    return readHoldingRegisters(this.registers, fn, address, count);
  }

  write(address: number, values: number[]): boolean {
    if (address !== 100 || values.length !== 1) return false;
    this.registers.set(100, this.clampAt !== undefined ? Math.min(values[0]!, this.clampAt) : values[0]!);
    return true;
  }
}

/** The heat pump on the simulator at `port`, polled every 200 ms, its setpoint a SET_TEMPERATURE confirmed by reading it back. */
export function heatPumpRecord(port: number) {
  return drivenRecord('hvac', HEAT_PUMP, 'VAILLANT', {
    type: 'modbus-registers', host: '127.0.0.1', port, unitId: 1, kind: 'hvac', pollIntervalMs: 200,
    points: { setpoint: { register: 100, type: 'int16', scale: 0.1 }, room: { register: 101, type: 'int16', scale: 0.1 } },
    fields: { targetTemperature: { point: 'setpoint', digits: 1 }, roomTemperature: { point: 'room', digits: 1 } },
    commands: { SET_TEMPERATURE: { point: 'setpoint', value: { from: 'payload', field: 'temperature', min: 5, max: 30 }, confirmField: 'targetTemperature' } },
  }, { type: 'HEATING_CIRCUIT' });
}
