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
    data: { id: METER, userId: 'u-1', vendor: 'SMA', model: 'HM', isOnline: false },
  });
  assert.equal(publisher.published, 1);
  assert.equal(publisher.dropped, 1);
  assert.deepEqual(eventBody({ type: 'delete', device: { ...device }, atMs: 0 })['data'], { id: METER });
});
