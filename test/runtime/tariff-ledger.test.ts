// The tariff ledger: prices as the source publishes them (from their quarter hour, 48 hours kept)
// and a grid meter's counter once an hour, from the devices' update events; consumption and cost
// worked out from them, with the household's grid meter chosen as decided (decisions §5); across
// steps of the clock (issue 33) no hour is booked multiplied and no price is kept from 1970.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestHub, json } from '../support/hub.ts';
import { HubEvents } from '../../src/runtime/events/hub-events.ts';
import { TariffLedger } from '../../src/runtime/household/tariff-ledger.ts';
import { ClockWatch } from '../../src/runtime/clock/clock-watch.ts';

const USER = 'household-7';
const TARIFF = '6dbc8a7e-0000-4000-8000-00000000aa01';
const GRID = '2f7e4c3a-0000-4000-8000-00000000bb01';
const SUBMETER = '2f7e4c3a-0000-4000-8000-00000000bb02';
const H = 3_600_000;
const T0 = Date.parse('2026-11-07T10:00:00Z');

function setup(t: import('node:test').TestContext, gridRole = true, floorMs?: number) {
  const hub = createTestHub();
  t.after(hub.close);
  hub.seed([
    { kind: 'tariff', id: TARIFF, userId: USER, staticData: { vendor: 'TIBBER', currency: 'EUR' } },
    { kind: 'meter', id: GRID, userId: USER, staticData: { vendor: 'SMA', model: 'Home Manager 2.0' }, driver: { type: 'sma', host: '192.0.2.10', ...(gridRole ? { role: 'grid' } : {}) } },
    { kind: 'meter', id: SUBMETER, userId: USER, staticData: { vendor: 'SMA', model: 'Energy Meter' } },
  ]);
  const events = new HubEvents();
  // The API's clock is the wall clock; the monotonic one runs on only with `pass()`, never with a step.
  let mono = 0;
  const clock = { now: () => hub.clock.now(), monotonicMs: () => mono };
  const watch = floorMs === undefined ? undefined : new ClockWatch(clock, { floorMs });
  const ledger = new TariffLedger(hub.store, events, watch, hub.clock);
  ledger.start();
  t.after(() => ledger.stop());
  const update = (id: string, state: Record<string, unknown>, atMs: number) => {
    const device = { ...hub.store.devices.get(id)!, state };
    events.emit({ type: 'update', device, atMs });
  };
  /** Time passes to `atMs` on both clocks. */
  const pass = (atMs: number) => {
    mono += atMs - hub.clock.ms;
    hub.clock.ms = atMs;
    watch?.check();
  };
  /** The wall clock alone is set to `atMs`. */
  const step = (atMs: number) => {
    hub.clock.ms = atMs;
    watch?.check();
  };
  return { hub, events, update, pass, step };
}

test('prices: each new price is in force from the quarter hour it came in; a repeat is not written; 48 hours are kept', async (t) => {
  const { hub, update } = setup(t);
  update(TARIFF, { pricePerKwh: 0.3 }, T0 + 20_000);
  update(TARIFF, { pricePerKwh: 0.3 }, T0 + 60_000);
  update(TARIFF, { pricePerKwh: 0.25 }, T0 + 15 * 60_000 + 3_000);
  hub.clock.ms = T0 + H;
  assert.deepEqual(await json(await hub.request(`/tariffs/${TARIFF}/prices`)), [
    { startDate: '2026-11-07T10:00:00Z', totalPrice: 0.3 },
    { startDate: '2026-11-07T10:15:00Z', totalPrice: 0.25 },
  ]);
  // Two days later the first is gone; the one in force at the window's start stays.
  update(TARIFF, { pricePerKwh: 0.4 }, T0 + 49 * H);
  hub.clock.ms = T0 + 49 * H;
  assert.deepEqual(await json(await hub.request(`/users/${USER}/tariffs/${TARIFF}/prices`)), [
    { startDate: '2026-11-07T10:15:00Z', totalPrice: 0.25 },
    { startDate: '2026-11-09T11:00:00Z', totalPrice: 0.4 },
  ]);
});

