// The tariff ledger: prices as the source publishes them (from their quarter hour, 48 hours kept)
// and a grid meter's counter once an hour, from the devices' update events; consumption and cost
// worked out from them, with the household's grid meter chosen as decided (decisions §5).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestHub, json } from '../support/hub.ts';
import { HubEvents } from '../../src/runtime/events/hub-events.ts';
import { TariffLedger } from '../../src/runtime/tariff-ledger.ts';

const USER = 'household-7';
const TARIFF = '6dbc8a7e-0000-4000-8000-00000000aa01';
const GRID = '2f7e4c3a-0000-4000-8000-00000000bb01';
const SUBMETER = '2f7e4c3a-0000-4000-8000-00000000bb02';
const H = 3_600_000;
const T0 = Date.parse('2026-11-07T10:00:00Z');

function setup(t: import('node:test').TestContext, gridRole = true) {
  const hub = createTestHub();
  t.after(hub.close);
  hub.seed([
    { kind: 'tariff', id: TARIFF, userId: USER, staticData: { vendor: 'TIBBER', currency: 'EUR' } },
    { kind: 'meter', id: GRID, userId: USER, staticData: { vendor: 'SMA', model: 'Home Manager 2.0' }, driver: { type: 'sma', host: '192.0.2.10', ...(gridRole ? { role: 'grid' } : {}) } },
    { kind: 'meter', id: SUBMETER, userId: USER, staticData: { vendor: 'SMA', model: 'Energy Meter' } },
  ]);
  const events = new HubEvents();
  const ledger = new TariffLedger(hub.store, events);
  ledger.start();
  t.after(() => ledger.stop());
  const update = (id: string, state: Record<string, unknown>, atMs: number) => {
    const device = { ...hub.store.devices.get(id)!, state };
    events.emit({ type: 'update', device, atMs });
  };
  return { hub, update };
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
