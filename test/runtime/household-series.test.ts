// The household's 5-minute curves: flows worked out from the devices' live values (the grid meter's
// sign, the battery's, offline devices left out), means over each 5 minutes, 48 hours kept, and the
// points written in batches with the telemetry, read back after a restart; across steps of the clock
// (issue 33) no point is lost or misdated, and nothing is pruned by a wrong clock. A point keeps the
// car's power and balances: PV + grid = battery + car + house (issue 30).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestHub, SteppingClock, type TestHub } from '../support/hub.ts';
import { ClockWatch } from '../../src/runtime/clock/clock-watch.ts';
import { HubEvents } from '../../src/runtime/events/hub-events.ts';
import { HouseholdSeries, SAMPLE_MS } from '../../src/runtime/household/household-series.ts';
import { Store } from '../../src/store/store.ts';
import { POINT_MS } from '../../src/store/household-series.ts';
import { silentLogger } from '../../src/log.ts';

const USER = 'household-9';
const PV = '1e6d3b2f-0000-4000-8000-0000000000a1';
const GRID = '2f7e4c3a-0000-4000-8000-0000000000b1';
const BATTERY = '0d5c2a1e-0000-4000-8000-0000000000c1';
const TARIFF = '6dbc8a7e-0000-4000-8000-0000000000d1';
const CHARGER = '4b9a6e5c-0000-4000-8000-0000000000e1';
const T0 = Date.parse('2026-11-07T10:00:00Z');

function setup(t: import('node:test').TestContext, hub: TestHub = createTestHub(), clockWatch?: ClockWatch) {
  t.after(hub.close);
  hub.seed([
    { kind: 'pvInverter', id: PV, userId: USER, staticData: { vendor: 'SMA', model: 'Sunny Tripower 8.0' } },
    { kind: 'meter', id: GRID, userId: USER, staticData: { vendor: 'SMA', model: 'Home Manager 2.0' }, driver: { type: 'sma', host: '192.0.2.10', role: 'grid' } },
    { kind: 'battery', id: BATTERY, userId: USER, staticData: { vendor: 'SMA', model: 'Sunny Island' } },
    { kind: 'tariff', id: TARIFF, userId: USER, staticData: { vendor: 'TIBBER', currency: 'EUR' } },
    { kind: 'charger', id: CHARGER, userId: USER, staticData: { vendor: 'GO_E', model: 'Gemini' } },
  ]);
  if (!clockWatch) hub.clock.ms = T0;
  const events = new HubEvents();
  const series = new HouseholdSeries({ store: hub.store, events, clock: hub.clock, log: silentLogger(), clockWatch });
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
    { startMs: T0, pvKw: 3, homeKw: 4, gridKw: 1, batteryKw: 0, carKw: null, batterySoc: 52, price: null },
  ]);
});

test('a point keeps the car\'s mean power and balances as each sample does: PV + grid = battery + car + house, a charger offline for part of it counting 0', (t) => {
  const { hub, update, run } = setup(t);
  update(PV, { solarPower: 6 });
  update(GRID, { power: 2 });
  update(BATTERY, { chargeRate: 1, stateOfCharge: 40 });
  update(CHARGER, { chargeRate: 4, chargingState: 'CHARGING' });
  run(POINT_MS / 2);
  // The charger stops answering: for the rest of the 5 minutes it counts for nothing, in the house's
  // figure as in the car's (a mean over its answers alone, 4 kW, would leave 2 kW nowhere).
  update(CHARGER, { chargeRate: 4, chargingState: 'CHARGING' }, false);
  run(POINT_MS / 2 + SAMPLE_MS);
  const [point] = hub.store.householdSeries.read(USER, 0);
  assert.deepEqual(point, { startMs: T0, pvKw: 6, homeKw: 5, gridKw: 2, batteryKw: 1, carKw: 2, batterySoc: 40, price: null });
  assert.equal(point!.pvKw! + point!.gridKw!, point!.batteryKw! + point!.carKw! + point!.homeKw!);
});

