// The household's 5-minute curves: flows worked out from the devices' live values (the grid meter's
// sign, the battery's, offline devices left out), means over each 5 minutes, 48 hours kept, and the
// points written in batches with the telemetry, read back after a restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestHub, type TestHub } from '../support/hub.ts';
import { HubEvents } from '../../src/runtime/events/hub-events.ts';
import { HouseholdSeries, SAMPLE_MS } from '../../src/runtime/household-series.ts';
import { Store } from '../../src/store/store.ts';
import { POINT_MS } from '../../src/store/household-series.ts';
import { silentLogger } from '../../src/log.ts';

const USER = 'household-9';
const PV = '1e6d3b2f-0000-4000-8000-0000000000a1';
const GRID = '2f7e4c3a-0000-4000-8000-0000000000b1';
const BATTERY = '0d5c2a1e-0000-4000-8000-0000000000c1';
const TARIFF = '6dbc8a7e-0000-4000-8000-0000000000d1';
const T0 = Date.parse('2026-11-07T10:00:00Z');

function setup(t: import('node:test').TestContext, hub: TestHub = createTestHub()) {
  t.after(hub.close);
  hub.seed([
    { kind: 'pvInverter', id: PV, userId: USER, staticData: { vendor: 'SMA', model: 'Sunny Tripower 8.0' } },
    { kind: 'meter', id: GRID, userId: USER, staticData: { vendor: 'SMA', model: 'Home Manager 2.0' }, driver: { type: 'sma', host: '192.0.2.10', role: 'grid' } },
    { kind: 'battery', id: BATTERY, userId: USER, staticData: { vendor: 'SMA', model: 'Sunny Island' } },
    { kind: 'tariff', id: TARIFF, userId: USER, staticData: { vendor: 'TIBBER', currency: 'EUR' } },
  ]);
  hub.clock.ms = T0;
  const events = new HubEvents();
  const series = new HouseholdSeries({ store: hub.store, events, clock: hub.clock, log: silentLogger() });
  series.start();
  t.after(() => series.stop());
  const update = (id: string, state: Record<string, unknown>, isOnline = true) => {
    events.emit({ type: isOnline ? 'update' : 'offline', device: { ...hub.store.devices.get(id)!, state, isOnline }, atMs: hub.clock.now() });
  };
  /** Samples every SAMPLE_MS for `ms`. */
  const run = (ms: number) => {
    for (let at = 0; at < ms; at += SAMPLE_MS) {
      series.sample();
      hub.clock.advance(SAMPLE_MS);
    }
  };
  return { hub, series, update, run };
}

test('flows: the house draws PV + grid − battery; the grid meter is positive importing; an offline device counts for nothing', (t) => {
  const { series, update } = setup(t);
  update(PV, { solarPower: 5 });
  update(GRID, { power: -1.5 });
  update(BATTERY, { chargeRate: 2, stateOfCharge: 61 });
  update(TARIFF, { pricePerKwh: 0.28 });
  assert.deepEqual(series.flowsOf(USER), { pvKw: 5, gridKw: -1.5, batteryKw: 2, batterySoc: 61, homeKw: 1.5, price: 0.28 });
  update(BATTERY, { chargeRate: 2, stateOfCharge: 61 }, false);
  assert.deepEqual(series.flowsOf(USER), { pvKw: 5, gridKw: -1.5, homeKw: 3.5, price: 0.28 });
});

test('a point is the mean over its 5 minutes, levels at its end; the 5 minutes under way are not a point yet', (t) => {
  const { hub, update, run } = setup(t);
  update(PV, { solarPower: 4 });
  update(GRID, { power: 1 });
  update(BATTERY, { chargeRate: 0, stateOfCharge: 50 });
  run(POINT_MS / 2);
  update(PV, { solarPower: 2 });
  update(BATTERY, { chargeRate: 0, stateOfCharge: 52 });
  run(POINT_MS / 2);
  assert.equal(hub.store.householdSeries.read(USER, 0).length, 0);
  run(SAMPLE_MS);
  assert.deepEqual(hub.store.householdSeries.read(USER, 0), [
    { startMs: T0, pvKw: 3, homeKw: 4, gridKw: 1, batteryKw: 0, batterySoc: 52, price: null },
  ]);
});

test('points wait in memory for the telemetry write, go in one batch, and a restart reads them back; 48 hours are kept', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-series-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'hub.db');
  const { hub, update, run } = setup(t, createTestHub({ dbPath: path }));
  hub.store.householdSeries.hold = true;
  update(PV, { solarPower: 3 });
  const changes = () => hub.store.db.prepare('SELECT total_changes() AS n').get() as { n: number };
  const before = changes().n;
  run(6 * POINT_MS);
  assert.equal(changes().n, before, 'nothing written while held');
  assert.equal(hub.store.householdSeries.pendingCount, 5);
  assert.equal(hub.store.householdSeries.persist(), 5);
  assert.equal(hub.store.householdSeries.pendingCount, 0);
  const reopened = Store.open(path);
  t.after(() => reopened.close());
  assert.deepEqual(reopened.householdSeries.read(USER, 0).map((p) => [p.startMs, p.pvKw]), [0, 1, 2, 3, 4].map((i) => [T0 + i * POINT_MS, 3]));

  // Two days later the first points are gone, from memory and from the table.
  hub.clock.advance(48 * 3_600_000);
  run(2 * POINT_MS);
  hub.store.householdSeries.persist();
  const kept = hub.store.householdSeries.read(USER, 0);
  assert.ok(kept[0]!.startMs >= hub.clock.now() - 48 * 3_600_000 - POINT_MS, 'memory keeps 48 hours');
  const oldest = hub.store.db.prepare('SELECT min(start_at) AS at FROM household_points').get() as { at: number };
  assert.equal(oldest.at, kept[0]!.startMs, 'the table keeps what memory keeps');
});
