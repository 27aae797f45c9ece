// What an export leaves out of a device's binding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toImportRecord } from '../../src/domain/export.ts';
import type { DeviceRecord } from '../../src/domain/device.ts';

test('a car\'s maker-cloud login (BMW CarData\'s refresh token) is not exported; the rest of its binding is', () => {
  const car: DeviceRecord = {
    id: '0b5c4a2e-6a43-4b8e-9d43-9b2f6f4c1a01', kind: 'vehicle', userId: 'u1', vendor: 'BMW', name: 'i4', model: null, isOnline: true,
    lastUpdatedMs: null, locationId: null, hvacType: null, staticData: {}, state: null, createdAtMs: 0,
    driver: { type: 'bmw-cardata', clientId: 'client-1', vin: 'WBY11HH0000000001', gcid: 'gcid-1', refreshToken: 'refresh-secret' },
  };
  const record = toImportRecord(car);
  assert.deepEqual(record['driver'], { type: 'bmw-cardata', clientId: 'client-1', vin: 'WBY11HH0000000001', gcid: 'gcid-1' });
  assert.doesNotMatch(JSON.stringify(record), /refresh-secret/);
});

test('a Volvo\'s refresh token, client secret and VCC API key are not exported', () => {
  const car: DeviceRecord = {
    id: '0b5c4a2e-6a43-4b8e-9d43-9b2f6f4c1a02', kind: 'vehicle', userId: 'u1', vendor: 'VOLVO', name: 'XC40', model: null, isOnline: true,
    lastUpdatedMs: null, locationId: null, hvacType: null, staticData: {}, state: null, createdAtMs: 0,
    driver: { type: 'volvo', vin: 'YV1XZK9V0R0000001', clientId: 'app', clientSecret: 'secret-1', vccApiKey: 'key-1', refreshToken: 'refresh-1' },
  };
  assert.deepEqual(toImportRecord(car)['driver'], { type: 'volvo', vin: 'YV1XZK9V0R0000001', clientId: 'app' });
});
