// The tariff-topic definition against a publisher of the current price as evcc publishes it
// (site/tariffGrid with at most three decimals, site/currency, the alive indicator updated), through a
// real broker and a whole hub: the price is kept with the currency evcc names, the tariff is online
// while evcc runs (its heartbeat, even when the price stays), and offline once nothing came for the
// binding's staleAfterSeconds. evcc's day-ahead curve (site/forecast/grid, spread over topics by
// publishComplex) becomes the prices ahead of GET /tariffs/{id}/prices.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TariffTopicSim } from '../../../src/sim/mqtt/tariff-topic-sim.ts';
import { drivenRecord, startMqttHub } from '../../support/mqtt-hub.ts';
import { until } from '../../support/process.ts';
import { TopicWatch } from '../../support/topic-watch.ts';

const TARIFF = '9c4d5e6f-0000-4000-8000-0000000a0001';

async function setup(t: import('node:test').TestContext, binding: Record<string, unknown> = {}, root: string | null = 'evcc') {
  const hub = await startMqttHub(t, {
    records: [drivenRecord('tariff', TARIFF, 'TIBBER', { type: 'tariff-topic', ...binding }, { staticData: { vendor: 'TIBBER', name: 'Tibber', currency: 'EUR' } })],
  });
  const feed = new TariffTopicSim(hub.broker.url, String(binding['priceTopic'] ?? 'evcc/site/tariffGrid'), root);
  t.after(() => feed.stop());
  const online = hub.event((e) => e.type === 'update' && e.device.id === TARIFF && e.device.isOnline);
  await feed.start();
  await online;
  return { hub, feed };
}

