// The static fields of issue 23 through import and export: a vehicle's VIN, engine type, capacity
// and variant and an HVAC unit's room come back the same from export → import; `capableModes` is
// the driver's to say, so an import cannot set it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ImportError, prepareImport } from '../../src/domain/import.ts';
import { toImportRecord } from '../../src/domain/export.ts';

const NOW = Date.parse('2026-11-07T05:31:56Z');
const records = [
  {
    kind: 'vehicle', id: '5cab7f6d-0000-4000-8000-0000000000a1', userId: 'u-1',
    staticData: { vendor: 'BMW', vin: 'WBA71AW010CH12345', model: 'i4', engineType: 'BEV', batteryCapacity: 80.7, vehicleVariant: 'eDrive40' },
  },
  { kind: 'hvac', id: '3a8f5d4b-0000-4000-8000-0000000000a1', userId: 'u-1', type: 'AC', staticData: { vendor: 'DAIKIN', model: 'Perfera', room: 'Bedroom' } },
];

test('export → import keeps a vehicle\'s VIN, engine type, capacity and variant and an HVAC\'s room', () => {
  const first = prepareImport(records, NOW, () => undefined).devices;
  const again = prepareImport(first.map((device) => toImportRecord(device)), NOW, () => undefined).devices;
  assert.deepEqual(again.map((d) => d.staticData), first.map((d) => d.staticData));
  assert.deepEqual(first[0]!.staticData, { vin: 'WBA71AW010CH12345', engineType: 'BEV', batteryCapacity: 80.7, vehicleVariant: 'eDrive40' });
  assert.equal(first[1]!.staticData['room'], 'Bedroom');
});

test('an import cannot give capableModes, nor a malformed VIN or engine type', () => {
  const bad = [
    { ...records[1], staticData: { ...records[1]!.staticData, capableModes: ['HEAT'] } },
    { ...records[0], staticData: { ...records[0]!.staticData, vin: 'WBA71AW010CH1234O', engineType: 'DIESEL' } },
  ];
  assert.throws(() => prepareImport(bad, NOW, () => undefined), (err: ImportError) => {
    assert.deepEqual(err.problems.map((p) => `${p.index} ${p.field}`).sort(), ['0 staticData.capableModes', '1 staticData.engineType', '1 staticData.vin']);
    return true;
  });
});
