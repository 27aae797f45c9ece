// The worked example of docs/drivers-mqtt.md: a Mercedes-Benz read through a bridge that already
// reaches it (Home Assistant's mbapi2020 integration, its entities published by HA's
// mqtt_statestream: one retained plain-string topic per entity, HA's birth and last will on
// homeassistant/status). The test runs the example file itself, so the page cannot drift from what works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import mqtt from 'mqtt';
import { startMqttHub } from '../../support/mqtt-hub.ts';
import { skippedWithout } from '../../support/peers.ts';

const CAR = 'a1b2c3d4-0000-4000-8000-0000000000e1';
/** A wallbox the binding names that is not on this hub: charging commands have nothing to go through. */
const MISSING_CHARGER = 'a1b2c3d4-0000-4000-8000-00000000c0ff';
const example = JSON.parse(readFileSync(new URL('../../../docs/examples/mercedes-through-home-assistant.json', import.meta.url), 'utf8')) as Record<string, any>;

test('Mercedes through Home Assistant\'s statestream: the example binding makes the car\'s chargeState and odometer; charging commands with no charger fail at once with the reason', async (t) => {
  if (skippedWithout(t, 'mosquitto')) return;
  const record = { ...example, id: CAR, isOnline: false, driver: { ...example['driver'], chargerId: MISSING_CHARGER } };
  const hub = await startMqttHub(t, { records: [record] });
  const bridge = await mqtt.connectAsync(hub.broker.url, { clientId: 'home-assistant', will: { topic: 'homeassistant/status', payload: Buffer.from('offline'), qos: 1, retain: true } });
  t.after(() => bridge.endAsync(true));
  const charging = hub.event((e) => e.type === 'update' && e.device.id === CAR && e.device.state?.['chargingState'] === 'CHARGING' && e.device.state?.['odometerKm'] === 18234);
  // What mqtt_statestream publishes: the entity's state as a plain string, retained.
  for (const [topic, payload] of Object.entries({
    'homeassistant/status': 'online',
    'homeassistant/sensor/eqa_state_of_charge/state': '72',
    'homeassistant/sensor/eqa_range_electric/state': '310',
    'homeassistant/sensor/eqa_odometer/state': '18234',
    'homeassistant/sensor/eqa_charging_power/state': '7.4',
    'homeassistant/sensor/eqa_charging_status/state': '13', // AC_CHARGING_ACTIVE
  })) await bridge.publishAsync(topic, payload, { qos: 1, retain: true });
  await charging;
  const body = (await (await hub.api(`/vehicles/${CAR}`)).json()) as Record<string, any>;
  assert.equal(body.isOnline, true);
  assert.equal(body.staticData.vendor, 'MERCEDES');
  assert.deepEqual({ ...body.chargeState, lastUpdated: undefined }, {
    lastUpdated: undefined, stateOfCharge: 72, estimatedRange: 310, chargeRate: 7.4, chargingState: 'CHARGING',
  });
  assert.equal(body.odometer.odometer, 18234);

  // Mercedes offers private owners no charging command: the car's go through its wallbox, which is not here.
  const created = await hub.api(`/vehicles/${CAR}/commands/charging-stop`, { method: 'POST' });
  assert.ok(created.status < 300, `status ${created.status}`);
  const { id } = (await created.json()) as { id: string };
  const done = await hub.commandDone(id);
  assert.equal(done.state, 'FAILED');
  assert.match(done.failedReason ?? '', /CHARGING_STOP is not supported: .*mqtt-generic.*cannot do it.*not on this hub/);

  // Home Assistant gone (its last will): the car is offline, not showing stale values as current.
  const offline = hub.event((e) => e.type === 'offline' && e.device.id === CAR);
  bridge.stream.destroy();
  await offline;
});
