// The tariff-topic definition against a publisher of the current price (evcc's site/tariffGrid),
// through a real broker and a whole hub: the price is kept, the tariff is online while prices come,
// and offline once none came for the binding's staleAfterSeconds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TariffTopicSim } from '../../../src/sim/mqtt/tariff-topic-sim.ts';
import { drivenRecord, startMqttHub } from '../../support/mqtt-hub.ts';

const TARIFF = '9c4d5e6f-0000-4000-8000-0000000a0001';

async function setup(t: import('node:test').TestContext, binding: Record<string, unknown> = {}) {
  const hub = await startMqttHub(t, {
    records: [drivenRecord('tariff', TARIFF, 'TIBBER', { type: 'tariff-topic', ...binding }, { staticData: { vendor: 'TIBBER', name: 'Tibber', currency: 'EUR' } })],
  });
  const feed = new TariffTopicSim(hub.broker.url, String(binding['priceTopic'] ?? 'evcc/site/tariffGrid'));
  t.after(() => feed.stop());
  const online = hub.event((e) => e.type === 'update' && e.device.id === TARIFF && e.device.isOnline);
  await feed.start();
  await online;
  return { hub, feed };
}

test('tariff-topic: the current price is kept with its currency, and the tariff is online', async (t) => {
  const { hub, feed } = await setup(t);
  assert.deepEqual({ ...hub.device(TARIFF)!.state, lastUpdated: undefined }, { lastUpdated: undefined, pricePerKwh: 0.2874, currency: 'EUR' });
  const next = hub.event((e) => e.type === 'update' && e.device.id === TARIFF && e.device.state?.['pricePerKwh'] === -0.0123);
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

test('tariff-topic: a configured topic and currency are used', async (t) => {
  const { hub } = await setup(t, { priceTopic: 'home/prices/now', currency: 'GBP' });
  assert.equal(hub.device(TARIFF)!.state?.['pricePerKwh'], 0.2874);
  assert.equal(hub.device(TARIFF)!.state?.['currency'], 'GBP');
});

test('tariff-topic: no price for longer than staleAfterSeconds shows the tariff offline; the next price brings it back', async (t) => {
  const { hub, feed } = await setup(t, { staleAfterSeconds: '1' });
  await hub.event((e) => e.type === 'offline' && e.device.id === TARIFF, 10_000);
  const back = hub.event((e) => e.type === 'update' && e.device.id === TARIFF && e.device.isOnline);
  await feed.setPrice(0.31);
  await back;
});