test('tariff-topic: the current price is kept with its currency, and the tariff is online', async (t) => {
  const { hub, feed } = await setup(t);
  // evcc publishes 0.2874 as 0.287 (%.3f, trailing zeros trimmed).
  assert.deepEqual({ ...hub.device(TARIFF)!.state, lastUpdated: undefined }, { lastUpdated: undefined, pricePerKwh: 0.287, currency: 'EUR' });
  const next = hub.event((e) => e.type === 'update' && e.device.id === TARIFF && e.device.state?.['pricePerKwh'] === -0.012);
  await feed.setPrice(-0.0123);
  await next;
  hub.daemon.mqtt!.flush();
  const response = await hub.api(`/users/household-1/tariffs/${TARIFF}`);
  assert.equal(response.status, 200);
  const body = (await response.json()) as Record<string, any>;
  assert.equal(body.isOnline, true);
  assert.match(body.lastUpdated, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(body.staticData.currency, 'EUR');
});

test('tariff-topic: the prices evcc publishes are GET /tariffs/{id}/prices, each told as price.update', async (t) => {
  const { hub, feed } = await setup(t);
  const told = hub.event((e) => e.type === 'price.update' && e.device.id === TARIFF && e.prices.at(-1)?.totalPrice === 0.31);
  await feed.setPrice(0.31);
  const event = await told;
  const res = await hub.api(`/tariffs/${TARIFF}/prices`);
  assert.equal(res.status, 200);
  const prices = (await res.json()) as { startDate: string; totalPrice: number }[];
  assert.deepEqual(prices.map((p) => p.totalPrice), [0.287, 0.31].slice(-prices.length));
  assert.equal(prices.at(-1)!.totalPrice, 0.31);
  assert.match(prices.at(-1)!.startDate, /^\d{4}-\d\d-\d\dT\d\d:(00|15|30|45):00Z$/, 'in force from its quarter hour');
  assert.deepEqual(event.type === 'price.update' && event.prices, prices);
});

test('tariff-topic: a feed other than evcc: its topic and the configured currency, no currency or heartbeat topic', async (t) => {
  const { hub } = await setup(t, { priceTopic: 'home/prices/now', currency: 'GBP', currencyTopic: '', heartbeatTopic: '' }, null);
  assert.equal(hub.device(TARIFF)!.state?.['pricePerKwh'], 0.287);
  assert.equal(hub.device(TARIFF)!.state?.['currency'], 'GBP');
  hub.daemon.mqtt!.flush();
  const body = (await (await hub.api(`/users/household-1/tariffs/${TARIFF}`)).json()) as Record<string, any>;
  assert.equal(body.staticData.currency, 'GBP', 'the configured currency, where the import said EUR');
});

test('tariff-topic: the currency evcc publishes (site/currency) wins over the setting', async (t) => {
  const { hub, feed } = await setup(t, { currency: 'GBP' });
  assert.equal(hub.device(TARIFF)!.state?.['currency'], 'EUR');
  const chf = hub.event((e) => e.type === 'update' && e.device.id === TARIFF && e.device.state?.['currency'] === 'CHF');
  await feed.publish('evcc/site/currency', 'CHF');
  await chf;
  hub.daemon.mqtt!.flush();
  // The API's tariff shows what Home Assistant's price unit shows: the currency evcc publishes.
  const body = (await (await hub.api(`/users/household-1/tariffs/${TARIFF}`)).json()) as Record<string, any>;
  assert.equal(body.staticData.currency, 'CHF');
});

test('tariff-topic: evcc\'s heartbeat (evcc/updated) keeps the tariff online while the price stays the same', async (t) => {
  const { hub, feed } = await setup(t, { staleAfterSeconds: '1' });
  const session = () => (hub.daemon.mqtt as unknown as { sessions: Map<string, { messages: number; isSilent(now: number, stale: number): boolean }> }).sessions.get(TARIFF)!;
  const started = Date.now();
  // Longer than the allowance, one heartbeat heard after another.
  while (Date.now() - started < 2500) {
    const heard = session().messages;
    await feed.beat();
    await until('the heartbeat heard', () => (session().messages > heard ? true : undefined));
  }
  assert.equal(session().isSilent(performance.now(), 300_000), false); // silence is measured on the monotonic clock
  hub.daemon.mqtt!.flush();
  assert.equal(hub.device(TARIFF)!.isOnline, true);
});

test('tariff-topic: no price for longer than staleAfterSeconds shows the tariff offline; the next price brings it back', async (t) => {
  const { hub, feed } = await setup(t, { staleAfterSeconds: '1' });
  await hub.event((e) => e.type === 'offline' && e.device.id === TARIFF, 10_000);
  const back = hub.event((e) => e.type === 'update' && e.device.id === TARIFF && e.device.isOnline);
  await feed.setPrice(0.31);
  await back;
});

/** Hourly slots from the hour before the current one, as evcc's curve begins in the past (today's midnight). */
function hourlyCurve(prices: number[]): { startMs: number; endMs: number; price: number }[] {
  const first = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000;
  return prices.map((price, i) => ({ startMs: first + i * 3_600_000, endMs: first + (i + 1) * 3_600_000, price }));
}

test('tariff-topic: evcc\'s curve on site/forecast/grid is /prices ahead; a shorter one (its old slots still retained past the count) replaces it', async (t) => {
  const { hub, feed } = await setup(t);
  type Price = { startDate: string; totalPrice: number };
  // Ahead is told at the moment it is asked (an hour may begin while the test runs).
  const aheadOf = (prices: Price[]) => prices.filter((p) => Date.parse(p.startDate) > Date.now());
  const expected = (slots: { startMs: number; price: number }[]): Price[] => slots.filter((slot) => slot.startMs > Date.now())
    .map((slot) => ({ startDate: new Date(slot.startMs).toISOString().replace('.000Z', 'Z'), totalPrice: Number(slot.price.toFixed(3)) }));
  const long = hourlyCurve([0.31, 0.2874, 0.2216, 0.1988, 0.3502, 0.27]);
  const told = hub.event((e) => e.type === 'price.update' && e.device.id === TARIFF && aheadOf(e.prices).length === expected(long).length);
  await feed.setForecast(long);
  await told;
  const prices = (await (await hub.api(`/tariffs/${TARIFF}/prices`)).json()) as Price[];
  // %.3f as evcc sends them; the slot begun and the one before it are not the future.
  assert.deepEqual(aheadOf(prices), expected(long));
  assert.equal(prices.at(0)!.totalPrice, 0.287, 'the price in force is site/tariffGrid\'s');

  const short = long.slice(0, 4);
  const shorter = hub.event((e) => e.type === 'price.update' && e.device.id === TARIFF && aheadOf(e.prices).length === expected(short).length);
  await feed.setForecast(short);
  const event = await shorter;
  assert.deepEqual(event.type === 'price.update' && aheadOf(event.prices), expected(short));
  const watch = await TopicWatch.start(t, hub.broker.url, [`${feed.forecastTopic}/5/3`]);
  await watch.until((m) => m.payload === '0.35', 10_000, 'slot 5 still retained on the broker: the count says it is not valid');

  const erased = hub.event((e) => e.type === 'price.update' && e.device.id === TARIFF && aheadOf(e.prices).length === 0);
  await feed.setForecast([]);
  await erased;
});
