// Reads, lists and deletions of every device kind, with their error paths.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestHub, ids, json, type TestHub } from '../support/hub.ts';
import { demoRecords, DEMO_USER } from '../../src/demo/site.ts';

function demoHub(t: { after: (fn: () => void) => void }): TestHub {
  const hub = createTestHub();
  t.after(hub.close);
  hub.seed(demoRecords(hub.clock.now()));
  return hub;
}

async function expectError(res: Response, status: number, errorCode: string, message?: string) {
  assert.equal(res.status, status);
  const body = await json(res);
  assert.equal(body.errorCode, errorCode);
  assert.match(body.id, /^[0-9a-f-]{36}$/);
  if (message !== undefined) assert.equal(body.message, message);
  return body;
}

test('GET /batteries/{id} returns the battery detail in the specification shape', async (t) => {
  const hub = demoHub(t);
  const res = await hub.request(`/batteries/${ids.battery}`);
  assert.equal(res.status, 200);
  const body = await json(res);
  assert.deepEqual(Object.keys(body), ['id', 'userId', 'isOnline', 'lastUpdated', 'locationId', 'staticData', 'chargeState']);
  assert.equal(body.userId, DEMO_USER);
  assert.match(body.lastUpdated, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.deepEqual(Object.keys(body.staticData), ['lastUpdated', 'vendor', 'name', 'model', 'siteName', 'batteryCapacity'].filter((k) => k in body.staticData));
  assert.equal(body.staticData.vendor, 'FRONIUS');
  assert.equal(body.staticData.batteryCapacity, 10.24);
  assert.equal(body.chargeState.chargingState, 'CHARGING');
  assert.equal(body.chargeState.mode, 'SELF_CONSUMPTION');
});

test('a device read answers the kind-tagged not-found error, also for a device of another kind', async (t) => {
  const hub = demoHub(t);
  await expectError(await hub.request(`/batteries/${ids.unknown}`), 404, 'BATTERY_NOT_FOUND', `[BATTERY] Battery ${ids.unknown} not found`);
  await expectError(await hub.request(`/batteries/${ids.charger}`), 404, 'BATTERY_NOT_FOUND');
  await expectError(await hub.request(`/chargers/${ids.battery}`), 404, 'CHARGER_NOT_FOUND', `[CHARGER] Charger ${ids.battery} not found`);
});

test('a path id that is not a UUID is a 400 naming the parameter', async (t) => {
  const hub = demoHub(t);
  const body = await expectError(await hub.request('/batteries/not-a-uuid'), 400, 'BAD_REQUEST', 'Bad request');
  assert.deepEqual(body.validationErrors, [{ field: 'batteryId', message: 'must be a UUID' }]);
});

test('GET /chargers/{id} and its refresh return the charger detail', async (t) => {
  const hub = demoHub(t);
  for (const path of [`/chargers/${ids.charger}`, `/chargers/${ids.charger}/refresh`]) {
    const res = await hub.request(path);
    assert.equal(res.status, 200);
    const body = await json(res);
    assert.deepEqual(Object.keys(body), ['id', 'userId', 'isOnline', 'lastUpdated', 'locationId', 'chargeState', 'staticData']);
    assert.equal(body.chargeState.chargingState, 'CHARGING');
    assert.equal(body.chargeState.activePhases, 3);
    assert.equal(body.staticData.vendor, 'GO_E');
  }
  await expectError(await hub.request(`/chargers/${ids.unknown}/refresh`), 404, 'CHARGER_NOT_FOUND');
});

test('a refresh without a driver returns the stored state unchanged', async (t) => {
  const hub = demoHub(t);
  const before = await json(await hub.request(`/chargers/${ids.charger}`));
  hub.clock.advance(60_000);
  const after = await json(await hub.request(`/chargers/${ids.charger}/refresh`));
  assert.deepEqual(after, before);
});

test('a refresh of an unreachable device is 503 DEVICE_IS_DISCONNECTED', async (t) => {
  const { DeviceUnreachableError } = await import('../../src/runtime/devices/live.ts');
  const hub = createTestHub({
    runtime: {
      refresh: async (device) => { throw new DeviceUnreachableError(device.id, 'timeout'); },
      commandCreated: () => {},
      deviceDeleted: () => {},
    },
  });
  t.after(hub.close);
  hub.seed(demoRecords(hub.clock.now()));
  await expectError(await hub.request(`/pv-inverters/${ids.pvInverter}/refresh`), 503, 'DEVICE_IS_DISCONNECTED');
  await expectError(await hub.request(`/chargers/${ids.charger}/refresh`), 503, 'DEVICE_IS_DISCONNECTED');
});

test('GET /pv-inverters/{id}/refresh returns the PV inverter detail; unknown is PV_INVERTER_NOT_FOUND', async (t) => {
  const hub = demoHub(t);
  const body = await json(await hub.request(`/pv-inverters/${ids.pvInverter}/refresh`));
  assert.deepEqual(Object.keys(body), ['id', 'userId', 'isOnline', 'lastUpdated', 'locationId', 'staticData', 'powerState']);
  assert.equal(body.powerState.state, 'PRODUCING');
  assert.equal(body.powerState.solarPower, 4.83);
  await expectError(await hub.request(`/pv-inverters/${ids.unknown}/refresh`), 404, 'PV_INVERTER_NOT_FOUND', `[PV_INVERTER] PV inverter ${ids.unknown} not found`);
});

test('GET /users/{u}/tariffs/{id} returns the tariff to its owner only', async (t) => {
  const hub = demoHub(t);
  const res = await hub.request(`/users/${DEMO_USER}/tariffs/${ids.tariff}`);
  assert.equal(res.status, 200);
  const body = await json(res);
  assert.deepEqual(Object.keys(body), ['id', 'userId', 'isOnline', 'lastUpdated', 'locationId', 'staticData']);
  assert.deepEqual(body.staticData, { vendor: 'TIBBER', countryCode: 'DE', name: 'Dynamic hourly price', currency: 'EUR', lastUpdated: body.staticData.lastUpdated });
  const other = await expectError(await hub.request(`/users/someone-else/tariffs/${ids.tariff}`), 404, 'TARIFF_NOT_FOUND');
  const missing = await expectError(await hub.request(`/users/${DEMO_USER}/tariffs/${ids.unknown}`), 404, 'TARIFF_NOT_FOUND');
  // Another user's device is answered exactly like one that does not exist (but for the id in the message).
  assert.equal(other.message.replace(ids.tariff, 'X'), missing.message.replace(ids.unknown, 'X'));
});

test('GET /batteries lists a page with totals and the list item shape', async (t) => {
  const hub = demoHub(t);
  const body = await json(await hub.request('/batteries'));
  assert.equal(body.totalElements, 2);
  assert.equal(body.totalPages, 1);
  assert.deepEqual(Object.keys(body.content[0]).sort(), ['chargingState', 'id', 'isOnline', 'lastUpdated', 'model', 'name', 'userId', 'vendor']);
  const filtered = await json(await hub.request('/batteries?vendor=HUAWEI&chargingState=DISCHARGING&model=luna'));
  assert.deepEqual(filtered.content.map((b: { id: string }) => b.id), [ids.battery2]);
  const empty = await json(await hub.request('/batteries?page=5'));
  assert.deepEqual(empty, { content: [], totalElements: 2, totalPages: 1 });
});

test('list queries name every invalid parameter at once and ignore unknown ones', async (t) => {
  const hub = demoHub(t);
  const body = await expectError(
    await hub.request('/batteries?size=0&page=-1&sortField=NAME&sortOrder=up&isOnline=yes&vendor=ACME&uuid=x&lastUpdatedFrom=2026-11-07T05:31:56&chargingState=FULL&whatever=1'),
    400, 'BAD_REQUEST');
  const fields = body.validationErrors.map((e: { field: string }) => e.field).sort();
  assert.deepEqual(fields, ['chargingState', 'isOnline', 'lastUpdatedFrom', 'page', 'size', 'sortField', 'sortOrder', 'uuid', 'vendor']);
  for (const error of body.validationErrors) assert.ok(error.message.length > 5, `${error.field}: ${error.message}`);
  await expectError(await hub.request('/batteries?size=101'), 400, 'BAD_REQUEST');
  await expectError(await hub.request('/batteries?size=1.5'), 400, 'BAD_REQUEST');
  assert.equal((await hub.request('/batteries?size=100&page=0&unknown=x')).status, 200);
});

test('lastUpdated bounds are inclusive and accept offsets', async (t) => {
  const hub = demoHub(t);
  const detail = await json(await hub.request(`/batteries/${ids.battery}`));
  const at = detail.lastUpdated as string;
  const exact = await json(await hub.request(`/batteries?lastUpdatedFrom=${encodeURIComponent(at)}&lastUpdatedTo=${encodeURIComponent(at)}`));
  assert.deepEqual(exact.content.map((b: { id: string }) => b.id), [ids.battery]);
  const ms = Date.parse(at);
  const plusTwo = new Date(ms + 2 * 3600_000).toISOString().replace('Z', '+02:00').replace('.000', '');
  const viaOffset = await json(await hub.request(`/batteries?lastUpdatedTo=${encodeURIComponent(plusTwo)}&lastUpdatedFrom=${encodeURIComponent(plusTwo)}`));
  assert.equal(viaOffset.totalElements, 1);
});

test('GET /hvacs and /users/{u}/hvacs list HVAC items with their type', async (t) => {
  const hub = demoHub(t);
  const all = await json(await hub.request('/hvacs?type=DHW'));
  assert.equal(all.totalElements, 1);
  assert.equal(all.content[0].type, 'DHW');
  assert.equal(all.content[0].vendor, 'DAIKIN');
  const mine = await json(await hub.request(`/users/${DEMO_USER}/hvacs?sortField=VENDOR&sortOrder=ASC`));
  assert.deepEqual(mine.content.map((h: { vendor: string }) => h.vendor), ['DAIKIN', 'VAILLANT', 'VIESSMANN']);
  const nobody = await json(await hub.request('/users/nobody/hvacs'));
  assert.deepEqual(nobody, { content: [], totalElements: 0, totalPages: 0 });
  const bad = await expectError(await hub.request(`/users/${DEMO_USER}/hvacs?sortField=USER_ID`), 400, 'BAD_REQUEST');
  assert.deepEqual(bad.validationErrors, [{ field: 'sortField', message: 'must be one of VENDOR, IS_ONLINE, LAST_UPDATED' }]);
  await expectError(await hub.request('/hvacs?vendor=FRONIUS'), 400, 'BAD_REQUEST');
});

test('user lists of PV inverters and meters show only that user, sorted by vendor by default', async (t) => {
  const hub = demoHub(t);
  const pv = await json(await hub.request(`/users/${DEMO_USER}/pv-inverters`));
  assert.deepEqual(pv.content.map((p: { vendor: string }) => p.vendor), ['SMA', 'FRONIUS']);
  assert.deepEqual(Object.keys(pv.content[0]).sort(), ['id', 'isOnline', 'lastUpdated', 'model', 'name', 'userId', 'vendor']);
  const meters = await json(await hub.request(`/users/${DEMO_USER}/meters?size=1`));
  assert.equal(meters.totalElements, 1);
  assert.equal('type' in meters.content[0], false);
  await expectError(await hub.request(`/users/${DEMO_USER}/meters?size=abc`), 400, 'BAD_REQUEST');
  await expectError(await hub.request(`/users/${DEMO_USER}/pv-inverters?sortOrder=desc`), 400, 'BAD_REQUEST');
});

test('DELETE removes a device for good and answers {success: true}', async (t) => {
  const hub = demoHub(t);
  for (const [path, read] of [
    [`/batteries/${ids.battery}`, `/batteries/${ids.battery}`],
    [`/pv-inverters/${ids.pvInverter}`, `/pv-inverters/${ids.pvInverter}/refresh`],
    [`/chargers/${ids.charger}`, `/chargers/${ids.charger}`],
  ] as const) {
    const res = await hub.request(path, { method: 'DELETE' });
    assert.equal(res.status, 200);
    assert.deepEqual(await json(res), { success: true });
    assert.equal((await hub.request(read)).status, 404);
    assert.equal((await hub.request(path, { method: 'DELETE' })).status, 404);
    assert.equal(hub.store.devices.wasDeleted(path.split('/').pop()!), true);
  }
  assert.equal((await json(await hub.request('/batteries'))).totalElements, 1);
});

test('DELETE of a vehicle checks its owner and removes its image', async (t) => {
  const hub = demoHub(t);
  await expectError(await hub.request(`/users/someone-else/vehicles/${ids.vehicle}`, { method: 'DELETE' }), 404, 'VEHICLE_NOT_FOUND', `[VEHICLE] Vehicle ${ids.vehicle} not found`);
  assert.ok(hub.store.deviceImages.get(ids.vehicle));
  const res = await hub.request(`/users/${DEMO_USER}/vehicles/${ids.vehicle}`, { method: 'DELETE' });
  assert.deepEqual(await json(res), { success: true });
  assert.equal(hub.store.deviceImages.get(ids.vehicle), undefined);
  await expectError(await hub.request(`/users/${DEMO_USER}/vehicles/${ids.vehicle}/image.png`), 404, 'VEHICLE_NOT_FOUND');
});

/** An id in upper case: UUIDs are case-insensitive (RFC 9562). */
const upper = (id: string) => id.toUpperCase();

test('a path id in upper case names the same device, on every kind of operation', async (t) => {
  const hub = demoHub(t);
  for (const path of [
    `/batteries/${upper(ids.battery)}`, `/chargers/${upper(ids.charger)}`, `/chargers/${upper(ids.charger)}/refresh`,
    `/pv-inverters/${upper(ids.pvInverter)}/refresh`, `/users/${DEMO_USER}/tariffs/${upper(ids.tariff)}`,
  ]) {
    const res = await hub.request(path);
    assert.equal(res.status, 200, path);
    assert.equal((await json(res)).id, path.split('/').find((part) => /^[0-9A-F-]{36}$/.test(part))!.toLowerCase(), path);
  }
  const mixed = `${ids.battery.slice(0, 18).toUpperCase()}${ids.battery.slice(18)}`;
  assert.equal((await json(await hub.request(`/batteries/${mixed}`))).id, ids.battery);
  assert.equal((await hub.request(`/users/${DEMO_USER}/vehicles/${upper(ids.vehicle)}/image.png`)).status, 200);

  const stop = await json(await hub.request(`/vehicles/${upper(ids.vehicle)}/commands/charging-stop`, { method: 'POST' }));
  assert.equal(stop.deviceId, ids.vehicle);
  const listed = await json(await hub.request(`/users/${DEMO_USER}/vehicles/${upper(ids.vehicle)}/commands`));
  assert.deepEqual(listed.map((c: { id: string }) => c.id), [stop.id]);
  assert.deepEqual(await json(await hub.request(`/users/${DEMO_USER}/hvacs/${upper(ids.hvac)}/commands`)), []);

  assert.deepEqual(await json(await hub.request(`/batteries/${upper(ids.battery)}`, { method: 'DELETE' })), { success: true });
  assert.equal(hub.store.devices.wasDeleted(ids.battery), true);
  assert.equal((await hub.request(`/batteries/${ids.battery}`)).status, 404);
});

test('a not-found message names an upper-case path id as the hub keeps ids, in lower case', async (t) => {
  const hub = demoHub(t);
  const unknown = 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE';
  const lower = unknown.toLowerCase();
  await expectError(await hub.request(`/batteries/${unknown}`), 404, 'BATTERY_NOT_FOUND', `[BATTERY] Battery ${lower} not found`);
  await expectError(await hub.request(`/chargers/${unknown}`, { method: 'DELETE' }), 404, 'CHARGER_NOT_FOUND', `[CHARGER] Charger ${lower} not found`);
  await expectError(await hub.request(`/vehicles/${unknown}/commands/charging-stop`, { method: 'POST' }), 404, 'VEHICLE_NOT_FOUND', `[VEHICLE] Vehicle ${lower} not found`);
  await expectError(await hub.request(`/users/${DEMO_USER}/tariffs/${unknown}`), 404, 'TARIFF_NOT_FOUND', `[TARIFF] Tariff ${lower} not found`);
  // Another user's device, named in upper case, is still answered like one that does not exist.
  await expectError(await hub.request(`/users/someone-else/tariffs/${upper(ids.tariff)}`), 404, 'TARIFF_NOT_FOUND', `[TARIFF] Tariff ${ids.tariff} not found`);
});

test('the uuid filter matches an id in any case', async (t) => {
  const hub = demoHub(t);
  for (const uuid of [ids.battery2, upper(ids.battery2)]) {
    const page = await json(await hub.request(`/batteries?uuid=${uuid}`));
    assert.deepEqual(page.content.map((b: { id: string }) => b.id), [ids.battery2], uuid);
  }
  const hvacs = await json(await hub.request(`/hvacs?uuid=${upper(ids.hvac)}`));
  assert.deepEqual(hvacs.content.map((h: { id: string }) => h.id), [ids.hvac]);
  assert.equal((await json(await hub.request(`/hvacs?uuid=${upper(ids.battery)}`))).totalElements, 0, 'a battery is no HVAC');
});

test('staticData.lastUpdated is the time the static data was set: kept by a reimport of the same, moved by a change', async (t) => {
  const hub = demoHub(t);
  const added = '2026-11-07T05:31:56Z';
  const details = {
    battery: `/batteries/${ids.battery}`, charger: `/chargers/${ids.charger}`, pvInverter: `/pv-inverters/${ids.pvInverter}/refresh`,
  };
  for (const path of Object.values(details)) {
    const body = await json(await hub.request(path));
    assert.equal(body.staticData.lastUpdated, added, path);
    assert.equal(Object.keys(body.staticData)[0], 'lastUpdated', `${path}: in the specification's field order`);
  }
  // The demo tariff's import file gives one: it stands.
  const tariff = await json(await hub.request(`/users/${DEMO_USER}/tariffs/${ids.tariff}`));
  assert.equal(tariff.staticData.lastUpdated, '2026-11-07T05:16:56Z');

  hub.clock.advance(3_600_000 + 400);
  const records = demoRecords(hub.clock.now()) as { id: string; staticData: Record<string, unknown> }[];
  records.find((r) => r.id === ids.battery)!.staticData['batteryCapacity'] = 12.8;
  hub.seed(records);
  assert.equal((await json(await hub.request(details.battery))).staticData.lastUpdated, '2026-11-07T06:31:56Z', 'changed');
  assert.equal((await json(await hub.request(details.charger))).staticData.lastUpdated, added, 'the same static data');
  assert.equal((await json(await hub.request(details.pvInverter))).staticData.lastUpdated, added);
});

test('a device imported with a fraction of a second is kept, shown and filtered in whole seconds', async (t) => {
  const hub = createTestHub();
  t.after(hub.close);
  hub.seed([{
    kind: 'battery', id: ids.battery, userId: 'u', lastUpdated: '2026-11-07T07:31:56.789+02:00',
    staticData: { vendor: 'SMA', model: 'X', lastUpdated: '2026-11-07T05:31:55.999Z' },
    chargeState: { lastUpdated: '2026-11-07T05:31:56.5Z', chargingState: 'IDLE' },
  }]);
  const detail = await json(await hub.request(`/batteries/${ids.battery}`));
  assert.equal(detail.lastUpdated, '2026-11-07T05:31:56Z');
  assert.equal(detail.staticData.lastUpdated, '2026-11-07T05:31:55Z');
  assert.equal(detail.chargeState.lastUpdated, '2026-11-07T05:31:56Z');
  const matching = async (query: string) => (await json(await hub.request(`/batteries?${query}`))).content.map((b: { id: string }) => b.id);
  // Shown as 05:31:56Z, so within bounds at that very second, and not after it.
  assert.deepEqual(await matching('lastUpdatedTo=2026-11-07T05:31:56Z'), [ids.battery]);
  assert.deepEqual(await matching('lastUpdatedFrom=2026-11-07T05:31:56Z&lastUpdatedTo=2026-11-07T05:31:56Z'), [ids.battery]);
  assert.deepEqual(await matching('lastUpdatedFrom=2026-11-07T05:31:56.001Z'), []);
  assert.deepEqual((await json(await hub.request('/batteries'))).content[0].lastUpdated, '2026-11-07T05:31:56Z');
});

test('a meter\'s detail shows its power and import counter as powerState; a value it does not report is absent', async (t) => {
  const hub = demoHub(t);
  const at = '2026-11-07T05:30:00Z';
  hub.store.devices.updateState(ids.meter, { lastUpdated: at, power: 1.25, energyImported: 289.99, energyExported: 12.5 }, true, Date.parse(at));
  const body = await json(await hub.request(`/users/${DEMO_USER}/meters/${ids.meter}`));
  assert.deepEqual(Object.keys(body), ['id', 'userId', 'isOnline', 'lastUpdated', 'locationId', 'staticData', 'powerState']);
  assert.deepEqual(body.powerState, { lastUpdated: at, power: 1.25, meterValue: 289.99 });
  hub.store.devices.updateState(ids.meter, { lastUpdated: at, energyImported: 290 }, true, Date.parse(at));
  assert.deepEqual((await json(await hub.request(`/users/${DEMO_USER}/meters/${ids.meter}`))).powerState, { lastUpdated: at, meterValue: 290 });
  hub.store.devices.updateState(ids.meter, null, true, Date.parse(at));
  assert.equal('powerState' in (await json(await hub.request(`/users/${DEMO_USER}/meters/${ids.meter}`))), false);
});

test('an HVAC unit no driver reaches shows no modes it could be set to, and the climate values it was given', async (t) => {
  const hub = demoHub(t);
  const body = await json(await hub.request(`/users/${DEMO_USER}/hvacs/${ids.hvac}`));
  assert.deepEqual(body.staticData.capableModes, []);
  assert.equal(body.staticData.type, 'HEATING_CIRCUIT');
  assert.equal('climateState' in body, false);
  const at = '2026-11-07T05:30:00Z';
  hub.store.devices.updateState(ids.hvac, { lastUpdated: at, roomTemperature: 20.5, outsideTemperature: -2, targetTemperature: 21, mode: 'HEAT' }, true, Date.parse(at));
  const live = await json(await hub.request(`/users/${DEMO_USER}/hvacs/${ids.hvac}`));
  assert.deepEqual(live.climateState, {
    lastUpdated: at, mode: 'HEAT', isActive: true, temperatureCurrent: 20.5, temperatureOutside: -2, temperatureTargets: [{ mode: 'HEAT', temperature: 21 }],
  });
});