test('points wait in memory for the telemetry write, go in one batch, and a restart reads them back; 48 hours are kept', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-series-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'hub.db');
  const { hub, update, run } = setup(t, createTestHub({ dbPath: path }));
  hub.store.householdSeries.hold = true;
  update(PV, { solarPower: 3 });
  update(CHARGER, { chargeRate: 7.2 });
  const changes = () => hub.store.db.prepare('SELECT total_changes() AS n').get() as { n: number };
  const before = changes().n;
  run(6 * POINT_MS);
  assert.equal(changes().n, before, 'nothing written while held');
  assert.equal(hub.store.householdSeries.pendingCount, 5);
  assert.equal(hub.store.householdSeries.persist(), 5);
  assert.equal(hub.store.householdSeries.pendingCount, 0);
  const reopened = Store.open(path);
  t.after(() => reopened.close());
  assert.deepEqual(reopened.householdSeries.read(USER, 0).map((p) => [p.startMs, p.pvKw, p.carKw]), [0, 1, 2, 3, 4].map((i) => [T0 + i * POINT_MS, 3, 7.2]));

  // Two days later the first points are gone, from memory and from the table.
  hub.clock.advance(48 * 3_600_000);
  run(2 * POINT_MS);
  hub.store.householdSeries.persist();
  const kept = hub.store.householdSeries.read(USER, 0);
  assert.ok(kept[0]!.startMs >= hub.clock.now() - 48 * 3_600_000 - POINT_MS, 'memory keeps 48 hours');
  const oldest = hub.store.db.prepare('SELECT min(start_at) AS at FROM household_points').get() as { at: number };
  assert.equal(oldest.at, kept[0]!.startMs, 'the table keeps what memory keeps');
});

/** A hub whose clock steps (SteppingClock) and the ClockWatch that notices it, from `floorMs`. */
function steppingHub(t: import('node:test').TestContext, startMs: number, floorMs = 0) {
  const clock = new SteppingClock(startMs);
  const hub = createTestHub();
  (hub as { clock: TestHub['clock'] }).clock = clock;
  const watch = new ClockWatch(clock, { floorMs });
  const parts = setup(t, hub, watch);
  const run = (ms: number) => {
    for (let at = 0; at < ms; at += SAMPLE_MS) {
      parts.series.sample();
      clock.advance(SAMPLE_MS);
      watch.check();
    }
  };
  return { ...parts, clock, watch, run };
}

test('a clock set back: the curve goes on from the new time (a later point does not keep new ones out), and nothing is pruned', (t) => {
  const { hub, update, run, clock, watch } = steppingHub(t, T0);
  update(PV, { solarPower: 2 });
  run(3 * POINT_MS);
  assert.equal(hub.store.householdSeries.read(USER, 0).length, 2);
  clock.step(T0 - 2 * 3_600_000); // a bad time source sets the clock back 2 hours
  watch.check();
  update(PV, { solarPower: 4 });
  run(3 * POINT_MS);
  const points = hub.store.householdSeries.read(USER, 0).map((p) => [new Date(p.startMs).toISOString().slice(11, 16), p.pvKw]);
  assert.deepEqual(points, [['08:00', 4], ['08:05', 4], ['10:00', 2], ['10:05', 2], ['10:10', 2]],
    'the 5 minutes under way ended at the step; points after it are recorded, in order of time');
});

test('samples taken while the clock is not set wait undated and become points dated by the monotonic clock once it is', (t) => {
  const right = Date.parse('2026-11-20T08:00:00Z');
  const { hub, update, run, clock, watch } = steppingHub(t, 2_000, right - 3_600_000); // booted in 1970
  update(PV, { solarPower: 3 });
  run(10 * 60_000);
  assert.deepEqual(hub.store.householdSeries.read(USER, 0), [], 'no point dated 1970');
  clock.step(right); // NTP sets the clock: the 10 minutes sampled are the 10 minutes before now
  watch.check();
  run(SAMPLE_MS);
  const points = hub.store.householdSeries.read(USER, 0).map((p) => [new Date(p.startMs).toISOString(), p.pvKw]);
  assert.deepEqual(points, [['2026-11-20T07:50:00.000Z', 3], ['2026-11-20T07:55:00.000Z', 3]]);
});

test('a clock stepped forward by days prunes the points older than 48 hours but never the newest', (t) => {
  const { hub, update, run, clock, watch } = steppingHub(t, T0);
  update(PV, { solarPower: 2 });
  run(2 * POINT_MS);
  clock.step(T0 + 3 * 24 * 3_600_000);
  watch.check();
  hub.store.householdSeries.add(USER, { startMs: T0 - POINT_MS, pvKw: 1, homeKw: null, gridKw: null, batteryKw: null, carKw: null, batterySoc: null, price: null }, clock.now() - 48 * 3_600_000);
  assert.deepEqual(hub.store.householdSeries.read(USER, 0).map((p) => p.startMs), [T0 + POINT_MS], 'the newest point stays');
});
