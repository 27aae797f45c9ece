// staticData.lastUpdated: when a device's static data was last set or changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stampedStaticData, type DeviceRecord } from '../../src/domain/device.ts';

const ADDED = Date.parse('2026-11-07T05:31:56Z');
const LATER = ADDED + 3_600_000 + 250;

function battery(overrides: Partial<DeviceRecord> = {}): DeviceRecord {
  return {
    id: '0d5c2a1e-7a4b-4f7e-9b3e-1a2b3c4d5e01', kind: 'battery', userId: 'u', vendor: 'FRONIUS', name: 'Garage', model: 'HVS 10.2',
    isOnline: true, lastUpdatedMs: null, locationId: null, hvacType: null, staticData: { siteName: 'Home', batteryCapacity: 10.24 },
    state: null, driver: null, createdAtMs: ADDED, ...overrides,
  };
}

test('a device without a stamp is stamped now, in whole seconds, its other fields kept', () => {
  assert.deepEqual(stampedStaticData(battery(), undefined, ADDED + 700), { lastUpdated: '2026-11-07T05:31:56Z', siteName: 'Home', batteryCapacity: 10.24 });
});

test('the stamp of the stored device is kept while its static data is the same, in any key order', () => {
  const stored = battery({ staticData: { batteryCapacity: 10.24, lastUpdated: '2026-11-07T05:31:56Z', siteName: 'Home' } });
  const again = stampedStaticData(battery(), stored, LATER);
  assert.equal(again, stored.staticData, 'the stored object itself, so that an unchanged device compares equal');
});

test('a change of vendor, name, model or another static field moves the stamp', () => {
  const stored = battery({ staticData: { lastUpdated: '2026-11-07T05:31:56Z', siteName: 'Home', batteryCapacity: 10.24 } });
  for (const changed of [
    battery({ vendor: 'SMA' }),
    battery({ name: 'Cellar' }),
    battery({ name: null }),
    battery({ model: 'HVS 12.8' }),
    battery({ staticData: { siteName: 'Home', batteryCapacity: 12.8 } }),
    battery({ staticData: { siteName: 'Home' } }),
  ]) {
    assert.equal(stampedStaticData(changed, stored, LATER)['lastUpdated'], '2026-11-07T06:31:56Z', JSON.stringify(changed));
  }
});

test('a stamp the record carries already stands', () => {
  const given = battery({ staticData: { lastUpdated: '2020-01-01T00:00:00Z', siteName: 'Home' } });
  const stored = battery({ staticData: { lastUpdated: '2026-11-07T05:31:56Z', siteName: 'Home', batteryCapacity: 10.24 } });
  assert.equal(stampedStaticData(given, stored, LATER), given.staticData);
});