test('consumption: the grid meter\'s import per hour, newest first, at the mean price of its quarters; a swapped meter\'s hour is left out', async (t) => {
  const { hub, update } = setup(t);
  update(TARIFF, { pricePerKwh: 0.2 }, T0);
  update(TARIFF, { pricePerKwh: 0.4 }, T0 + 30 * 60_000);
  // Counters: the first reading in each hour stands for its start; later readings in the hour are not written.
  update(GRID, { energyImported: 1000, power: 1.2 }, T0 + 5_000);
  update(GRID, { energyImported: 1000.6 }, T0 + 40 * 60_000);
  update(GRID, { energyImported: 1002, power: 2 }, T0 + H + 2_000);
  update(GRID, { energyImported: 1003.5 }, T0 + 2 * H + 1_000);
  update(GRID, { energyImported: 3.5 }, T0 + 3 * H + 1_000); // a new meter: its counter starts again
  update(SUBMETER, { energyImported: 50 }, T0 + 5_000);
  assert.equal(hub.store.tariffLedger.hourCount(GRID), 4);
  const page = await json(await hub.request(`/tariffs/${TARIFF}/consumption`));
  assert.deepEqual(page, {
    content: [
      { startDate: '2026-11-07T11:00:00Z', endDate: '2026-11-07T12:00:00Z', consumption: 1.5, cost: 0.6 },
      { startDate: '2026-11-07T10:00:00Z', endDate: '2026-11-07T11:00:00Z', consumption: 2, cost: 0.6 },
    ],
    totalElements: 3,
    totalPages: 1,
  });
  const second = await json(await hub.request(`/users/${USER}/tariffs/${TARIFF}/consumption?size=1&page=1`));
  assert.deepEqual(second.content.map((h: { consumption: number }) => h.consumption), [1.5]);
});

test('consumption: without a meter marked role grid, two meters leave no grid meter: an empty page', async (t) => {
  const { hub, update } = setup(t, false);
  update(GRID, { energyImported: 1000 }, T0);
  update(GRID, { energyImported: 1001 }, T0 + H);
  assert.deepEqual(await json(await hub.request(`/tariffs/${TARIFF}/consumption`)), { content: [], totalElements: 0, totalPages: 0 });
});

test('a clock set back 3 hours: the hour that spans the step is left out, not booked with 4 hours of energy', async (t) => {
  const { hub, update, pass, step } = setup(t, true, 0);
  update(TARIFF, { pricePerKwh: 0.2 }, T0);
  // A grid meter at a constant 1 kW: its counter grows 1 kWh an hour.
  for (let h = 0; h <= 3; h++) {
    pass(T0 + h * H + 1_000);
    update(GRID, { energyImported: 1000 + h }, T0 + h * H + 1_000);
  }
  pass(T0 + 3 * H + 30 * 60_000);
  step(T0 + 30 * 60_000); // a bad time source: back 3 hours
  for (let h = 1; h <= 5; h++) { // the same hours come again, read 3 hours later
    pass(T0 + h * H + 1_000);
    update(GRID, { energyImported: 1003.5 + h }, T0 + h * H + 1_000);
  }
  const page = await json(await hub.request(`/tariffs/${TARIFF}/consumption`));
  const hours = page.content.map((h: { startDate: string; consumption: number; cost: number }) => [h.startDate.slice(11, 16), h.consumption, h.cost]);
  assert.deepEqual(hours, [['14:00', 1, 0.2], ['12:00', 1, 0.2], ['11:00', 1, 0.2], ['10:00', 1, 0.2]],
    'every hour booked is 1 kWh; the hour ending at the first counter after the step (13:00 to 14:00) is left out');
});

test('a clock not set yet (1970) records no price; once it is set, the price in force is recorded from then and /prices shows no 1970 price', async (t) => {
  const right = Date.parse('2026-11-20T08:07:00Z');
  const { hub, update, step } = setup(t, true, right - H);
  hub.clock.ms = 2_000;
  update(TARIFF, { pricePerKwh: 0.3 }, 2_000);
  update(GRID, { energyImported: 1000 }, 2_000);
  assert.equal(hub.store.tariffLedger.priceAt(TARIFF, Number.MAX_SAFE_INTEGER), undefined);
  assert.equal(hub.store.tariffLedger.hourCount(GRID), 0, 'no counter dated 1970');
  hub.store.devices.updateState(TARIFF, { pricePerKwh: 0.3 }, true, 2_000);
  step(right);
  assert.deepEqual(await json(await hub.request(`/tariffs/${TARIFF}/prices`)), [{ startDate: '2026-11-20T08:00:00Z', totalPrice: 0.3 }]);
});

/** A curve as the tariff-topic driver keeps it (its telemetry `forecast`): hourly slots from `fromMs`. */
function curve(fromMs: number, prices: number[]): { startMs: number; endMs: number; pricePerKwh: number }[] {
  return prices.map((pricePerKwh, i) => ({ startMs: fromMs + i * H, endMs: fromMs + (i + 1) * H, pricePerKwh }));
}

