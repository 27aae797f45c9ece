// staticData.lastUpdated is filled wherever a device's static data is written: an import without one,
// a paired charger, a device declared in the configuration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../src/store/store.ts';
import { prepareImport } from '../../src/domain/import.ts';
import type { DeviceRecord } from '../../src/domain/device.ts';
import { loadConfig } from '../../src/config.ts';
import { applyConfiguredDevices, configuredId } from '../../src/configured-devices.ts';
import { silentLogger } from '../../src/log.ts';
import { tempFile } from '../support/files.ts';

const ADDED = Date.parse('2026-11-07T05:31:56Z');
const LATER = ADDED + 3_600_000 + 999;
const METER = '2f7e4c3a-9c6d-4b9a-9d5a-3c4d5e6f7a01';

function open(t: { after: (fn: () => void) => void }): Store {
  const store = Store.open(':memory:');
  t.after(() => store.close());
  return store;
}

function importInto(store: Store, records: unknown[], nowMs: number): void {
  const prepared = prepareImport(records, nowMs, (id) => store.devices.get(id)?.kind);
  store.importDevices(prepared.devices, prepared.images, nowMs);
}

const meter = (staticData: Record<string, unknown>) => ({ kind: 'meter', id: METER, userId: 'u', staticData: { vendor: 'SMA', model: 'Home Manager 2.0', ...staticData } });

test('an import without a stamp is stamped then; the same static data keeps it; a change or a given stamp replaces it', (t) => {
  const store = open(t);
  importInto(store, [meter({})], ADDED + 250);
  assert.equal(store.devices.get(METER)!.staticData['lastUpdated'], '2026-11-07T05:31:56Z');
  importInto(store, [meter({})], LATER);
  assert.equal(store.devices.get(METER)!.staticData['lastUpdated'], '2026-11-07T05:31:56Z', 'nothing changed');
  importInto(store, [meter({ name: 'Grid' })], LATER);
  assert.equal(store.devices.get(METER)!.staticData['lastUpdated'], '2026-11-07T06:31:56Z', 'named');
  importInto(store, [meter({ name: 'Grid', lastUpdated: '2026-01-02T03:04:05+01:00' })], LATER + 60_000);
  assert.equal(store.devices.get(METER)!.staticData['lastUpdated'], '2026-01-02T02:04:05Z', 'as the file gives it');
});

test('a paired charger is stamped when the session adds it, and the record announced carries it', (t) => {
  const store = open(t);
  const token = store.connectSessions.create({
    userId: 'u', vendor: 'GO_E', redirectUrl: 'https://app.example/', theme: null, language: null, createdAtMs: ADDED, expiresAtMs: ADDED + 600_000,
  });
  const device: DeviceRecord = {
    id: '4b9a6e5c-be8f-4dbc-9f7c-5e6f7a8b9c01', kind: 'charger', userId: 'u', vendor: 'GO_E', name: 'Garage', model: 'Gemini', isOnline: true,
    lastUpdatedMs: ADDED, locationId: null, hvacType: null, staticData: {}, state: null, driver: { type: 'go-e-mqtt', serial: '1' }, createdAtMs: ADDED,
  };
  assert.equal(store.completeConnectSession(token, device, ADDED), true);
  assert.deepEqual(store.devices.get(device.id)!.staticData, { lastUpdated: '2026-11-07T05:31:56Z' });
  assert.deepEqual(device.staticData, { lastUpdated: '2026-11-07T05:31:56Z' });
});

test('a declared device is stamped when added; a restart keeps the stamp, a new name in the file moves it', (t) => {
  const yaml = (name: string) => `
devices:
  - kind: pvInverter
    id: 1E6D3B2F-8B5C-4A8F-8C4F-2B3C4D5E6F01
    locationId: 6F1C0E56-2D1B-4C55-9A0E-4A4F3B2A9D01
    userId: household-1
    vendor: FRONIUS
    name: ${name}
    driver: { type: fronius, host: 192.168.1.50 }
`;
  const store = open(t);
  const config = loadConfig({ HUB_CONFIG: tempFile(t, 'hub.yaml', yaml('Roof')) });
  const id = configuredId(config.devices[0]!, config);
  assert.equal(id, '1e6d3b2f-8b5c-4a8f-8c4f-2b3c4d5e6f01', 'a declared id is kept in lower case, as the API looks it up');
  assert.deepEqual(applyConfiguredDevices(store, config, ADDED, silentLogger()), { added: 1, updated: 0, deleted: 0 });
  assert.equal(store.devices.get(id)!.locationId, '6f1c0e56-2d1b-4c55-9a0e-4a4f3b2a9d01');
  assert.equal(store.devices.get(id)!.staticData['lastUpdated'], '2026-11-07T05:31:56Z');
  assert.deepEqual(applyConfiguredDevices(store, config, LATER, silentLogger()), { added: 0, updated: 0, deleted: 0 }, 'a restart changes nothing');
  assert.equal(store.devices.get(id)!.staticData['lastUpdated'], '2026-11-07T05:31:56Z');
  const renamed = loadConfig({ HUB_CONFIG: tempFile(t, 'hub.yaml', yaml('Roof south')) });
  assert.deepEqual(applyConfiguredDevices(store, renamed, LATER, silentLogger()), { added: 0, updated: 1, deleted: 0 });
  assert.equal(store.devices.get(id)!.staticData['lastUpdated'], '2026-11-07T06:31:56Z');
});
