// The demo household of `npm start`, every simulator running (Modbus, HTTP, MQTT, OCPP) on one
// household, seen through the hub's API: its flows balance, the house is what the house draws, the
// grid meter is the Smart Meter (role: grid), and it has a past (hourly consumption with cost, hour
// prices, the 5-minute curves), its hot-water tank has a climateState, and its offline devices say why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDemoHub } from '../support/demo-hub.ts';
import { DEMO_IDS, DEMO_USER } from '../../src/demo/site.ts';
import type { HouseholdReading } from '../../src/sim/household-model.ts';
import { dayAheadCurve } from '../../src/sim/demo-household.ts';

const TANK = '3a8f5d4b-ad7e-4cab-8e6b-4d5e6f7a8b02';
const kw = (values: Record<string, number>) => Object.values(values).reduce((a, b) => a + b, 0) / 1000;

interface Page {
  flows: Record<string, number>;
  devices: { kind: string; reason?: { code: string; text?: string; since?: string }; detail: { id: string; isOnline: boolean; staticData: { name: string }; climateState?: Record<string, unknown> } }[];
}

test('demo: PV + grid = house + battery + car through the API, the house without the car, the Smart Meter is the grid meter, and the demo has a past', { timeout: 120_000 }, async (t) => {
  // The household's clock is held still, so every device is read at one instant; stepped once all are connected.
  let simNow = Date.now();
  const startedAt = simNow;
  const started = await startDemoHub(t, {}, { simulators: true, now: () => simNow });
  if (!started) return t.skip('aedes (a development dependency) is not installed');
  const { hub, household } = started;
  const home = async (): Promise<Page> => {
    const response = await fetch(`${hub.daemon.url}/home/devices?user=${DEMO_USER}`, { headers: { 'x-api-key': 'mqtt-hub-test-key-0123456789abcdef' } });
    assert.equal(response.status, 200);
    return (await response.json()) as Page;
  };
  simNow += 1000;
  const r: HouseholdReading = household.read();
  const near = (a: number | undefined, b: number, within = 0.005) => a !== undefined && Math.abs(a - b) <= within;
  const shows = (flows: Record<string, number>) => near(flows['gridKw'], r.gridW / 1000) && near(flows['pvKw'], kw(r.pvW))
    && near(flows['batteryKw'], kw(r.batteryW)) && near(flows['carKw'], kw(r.chargerW));
  // Waits, update by update, until the API shows the household's instant.
  const deadline = performance.now() + 30_000;
  let page = await home();
  while (!shows(page.flows)) {
    assert.ok(performance.now() < deadline, `the API shows ${JSON.stringify(page.flows)}, the household ${JSON.stringify(r)}`);
    await hub.event((e) => e.type === 'update', 10_000);
    page = await home();
  }
  const f = page.flows as Record<'pvKw' | 'gridKw' | 'homeKw' | 'batteryKw' | 'carKw', number>;
  assert.ok(near(f.pvKw + f.gridKw, f.homeKw + f.batteryKw + f.carKw, 0.01), `PV + grid = house + battery + car: ${JSON.stringify(f)}`);
  assert.ok(near(f.homeKw, r.houseW / 1000, 0.01), `the house is what the house draws (${r.houseW} W), not the car: ${JSON.stringify(f)}`);
  assert.ok(near(f.carKw, 11.04 + 10.833, 0.01), `the car is both chargers' power, the Tesla's own rate not added again: ${f.carKw}`);
  assert.equal(hub.device(DEMO_IDS.gridMeter)?.driver?.['role'], 'grid', 'the Smart Meter\'s binding says role: grid');

  // The past: hourly consumption with its cost, the hour prices, the 5-minute curves.
  const consumption = (await (await hub.api(`/tariffs/${DEMO_IDS.tariff}/consumption?size=48`)).json()) as { totalElements: number; content: { consumption: number; cost?: number }[] };
  assert.ok(consumption.totalElements >= 46, `hours of the past: ${consumption.totalElements}`);
  assert.ok(consumption.content.every((hour) => typeof hour.cost === 'number'), 'every hour has its cost');
  assert.ok(consumption.content.some((hour) => hour.consumption > 5 && hour.cost! > 1), 'an evening with the car charging costs');
  const prices = (await (await hub.api(`/tariffs/${DEMO_IDS.tariff}/prices`)).json()) as { startDate: string; totalPrice: number }[];
  assert.ok(prices.length >= 24, `a price per hour: ${prices.length}`);
  assert.ok(new Set(prices.map((p) => p.totalPrice)).size >= 8, 'prices move over the day');
  assert.ok(prices.slice(1).every((p) => p.startDate.endsWith(':00:00Z')), 'each starts on the hour');
  // Ahead: the day-ahead curve the simulated evcc publishes (today's, and tomorrow's from 13:00), and
  // the household page's cheapest hours are the 3 cheapest of them.
  const curve = dayAheadCurve(startedAt).filter((slot) => slot.startMs > Date.now());
  let ahead = prices.filter((p) => Date.parse(p.startDate) > Date.now());
  while (ahead.length < curve.length) {
    const told = await hub.event((e) => e.type === 'price.update' && e.device.id === DEMO_IDS.tariff, 10_000);
    ahead = told.type === 'price.update' ? told.prices.filter((p) => Date.parse(p.startDate) > Date.now()) : [];
  }
  assert.deepEqual(ahead, curve.map((slot) => ({ startDate: new Date(slot.startMs).toISOString().replace('.000Z', 'Z'), totalPrice: slot.price })));
  const today = (await (await fetch(`${hub.daemon.url}/home/today?user=${DEMO_USER}`, { headers: { 'x-api-key': 'mqtt-hub-test-key-0123456789abcdef' } })).json()) as { tariff: { cheapest: unknown[] } };
  const cheapest = [...ahead].sort((a, b) => a.totalPrice - b.totalPrice).slice(0, 3).sort((a, b) => Date.parse(a.startDate) - Date.parse(b.startDate));
  assert.deepEqual(today.tariff.cheapest, cheapest);
  assert.ok(cheapest.length > 0 || curve.length === 0, 'the page names the cheapest hours ahead');
  const series = (await (await hub.api(`/users/${DEMO_USER}/household/series`)).json()) as { points: Record<string, number>[] };
  assert.ok(series.points.length >= 500, `5-minute points of 48 hours: ${series.points.length}`);
  assert.ok(series.points.some((p) => p['carPower']! > 11), 'the evening charges are in the points\' car power');
  const commands = (await (await hub.api(`/users/${DEMO_USER}/vehicles/5cab7f6d-cf9a-4ecd-8a8d-6f7a8b9cad01/commands?state=EXECUTED`)).json()) as { type: string }[];
  assert.ok(commands.some((c) => c.type === 'CHARGING_START') && commands.some((c) => c.type === 'CHARGING_STOP'), 'the evening charges were started and stopped');

  // ESPAltherma publishes every 30 s: the tank's temperature (R5T) and the DHW setpoint.
  let tank = page.devices.find((d) => d.detail.id === TANK)!;
  while (!tank.detail.climateState) {
    await hub.event((e) => e.type === 'update' && e.device.id === TANK, 40_000);
    tank = (await home()).devices.find((d) => d.detail.id === TANK)!;
  }
  assert.equal(tank.detail.climateState['temperatureCurrent'], 48.3);
  assert.deepEqual(tank.detail.climateState['temperatureTargets'], [{ mode: 'HEAT', temperature: 50 }]);

  const offline = (await home()).devices.filter((d) => !d.detail.isOnline);
  assert.deepEqual(offline.map((d) => d.detail.staticData.name).sort(), ['Commuter', 'Living room']);
  for (const device of offline) assert.ok(device.reason?.text && device.reason.text.length > 20, `${device.detail.staticData.name} says why: ${JSON.stringify(device.reason)}`);
  assert.match(offline.find((d) => d.detail.staticData.name === 'Commuter')!.reason!.text!, /Volkswagen's cloud blocks .*charger/);
});
