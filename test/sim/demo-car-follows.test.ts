// In the demo (its own broker and bridges, src/sim/demo-mqtt.ts), the Tesla charges at exactly what
// the go-e gives it and stops when the go-e stops: TeslaMate's topics follow the charger, and the
// household's driveway term is the go-e's power.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import mqtt from 'mqtt';
import { startDemoMqtt } from '../../src/sim/demo-mqtt.ts';
import { createDemoHousehold, DRIVEWAY } from '../../src/sim/demo-household.ts';
import { TopicWatch } from '../support/topic-watch.ts';

const CAR = 'teslamate/cars/1/';

test('demo: the Tesla follows the go-e: stop → Stopped at 0 kW, start → Charging at the go-e\'s power, a new current → a new power', async (t) => {
  const household = createDemoHousehold();
  const demo = await startDemoMqtt(undefined, household);
  if (!demo) return t.skip('aedes (a development dependency) is not installed');
  t.after(() => demo.stop());
  const watch = await TopicWatch.start(t, demo.url, [`${CAR}+`, 'go-eCharger/100001/+/result']);
  const app = await mqtt.connectAsync(demo.url);
  t.after(() => app.endAsync(true));
  const is = (key: string, value: string) => (m: { topic: string; payload: string }) => m.topic === `${CAR}${key}` && m.payload === value;

  // At start the car charges at the go-e's 16 A on three phases: 11.04 kW, 11 in Tesla's whole kW.
  await watch.until(is('charging_state', 'Charging'), 10_000, 'the Tesla charging');
  await watch.until(is('charger_power', '11'), 10_000, 'the Tesla at 11 kW');
  assert.equal(household.read().chargerW[DRIVEWAY], 11_040);
  // 64 % to its 80 % limit: 12 kWh of 75 at 11.04 kW, 1.09 hours.
  await watch.until((m) => m.topic === `${CAR}time_to_full_charge` && m.payload === '1.09', 10_000, 'the hours to the charge limit');

  const set = async (key: string, value: number) => {
    const answer = watch.next((m) => m.topic === `go-eCharger/100001/${key}/result`, 10_000, `the go-e's answer to ${key}`);
    await app.publishAsync(`go-eCharger/100001/${key}/set`, String(value), { qos: 1 });
    assert.equal((await answer).payload, 'success');
  };
  const stopped = watch.next(is('charging_state', 'Stopped'), 10_000, 'the Tesla stopped');
  await set('frc', 1);
  await stopped;
  assert.equal(watch.latest.get(`${CAR}charger_power`), '0');
  assert.equal(watch.latest.get(`${CAR}charger_actual_current`), '0');
  assert.equal(watch.latest.get(`${CAR}plugged_in`), 'true');
  assert.equal(household.read().chargerW[DRIVEWAY], 0, 'a stopped charger draws nothing');

  const charging = watch.next(is('charging_state', 'Charging'), 10_000, 'the Tesla charging again');
  await set('frc', 0);
  await charging;
  assert.equal(household.read().chargerW[DRIVEWAY], 11_040);

  const slower = watch.next(is('charger_power', '7'), 10_000, 'the Tesla at 7 kW');
  await set('amp', 10);
  await slower;
  assert.equal(watch.latest.get(`${CAR}charger_actual_current`), '10');
  assert.equal(household.read().chargerW[DRIVEWAY], 6900, 'the go-e at 10 A on three phases');
});
