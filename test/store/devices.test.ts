// The devices repository remembers list totals and the records get() read; these tests pin down that
// no write leaves either stale, whether this process or another one (seen through Store.sync()) wrote.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/store/store.ts';
import { demoRecords } from '../../src/demo/site.ts';
import { prepareImport } from '../../src/domain/import.ts';
import type { DeviceFilter, PageRequest } from '../../src/store/devices.ts';

const NOW = Date.parse('2026-11-07T05:31:56Z');
const FIRST_PAGE: PageRequest = { sortField: 'USER_ID', sortOrder: 'DESC', page: 0, size: 10 };

function openTwice(t: { after: (fn: () => void) => void }): [Store, Store] {
  const dir = mkdtempSync(join(tmpdir(), 'hub-devices-'));
  const hub = Store.open(join(dir, 'hub.db'));
  const cli = Store.open(join(dir, 'hub.db'));
  t.after(() => {
    hub.close();
    cli.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return [hub, cli];
}

function importInto(store: Store, records: unknown[]): void {
  const prepared = prepareImport(records, NOW, (id) => store.devices.get(id)?.kind);
  store.importDevices(prepared.devices, prepared.images, NOW);
}

const total = (store: Store, filter: DeviceFilter) => store.devices.list(filter, FIRST_PAGE).total;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('list totals follow imports and deletions, in this process and in another one', (t) => {
  const [hub, cli] = openTwice(t);
  const records = demoRecords(NOW) as { kind: string; id: string }[];
  const batteries = records.filter((r) => r.kind === 'battery');
  importInto(hub, batteries.slice(0, 1));
  assert.equal(total(hub, { kind: 'battery' }), 1);
  importInto(hub, batteries.slice(1));
  assert.equal(total(hub, { kind: 'battery' }), batteries.length);

  const removed = hub.devices.find('battery', batteries[0]!.id)!;
  cli.deleteDevice(cli.devices.get(removed.id)!, NOW);
  hub.sync(); // as the API does at the start of every request
  assert.equal(total(hub, { kind: 'battery' }), batteries.length - 1, 'a deletion by another process');
  hub.deleteDevice(hub.devices.get(batteries[1]!.id)!, NOW);
  assert.equal(total(hub, { kind: 'battery' }), batteries.length - 2, 'a deletion by this process');
});

test('totals filtered on state follow state writes; others stay remembered', (t) => {
  const [hub] = openTwice(t);
  importInto(hub, (demoRecords(NOW) as { kind: string }[]).filter((r) => r.kind === 'battery'));
  const all = total(hub, { kind: 'battery' });
  const online = total(hub, { kind: 'battery', isOnline: true });
  const device = hub.devices.list({ kind: 'battery', isOnline: true }, FIRST_PAGE).items[0]!;
  assert.equal(hub.devices.setOnline(device.id, false), true);
  assert.equal(total(hub, { kind: 'battery', isOnline: true }), online - 1);
  assert.equal(total(hub, { kind: 'battery', isOnline: false }), all - online + 1);
  hub.devices.updateState(device.id, { chargingState: 'CHARGING' }, true, NOW);
  assert.equal(total(hub, { kind: 'battery', isOnline: true }), online);
  assert.equal(total(hub, { kind: 'battery', chargingState: 'CHARGING' }),
    hub.devices.all().filter((d) => d.kind === 'battery' && d.state?.['chargingState'] === 'CHARGING').length);
  assert.equal(total(hub, { kind: 'battery' }), all);
});

test('get() hands out one frozen record until the device changes, here or in another process', async (t) => {
  const [hub, cli] = openTwice(t);
  const battery = (demoRecords(NOW) as { kind: string; id: string }[]).find((r) => r.kind === 'battery')!;
  importInto(hub, [battery]);
  const first = hub.devices.get(battery.id)!;
  assert.equal(hub.devices.get(battery.id), first, 'the same object while nothing changed');
  assert.ok(Object.isFrozen(first) && Object.isFrozen(first.staticData) && Object.isFrozen(first.state));
  assert.throws(() => { (first.state as Record<string, unknown>)['batteryLevel'] = 1; }, TypeError);

  hub.devices.updateState(battery.id, { batteryLevel: 42 }, true, NOW + 1000);
  const updated = hub.devices.get(battery.id)!;
  assert.notEqual(updated, first);
  assert.deepEqual(updated.state, { batteryLevel: 42 });

  assert.equal(hub.devices.setOnline(battery.id, false), true);
  assert.equal(hub.devices.get(battery.id)!.isOnline, false, 'a reachability change is a new record');

  cli.devices.updateState(battery.id, { batteryLevel: 7 }, true, NOW + 2000);
  await nextTurn(); // sync() looks once per turn of the event loop
  hub.sync();
  assert.deepEqual(hub.devices.get(battery.id)!.state, { batteryLevel: 7 }, 'another process wrote it');
  await nextTurn();
  hub.sync();
  const again = hub.devices.get(battery.id)!;
  assert.equal(hub.devices.get(battery.id), again, 'a sync with nothing new keeps the records');

  cli.deleteDevice(cli.devices.get(battery.id)!, NOW);
  hub.sync();
  assert.ok(hub.devices.get(battery.id), 'not looked at again within the same turn');
  await nextTurn();
  hub.sync();
  assert.equal(hub.devices.get(battery.id), undefined, 'deleted by another process');
});
