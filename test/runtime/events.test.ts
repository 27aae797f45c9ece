// Events in process and on the broker's topics: devices added or removed by another process (import,
// the hub command) are told as connect and delete; the topic is per kind and event type.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/store/store.ts';
import { prepareImport } from '../../src/domain/import.ts';
import { HubEvents, type HubEvent } from '../../src/runtime/events/hub-events.ts';
import { DeviceWatcher } from '../../src/runtime/events/device-watcher.ts';
import { EventPublisher, eventBody } from '../../src/runtime/events/event-publisher.ts';
import { systemClock } from '../../src/domain/time.ts';

const METER = '2f7e4c3a-9c6d-4b9a-9d5a-3c4d5e6f7a99';

test('devices imported or removed by another process are told as connect and delete', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-events-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const hub = Store.open(join(dir, 'hub.db'));
  const cli = Store.open(join(dir, 'hub.db'));
  t.after(() => { hub.close(); cli.close(); });
  const events = new HubEvents();
  const seen: HubEvent[] = [];
  events.on((e) => seen.push(e));
  const watcher = new DeviceWatcher(hub, events, systemClock, 60_000);
  watcher.start();
  t.after(() => watcher.stop());

  const prepared = prepareImport([{ kind: 'meter', id: METER, userId: 'u-1', staticData: { vendor: 'SMA', model: 'Home Manager 2.0' } }], Date.now(), () => undefined);
  cli.importDevices(prepared.devices, prepared.images, Date.now());
  watcher.check();
  assert.deepEqual(seen.map((e) => [e.type, e.type === 'command' ? '' : e.device.id]), [['connect', METER]]);

  cli.deleteDevice(cli.devices.get(METER)!, Date.now());
  watcher.check();
  const last = seen.at(-1)!;
  assert.ok(last.type === 'delete');
  assert.deepEqual([last.device.id, last.device.kind, last.device.userId], [METER, 'meter', 'u-1']);
  watcher.check();
  assert.equal(seen.length, 2, 'each change is told once');
});

test('a quiet hub lists no devices to find changes, and a swap by another process (same count) is still told', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-events-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const hub = Store.open(join(dir, 'hub.db'));
  const cli = Store.open(join(dir, 'hub.db'));
  t.after(() => { hub.close(); cli.close(); });
  const OTHER = '2f7e4c3a-9c6d-4b9a-9d5a-3c4d5e6f7a98';
  const meter = (id: string) => prepareImport([{ kind: 'meter', id, userId: 'u-1', staticData: { vendor: 'SMA', model: 'Home Manager 2.0' } }], Date.now(), () => undefined);
  cli.importDevices(meter(METER).devices, new Map(), Date.now());
  const events = new HubEvents();
  const seen: string[] = [];
  events.on((e) => { if (e.type !== 'command') seen.push(`${e.type} ${e.device.id}`); });
  const watcher = new DeviceWatcher(hub, events, systemClock, 60_000);
  watcher.start();
  t.after(() => watcher.stop());
  let listed = 0;
  const changes = hub.membership.changes.bind(hub.membership);
  hub.membership.changes = () => (listed++, changes());
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  await nextTurn();
  watcher.check();
  await nextTurn();
  watcher.check();
  assert.equal(listed, 0, 'nothing changed, nothing listed');

  cli.deleteDevice(cli.devices.get(METER)!, Date.now());
  cli.importDevices(meter(OTHER).devices, new Map(), Date.now());
  await nextTurn();
  watcher.check();
  assert.deepEqual(seen.sort(), [`connect ${OTHER}`, `delete ${METER}`]);
  assert.equal(listed, 1);
});

