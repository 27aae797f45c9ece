// The demo household in Home Assistant: a Home Assistant pointed at the demo's broker (as
// docs/home-assistant.md tells) finds every device of the demo, each with its entities, and the
// cars' charging controls where a charger can carry them out (the Tesla through the go-e charger,
// the driverless VW over OCPP through the carport's Zaptec).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { demoMqttListen, startDemoMqtt } from '../../src/sim/demo-mqtt.ts';
import { startDemoHub } from '../support/demo-hub.ts';
import { TopicWatch } from '../support/topic-watch.ts';

const TESLA = '5cab7f6d-cf9a-4ecd-8a8d-6f7a8b9cad01';
const VW = '5cab7f6d-cf9a-4ecd-8a8d-6f7a8b9cad02';
const DAIKIN = '3a8f5d4b-ad7e-4cab-8e6b-4d5e6f7a8b02';

test('demo: HUB_DEMO_MQTT_LISTEN opens the demo broker to the home network', () => {
  assert.deepEqual(demoMqttListen(undefined), { host: '127.0.0.1', port: 0 });
  assert.deepEqual(demoMqttListen('0.0.0.0:1883'), { host: '0.0.0.0', port: 1883 });
  assert.deepEqual(demoMqttListen('[::]:1883'), { host: '::', port: 1883 });
  assert.throws(() => demoMqttListen('1883'), /HUB_DEMO_MQTT_LISTEN must be host:port/);
});

test('demo: HUB_DEMO_MQTT_LISTEN on a port a broker already holds (mosquitto on 1883) is refused in plain words', async (t) => {
  const taken = createServer().listen(0, '127.0.0.1');
  await once(taken, 'listening');
  t.after(() => taken.close());
  const port = (taken.address() as { port: number }).port;
  await assert.rejects(startDemoMqtt({ host: '127.0.0.1', port }), (err: Error) => {
    // No aedes (a production install): the demo runs without its broker, nothing to refuse.
    assert.match(err.message, new RegExp(`HUB_DEMO_MQTT_LISTEN: 127\\.0\\.0\\.1:${port} is already in use \\(is a broker such as mosquitto running there\\? choose another port\\)`));
    return true;
  });
});

test('demo: every device of the demo household shows up in Home Assistant', async (t) => {
  const started = await startDemoHub(t, { homeAssistant: { enabled: true } });
  if (!started) return t.skip('aedes (a development dependency) is not installed');
  const { demo, records } = started;
  // Home Assistant subscribes to its discovery prefix.
  const ha = await TopicWatch.start(t, demo.url, ['homeassistant/#']);
  const deviceOf = (payload: string) => (payload ? (JSON.parse(payload).device?.identifiers?.[0] as string | undefined) : undefined);
  for (const record of records) {
    await ha.until((m) => deviceOf(m.payload) === `home_energy_hub_${record.id}`, 10_000, `an entity of the demo's ${record.kind} ${record.id}`);
  }
  for (const car of [TESLA, VW]) {
    for (const [component, key] of [['button', 'charging_stop'], ['button', 'charging_start'], ['number', 'charging_current']]) {
      const topic = `homeassistant/${component}/home_energy_hub/home_energy_hub_${car}_${key}/config`;
      await ha.until((m) => m.topic === topic && m.payload !== '', 10_000, topic);
    }
  }
  // The Daikin's board takes modes only (the hub runs its schedule): its modes are its driver's own.
  const daikin = await ha.until((m) => m.topic === `homeassistant/climate/home_energy_hub/home_energy_hub_${DAIKIN}_climate/config` && m.payload !== '');
  assert.deepEqual(JSON.parse(daikin.payload).modes, ['off', 'heat', 'auto']);
  assert.equal(JSON.parse(daikin.payload).temperature_command_topic, undefined, 'no setpoint: ESPAltherma cannot write one');
  const climates = ha.seen.filter((m) => m.topic.startsWith('homeassistant/climate/') && m.payload !== '');
  assert.equal(new Set(climates.map((m) => m.topic)).size, records.filter((r) => r.kind === 'hvac').length, 'one climate entity per HVAC unit');
});