test('forecast: the prices published for later are /prices ahead, each from its start; the one in force stays the current price\'s', async (t) => {
  const { hub, events, update } = setup(t);
  const told: number[][] = [];
  events.on((e) => {
    if (e.type === 'price.update') told.push(e.prices.map((p) => p.totalPrice));
  });
  const now = T0 + 20 * 60_000; // 10:20
  hub.clock.ms = now;
  // evcc's curve begins at today's midnight: slots already begun are the past, not rewritten.
  update(TARIFF, { pricePerKwh: 0.3, forecast: curve(T0 - 2 * H, [0.5, 0.5, 0.31, 0.22, 0.27, 0.35]) }, now);
  assert.deepEqual(await json(await hub.request(`/tariffs/${TARIFF}/prices`)), [
    { startDate: '2026-11-07T10:15:00Z', totalPrice: 0.3 },
    { startDate: '2026-11-07T11:00:00Z', totalPrice: 0.22 },
    { startDate: '2026-11-07T12:00:00Z', totalPrice: 0.27 },
    { startDate: '2026-11-07T13:00:00Z', totalPrice: 0.35 },
  ]);
  assert.equal(told.length, 1, 'one price.update for the price and the curve together');
  // The same again (evcc republishes its curve with every round of values): nothing written, nothing told.
  update(TARIFF, { pricePerKwh: 0.3, forecast: curve(T0 - 2 * H, [0.5, 0.5, 0.31, 0.22, 0.27, 0.35]) }, now + 30_000);
  assert.equal(told.length, 1);
  // 11:00: the source's price is the slot's: no second row for it (compared with the price in force, not the latest row).
  hub.clock.ms = T0 + H + 5_000;
  update(TARIFF, { pricePerKwh: 0.22, forecast: curve(T0 - 2 * H, [0.5, 0.5, 0.31, 0.22, 0.27, 0.35]) }, T0 + H + 5_000);
  assert.equal(told.length, 1);
  assert.equal(hub.store.tariffLedger.prices(TARIFF, 0).length, 4);
});

test('forecast: a later curve replaces the prices ahead (a slot no longer published disappears); an empty curve leaves none ahead; no curve leaves them', async (t) => {
  const { hub, events, update } = setup(t);
  let told = 0;
  events.on((e) => {
    if (e.type === 'price.update') told++;
  });
  hub.clock.ms = T0 + 60_000;
  update(TARIFF, { pricePerKwh: 0.3, forecast: curve(T0, [0.3, 0.2, 0.25, 0.4]) }, T0 + 60_000);
  update(TARIFF, { pricePerKwh: 0.3, forecast: curve(T0, [0.3, 0.21, 0.25]) }, T0 + 120_000);
  assert.equal(told, 2);
  const ahead = async () => (await json(await hub.request(`/tariffs/${TARIFF}/prices`))).map((p: { startDate: string; totalPrice: number }) => [p.startDate.slice(11, 16), p.totalPrice]);
  assert.deepEqual(await ahead(), [['10:00', 0.3], ['11:00', 0.21], ['12:00', 0.25]]);
  update(TARIFF, { pricePerKwh: 0.3 }, T0 + 180_000);
  assert.deepEqual(await ahead(), [['10:00', 0.3], ['11:00', 0.21], ['12:00', 0.25]], 'a feed without a curve keeps the prices ahead');
  update(TARIFF, { pricePerKwh: 0.3, forecast: [] }, T0 + 240_000);
  assert.deepEqual(await ahead(), [['10:00', 0.3]]);
  assert.equal(told, 3);
});

test('forecast: slots that are not prices are left out (the curve is untrusted telemetry), and none further than 4 days ahead', async (t) => {
  const { hub, update } = setup(t);
  hub.clock.ms = T0;
  const good = { startMs: T0 + H, endMs: T0 + 2 * H, pricePerKwh: 0.2 };
  const forecast = [
    null, 'slot', 7, { startMs: T0 + 2 * H }, { startMs: 'x', endMs: T0, pricePerKwh: 0.1 },
    { startMs: T0 + 2 * H, endMs: T0 + 2 * H, pricePerKwh: 0.1 }, // ends as it starts
    { startMs: T0 + 2.5 * H + 0.5, endMs: T0 + 3 * H, pricePerKwh: 0.1 }, // not a millisecond
    { startMs: T0 + 3 * H, endMs: T0 + 4 * H, pricePerKwh: Number.NaN },
    { startMs: T0 + 5 * 24 * H, endMs: T0 + 5 * 24 * H + H, pricePerKwh: 0.1 },
    good, { ...good, pricePerKwh: 0.9 }, // the same start twice: the first stands
  ];
  update(TARIFF, { pricePerKwh: 0.3, forecast }, T0);
  assert.deepEqual(hub.store.tariffLedger.ahead(TARIFF, T0), [{ startMs: T0 + H, totalPrice: 0.2 }]);
});
