// The demo's 48 hours of past (src/demo/history.ts), written by the live code paths: its 5-minute
// points keep the cars' charging from the household model (src/sim/household-model.ts), the house
// without the car, and balance as the model does; today's car energy is what the chargers drew.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../src/store/store.ts';
import { POINT_MS } from '../../src/store/household-series.ts';
import { seedDemo, DEMO_USER } from '../../src/demo/site.ts';
import { writeDemoHistory } from '../../src/demo/history.ts';
import { createDemoHousehold, demoPast } from '../../src/sim/demo-household.ts';
import { householdToday, localMidnight } from '../../src/runtime/household/household-today.ts';
import { silentLogger } from '../../src/log.ts';

const HOUR = 3_600_000;
const sum = (values: Record<string, number>) => Object.values(values).reduce((a, b) => a + b, 0);

test('the demo\'s past keeps the cars\' charging: points balance with the house without the car, and today\'s car energy is what the chargers drew', (t) => {
  // Late in the hub's local day: the evening charges (17:30 to 21:30 in Berlin) are today's
  // whatever the hub's time zone, as a 4-hour window always overlaps 23 hours of a day.
  const nowMs = localMidnight(Date.parse('2026-11-20T12:00:00Z')) + 23 * HOUR;
  const household = createDemoHousehold(() => nowMs);
  const past = demoPast(household, nowMs);
  const store = Store.open(':memory:');
  t.after(() => store.close());
  // Bound as npm start binds them (src/sim/demo-sims.ts; nothing is polled here): with them the
  // garden house's inverter is one of the household's, and the Smart Meter its grid meter.
  const at = { host: '127.0.0.1', port: 1 };
  seedDemo(store, nowMs, {
    froniusMeter: { type: 'fronius', ...at, unitId: 200, role: 'grid' },
    enphase: { type: 'enphase-envoy', ...at, token: 'demo', scheme: 'http' },
    car: { type: 'teslamate', carId: '1' },
  });
  writeDemoHistory(store, past, nowMs, silentLogger());

  const points = store.householdSeries.read(DEMO_USER, 0);
  assert.ok(points.length >= 570, `48 hours of points: ${points.length}`);
  assert.ok(points.some((p) => p.carKw === 11.04), 'a car charging at 16 A on three phases (11.04 kW) for a whole point');
  for (const p of points) {
    const inIt = past.filter((r) => r.atMs >= p.startMs && r.atMs < p.startMs + POINT_MS);
    const mean = (f: (r: (typeof past)[number]) => number) => inIt.reduce((s, r) => s + f(r), 0) / inIt.length / 1000;
    const at = new Date(p.startMs).toISOString();
    assert.ok(Math.abs(p.carKw! - mean((r) => sum(r.chargerW))) < 0.001, `${at}: the car is what the chargers drew: ${p.carKw}`);
    assert.ok(Math.abs(p.homeKw! - mean((r) => r.houseW)) < 0.003, `${at}: the house is the house alone, not the car: ${p.homeKw}`);
    assert.ok(Math.abs(p.pvKw! + p.gridKw! - p.batteryKw! - p.carKw! - p.homeKw!) < 0.003, `${at}: PV + grid = battery + car + house: ${JSON.stringify(p)}`);
  }

  // Today's car energy: the chargers' draw since midnight, minute by minute, up to the last closed point.
  const midnight = localMidnight(nowMs);
  const lastEnd = Math.floor(nowMs / POINT_MS) * POINT_MS;
  const drawn = past.filter((r) => r.atMs >= midnight && r.atMs < lastEnd).reduce((s, r) => s + sum(r.chargerW) / 1000 / 60, 0);
  const today = householdToday(store, DEMO_USER, nowMs);
  assert.ok(drawn > 10, `the cars charged today: ${drawn} kWh`);
  assert.ok(Math.abs(today.energy.carKwh! - drawn) <= 0.01, `today's car energy ${today.energy.carKwh} kWh is what the chargers drew, ${drawn} kWh`);
});
