// The demo household of `npm start` with its own broker and bridges: two cars (a Tesla through
// TeslaMate, plugged into the go-e charger and charging; a VW without a driver) and one charger. The
// Tesla's CHARGING_STOP goes through the charger its binding names; the VW's must not stop the
// Tesla's charging: it fails with a reason that tells the installer to bind it to its charger.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import mqtt from 'mqtt';
import { startDemoMqtt } from '../../src/sim/demo-mqtt.ts';
import { demoRecords } from '../../src/demo/site.ts';
import { startMqttHub, type MqttHub } from '../support/mqtt-hub.ts';
import type { TestBroker } from '../support/broker.ts';

const TESLA = '5cab7f6d-cf9a-4ecd-8a8d-6f7a8b9cad01';
const VW = '5cab7f6d-cf9a-4ecd-8a8d-6f7a8b9cad02';

test('demo: the Tesla\'s CHARGING_STOP is carried out by the go-e charger; the driverless VW\'s fails and leaves the charger alone', async (t) => {
  const demo = await startDemoMqtt();
  if (!demo) return t.skip('aedes (a development dependency) is not installed');
  const broker: TestBroker = {
    kind: 'aedes', port: Number(new URL(demo.url).port), url: demo.url, supportsMqtt5: false,
    stop: async () => {}, restart: async () => { throw new Error('the demo broker is not restarted here'); },
  };
  let hub: MqttHub;
  try {
    hub = await startMqttHub(t, { broker, records: demoRecords(Date.now(), demo.bindings) });
  } finally {
    t.after(() => demo.stop()); // after the hub's own teardown, registered first
  }
  const writes: string[] = [];
  const listener = await mqtt.connectAsync(demo.url);
  t.after(() => listener.endAsync(true));
  const firstWrite = new Promise<void>((resolve) => listener.on('message', (topic, payload) => {
    writes.push(`${topic} ${payload.toString()}`);
    resolve();
  }));
  await listener.subscribeAsync('go-eCharger/100001/+/set', { qos: 1 });

  const submit = async (vehicleId: string) => {
    const response = await hub.api(`/vehicles/${vehicleId}/commands/charging-stop`, { method: 'POST' });
    assert.equal(response.status, 200);
    return hub.commandDone(((await response.json()) as { id: string }).id);
  };
  const vw = await submit(VW);
  assert.equal(vw.state, 'FAILED');
  assert.match(vw.failedReason ?? '', /owner has 2 vehicles on this hub.*bind the vehicle, which has no driver, to the charger it charges at: \{"type":"charger","chargerId":/);

  const tesla = await submit(TESLA);
  assert.equal(tesla.state, 'EXECUTED', tesla.failedReason ?? '');
  await firstWrite;
  assert.deepEqual(writes, ['go-eCharger/100001/frc/set 1'], 'one stop reached the charger: the Tesla\'s');
});