test('the publisher puts each event on <prefix>/<kind>/<type>, never retained, and counts what it could not send', () => {
  const events = new HubEvents();
  const sent: { topic: string; payload: string; qos: number; retain: boolean | undefined }[] = [];
  let connected = true;
  const publisher = new EventPublisher(events, { publish: (topic, payload, qos, retain) => (connected ? (sent.push({ topic, payload, qos, retain }), true) : false) }, 'site/events');
  publisher.start();
  const device = { id: METER, kind: 'meter', userId: 'u-1', vendor: 'SMA', name: null, model: 'HM', isOnline: false, lastUpdatedMs: null, locationId: null, hvacType: null, staticData: {}, state: null, driver: null, createdAtMs: 0 } as const;
  events.emit({ type: 'offline', device: { ...device }, atMs: Date.parse('2026-11-22T06:00:00Z') });
  connected = false;
  events.emit({ type: 'update', device: { ...device, isOnline: true }, atMs: Date.parse('2026-11-22T06:00:01Z') });
  publisher.stop();
  assert.equal(sent.length, 1);
  assert.equal(sent[0]!.topic, 'site/events/meter/offline');
  assert.equal(sent[0]!.retain, false);
  assert.deepEqual(JSON.parse(sent[0]!.payload), {
    event: 'offline', kind: 'meter', deviceId: METER, userId: 'u-1', timestamp: '2026-11-22T06:00:00Z',
    data: { id: METER, userId: 'u-1', isOnline: false, staticData: { vendor: 'SMA', model: 'HM' } },
  });
  assert.equal(publisher.published, 1);
  assert.equal(publisher.dropped, 1);
  assert.deepEqual(eventBody({ type: 'delete', device: { ...device }, atMs: 0 })['data'], { id: METER });
});

test('events carry the detail of every kind, a schedule read back as schedules.update, and a new price as price.update', () => {
  const events = new HubEvents();
  const sent: { topic: string; body: Record<string, any> }[] = [];
  const publisher = new EventPublisher(events, { publish: (topic, payload) => (sent.push({ topic, body: JSON.parse(payload) }), true) }, 'site/events');
  publisher.start();
  const at = Date.parse('2026-11-22T06:00:00Z');
  const base = { userId: 'u-1', name: null, locationId: null, hvacType: null, staticData: {}, driver: null, createdAtMs: 0, isOnline: true, lastUpdatedMs: at } as const;
  const car = { ...base, id: '5cab7f6d-0000-4000-8000-000000000001', kind: 'vehicle', vendor: 'TESLA', model: 'Model 3', state: { lastUpdated: '2026-11-22T06:00:00Z', stateOfCharge: 71, rangeKm: 333.6 } } as const;
  events.emit({ type: 'update', device: { ...car }, atMs: at });
  assert.equal(sent[0]!.topic, 'site/events/vehicle/update');
  assert.deepEqual(sent[0]!.body['data']['chargeState'], { lastUpdated: '2026-11-22T06:00:00Z', stateOfCharge: 71, estimatedRange: 334 });

  const schedules = [{ mode: 'HEAT', start: { day: 'MONDAY', time: '06:00' } }];
  const command = {
    id: 'c0000000-0000-4000-8000-000000000001', deviceId: '3a8f5d4b-0000-4000-8000-000000000001', deviceKind: 'hvac', userId: 'u-1', type: 'SET_SCHEDULE',
    state: 'EXECUTED', payload: { schedules }, createdAtMs: at, lastUpdatedMs: at, expiresAtMs: at + 60_000, failedReason: null, startedAtMs: at,
  } as const;
  events.emit({ type: 'command', command: { ...command } as never, atMs: at });
  assert.deepEqual(sent.slice(1).map((m) => m.topic), ['site/events/hvac/command', 'site/events/hvac/schedules.update']);
  assert.deepEqual(sent[2]!.body['data'], { id: command.deviceId, userId: 'u-1', timeZone: 'UTC', schedules });

  const tariff = { ...base, id: '6dbc8a7e-0000-4000-8000-000000000001', kind: 'tariff', vendor: 'TIBBER', model: null, state: { pricePerKwh: 0.31 } } as const;
  const prices = [{ startDate: '2026-11-22T06:00:00Z', totalPrice: 0.31 }];
  events.emit({ type: 'price.update', device: { ...tariff }, prices, atMs: at });
  assert.equal(sent[3]!.topic, 'site/events/tariff/price.update');
  assert.deepEqual(sent[3]!.body['data'], { id: tariff.id, userId: 'u-1', prices });
  publisher.stop();
});
