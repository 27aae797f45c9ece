// Telemetry held in memory (devices.ts): what readers see is the latest, what is on disk is written on
// the interval, at once for what lists filter on (reachability, charging state) and a device's first
// state, and when a device goes offline or comes back. Another connection to the same file (the hub
// CLI, or the hub after a power cut) sees exactly what was written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/store/store.ts';
import { demoRecords } from '../../src/demo/site.ts';
import { prepareImport } from '../../src/domain/import.ts';
import type { PageRequest } from '../../src/store/devices.ts';

const NOW = Date.parse('2026-11-07T05:31:56Z');

function setup(t: { after: (fn: () => void) => void }) {
  const dir = mkdtempSync(join(tmpdir(), 'hub-live-'));
  const hub = Store.open(join(dir, 'hub.db'));
  const disk = Store.open(join(dir, 'hub.db'));
  t.after(() => {
    hub.close();
    disk.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const batteries = (demoRecords(NOW) as { kind: string }[]).filter((r) => r.kind === 'battery');
  const prepared = prepareImport(batteries, NOW, () => undefined);
  hub.importDevices(prepared.devices, prepared.images, NOW);
  hub.devices.holdTelemetry = true;
  const ids = prepared.devices.map((d) => d.id);
  /** What is on disk, read past every cache of this process. */
  const onDisk = (id: string) => {
    disk.devices.forgetAll();
    return disk.devices.get(id)!;
  };
  return { hub, ids, onDisk };
}

const stateOf = (soc: number, chargingState = 'DISCHARGING') => ({ stateOfCharge: soc, chargingState });

test('live telemetry: readers see every new value, the disk only what is written; persistLive writes it all in one go', (t) => {
  const { hub, ids, onDisk } = setup(t);
  const [id] = ids as [string];
  const before = onDisk(id);
  hub.devices.updateState(id, { ...before.state, ...stateOf(41, String(before.state!['chargingState'])) }, before.isOnline, NOW + 1000);
  hub.devices.updateState(id, { ...before.state, ...stateOf(42, String(before.state!['chargingState'])) }, before.isOnline, NOW + 2000);
  assert.equal(hub.devices.get(id)!.state!['stateOfCharge'], 42);
  assert.equal(hub.devices.get(id)!.lastUpdatedMs, NOW + 2000);
  assert.deepEqual(onDisk(id).state, before.state, 'nothing written yet');
  assert.equal(hub.devices.liveCount, 1);

  assert.equal(hub.devices.persistLive(), 1);
  assert.equal(onDisk(id).state!['stateOfCharge'], 42);
  assert.equal(onDisk(id).lastUpdatedMs, NOW + 2000, 'with its own stamp');
  assert.equal(hub.devices.liveCount, 0);
  assert.equal(hub.devices.persistLive(), 0, 'nothing left: nothing written');
});

test('live telemetry: reachability and charging state are written at once, with the latest values', (t) => {
  const { hub, ids, onDisk } = setup(t);
  const [id] = ids as [string];
  const before = onDisk(id);
  const charging = String(before.state!['chargingState']);
  hub.devices.updateState(id, { ...before.state, ...stateOf(50, charging) }, true, NOW + 1000);
  hub.devices.setOnline(id, false);
  assert.equal(onDisk(id).isOnline, false);
  assert.equal(onDisk(id).state!['stateOfCharge'], 50, 'going offline writes the values held');

  const other = charging === 'CHARGING' ? 'DISCHARGING' : 'CHARGING';
  hub.devices.updateState(id, { ...before.state, ...stateOf(51, other) }, true, NOW + 2000);
  assert.equal(onDisk(id).state!['chargingState'], other, 'lists filter on it: written at once');
  assert.equal(onDisk(id).isOnline, true);
});

test('live telemetry: lists filter and sort on the live lastUpdated and state, totals included', (t) => {
  const { hub, ids } = setup(t);
  const page: PageRequest = { sortField: 'LAST_UPDATED', sortOrder: 'DESC', page: 0, size: 50 };
  const late = ids[ids.length - 1]!;
  const device = hub.devices.get(late)!;
  hub.devices.updateState(late, device.state, device.isOnline, NOW + 3_600_000);
  const sorted = hub.devices.list({ kind: 'battery' }, page);
  assert.equal(sorted.items[0]!.id, late, 'the freshest first');
  const recent = hub.devices.list({ kind: 'battery', lastUpdatedFromMs: NOW + 60_000 }, page);
  assert.deepEqual(recent.items.map((d) => d.id), [late]);
  assert.equal(recent.total, 1);
  hub.devices.persistLive();
  assert.deepEqual(hub.devices.list({ kind: 'battery', lastUpdatedFromMs: NOW + 60_000 }, page).items.map((d) => d.id), [late], 'the same once written');
});

test('live telemetry: a deleted device\'s live values are dropped, never written back', (t) => {
  const { hub, ids, onDisk } = setup(t);
  const [id] = ids as [string];
  const device = hub.devices.get(id)!;
  hub.devices.updateState(id, device.state, device.isOnline, NOW + 5000);
  hub.deleteDevice(hub.devices.get(id)!, NOW + 6000);
  assert.equal(hub.devices.persistLive(), 0);
  assert.equal(onDisk(id), undefined);
  assert.equal(hub.devices.updateState(id, device.state, device.isOnline, NOW + 7000), false);
});
