// OCPP 1.6 statuses and sampled values to the API's chargeState (OCPP 1.6 edition 2, §7.7, §7.31–7.45).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chargerValues, readMeterValues, valuesOfReading, valuesOfStatus } from '../../../src/runtime/ocpp/charger-state.ts';

test('every ChargePointStatus has its chargingState, and plugged where the status tells', () => {
  const expected: Record<string, [string, boolean | undefined]> = {
    Available: ['UNPLUGGED', false], Reserved: ['UNPLUGGED', false], Preparing: ['PREPARING', true], Charging: ['CHARGING', true],
    SuspendedEV: ['FINISHED', true], SuspendedEVSE: ['STOPPED', true], Finishing: ['STOPPED', true], Unavailable: ['STOPPED', undefined], Faulted: ['FAULT', undefined],
  };
  for (const [status, [chargingState, isPlugged]] of Object.entries(expected)) {
    assert.deepEqual(valuesOfStatus({ status, errorCode: 'NoError' }, false), { chargingState, ...(isPlugged === undefined ? {} : { isPlugged }) }, status);
  }
  // An errorCode with a normal status is a warning, unless the maker reports faults only that way.
  assert.equal(valuesOfStatus({ status: 'Charging', errorCode: 'HighTemperature' }, false).chargingState, 'CHARGING');
  assert.equal(valuesOfStatus({ status: 'Charging', errorCode: 'HighTemperature' }, true).chargingState, 'FAULT');
});

test('the charger\'s state is its transaction\'s connector, else the first; connector 0 counts when Faulted', () => {
  const connectors = new Map([[0, { status: 'Available', errorCode: 'NoError' }], [1, { status: 'Available', errorCode: 'NoError' }], [2, { status: 'Charging', errorCode: 'NoError' }]]);
  assert.equal(chargerValues(connectors, undefined, false).chargingState, 'UNPLUGGED');
  assert.equal(chargerValues(connectors, 2, false).chargingState, 'CHARGING');
  connectors.set(0, { status: 'Faulted', errorCode: 'PowerMeterFailure' });
  assert.equal(chargerValues(connectors, 2, false).chargingState, 'FAULT');
  assert.deepEqual(chargerValues(new Map(), undefined, false), {});
});

test('meter values in W or kW, Wh or kWh, per phase or total, default measurand the energy register', () => {
  const at = (sampledValue: object[], timestamp = '2026-11-24T10:00:00Z') => [{ timestamp, sampledValue }] as never;
  assert.deepEqual(readMeterValues(at([{ value: '7.4', measurand: 'Power.Active.Import', unit: 'kW' }, { value: '12.5', unit: 'kWh' }])), { powerW: 7400, energyWh: 12500 });
  const perPhase = readMeterValues(at([
    ...['L1', 'L2', 'L3'].map((phase) => ({ value: '2300', measurand: 'Power.Active.Import', unit: 'W', phase })),
    { value: '10.2', measurand: 'Current.Import', unit: 'A', phase: 'L1' }, { value: '10.1', measurand: 'Current.Import', unit: 'A', phase: 'L2' },
    { value: '0.2', measurand: 'Current.Import', unit: 'A', phase: 'L3' }, { value: '16', measurand: 'Current.Offered', unit: 'A' },
    { value: '230', measurand: 'Voltage', unit: 'V', phase: 'L1-N' }, { value: 'abc', measurand: 'Power.Active.Import' },
    { value: '99999', measurand: 'Energy.Active.Import.Register', format: 'SignedData' },
  ]));
  assert.deepEqual(perPhase, { powerW: 6900, offeredA: 16, activePhases: 2 });
  assert.deepEqual(valuesOfReading(perPhase), { chargeRate: 6.9, chargeCurrentMax: 16, activePhases: 2 });
  // Of several samples, the latest is the charger's state.
  const two = [{ timestamp: '2026-11-24T10:00:10Z', sampledValue: [{ value: '1000', measurand: 'Power.Active.Import' }] },
    { timestamp: '2026-11-24T10:00:00Z', sampledValue: [{ value: '5000', measurand: 'Power.Active.Import' }] }];
  assert.equal(readMeterValues(two as never).powerW, 1000);
  assert.equal(valuesOfReading({ powerW: -20 }).chargeRate, 0);
});
