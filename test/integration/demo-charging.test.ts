// The demo household of `npm start` with its own broker and bridges: two cars (a Tesla through
// TeslaMate, plugged into the go-e charger and charging; a VW without a driver, bound to the
// Zaptec-like charger at the carport, which speaks OCPP to the hub) and two chargers. Each car's
// CHARGING_STOP goes through the charger its binding names, and reaches no other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import mqtt from 'mqtt';
import { startDemoHub } from '../support/demo-hub.ts';

const TESLA = '5cab7f6d-cf9a-4ecd-8a8d-6f7a8b9cad01';
const VW = '5cab7f6d-cf9a-4ecd-8a8d-6f7a8b9cad02';

test('demo: the Tesla\'s CHARGING_STOP is carried out by the go-e charger, the driverless VW\'s over OCPP by the carport\'s Zaptec', async (t) => {
  const started = await startDemoHub(t);
  if (!started) return t.skip('aedes (a development dependency) is not installed');
  const { demo, hub } = started;
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
  assert.equal(vw.state, 'EXECUTED', vw.failedReason ?? '');
  const [transaction] = hub.daemon.db.ocpp.running('ZAP000001');
  assert.equal(transaction, undefined, 'the Zaptec\'s transaction was stopped');

  const tesla = await submit(TESLA);
  assert.equal(tesla.state, 'EXECUTED', tesla.failedReason ?? '');
  await firstWrite;
  assert.deepEqual(writes, ['go-eCharger/100001/frc/set 1'], 'one stop reached the charger: the Tesla\'s');
});
