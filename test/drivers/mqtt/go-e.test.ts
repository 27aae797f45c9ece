// The go-e definition against a simulator that publishes what the go-e MQTT API v2 documents, through
// a real broker and a whole hub: state mapping, last will, and commands confirmed, rejected, timed out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import mqtt from 'mqtt';
import { GoESim } from '../../../src/sim/mqtt/go-e-sim.ts';
import { drivenRecord, startMqttHub } from '../../support/mqtt-hub.ts';

const CHARGER = '6f1c2a4e-0000-4000-8000-00000000c001';
const VEHICLE = '6f1c2a4e-0000-4000-8000-00000000e001';

async function setup(t: import('node:test').TestContext, config: Record<string, unknown> = {}) {
  const hub = await startMqttHub(t, {
    records: [
      drivenRecord('charger', CHARGER, 'GO_E', { type: 'go-e', serial: '012345' }),
      drivenRecord('vehicle', VEHICLE, 'TESLA', null),
    ],
    config,
  });
  const sim = new GoESim(hub.broker.url, '012345');
  t.after(() => sim.stop());
  const online = hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.isOnline && e.device.state?.['chargeCurrentMax'] === 16);
  await sim.start();
  await online;
  return { hub, sim };
}

test('go-e: the charger\'s topics become its chargeState, and plugging in is seen', async (t) => {
  const { hub, sim } = await setup(t);
  const charging = hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.state?.['chargingState'] === 'CHARGING');
  await sim.plugIn();
  await charging;
  const response = await hub.api(`/chargers/${CHARGER}`);
  assert.equal(response.status, 200);
  const body = (await response.json()) as Record<string, any>;
  assert.equal(body.isOnline, true);
  assert.deepEqual(
    { ...body.chargeState, lastUpdated: undefined },
    { lastUpdated: undefined, chargingState: 'CHARGING', isPlugged: true, chargeCurrentMax: 16, chargeRate: 11.04, activePhases: 3 },
  );
});

test('go-e: the last will marks the charger offline, and it comes back', async (t) => {
  const { hub, sim } = await setup(t);
  const offline = hub.event((e) => e.type === 'offline' && e.device.id === CHARGER);
  sim.drop();
  await offline;
  assert.equal(hub.device(CHARGER)?.isOnline, false);
  const back = hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.isOnline);
  await sim.start();
  await back;
});

test('go-e: a vehicle\'s charging stop goes through the charger it is plugged into, and is confirmed', async (t) => {
  const { hub, sim } = await setup(t);
  const plugged = hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.state?.['isPlugged'] === true);
  await sim.plugIn();
  await plugged;
  hub.daemon.mqtt!.flush();
  const response = await hub.api(`/vehicles/${VEHICLE}/commands/charging-stop`, { method: 'POST' });
  assert.equal(response.status, 200);
  const command = (await response.json()) as { id: string; state: string };
  assert.equal(command.state, 'PENDING');
  const done = await hub.commandDone(command.id);
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
  assert.deepEqual(sim.received.filter((m) => m.topic.endsWith('/set')), [{ topic: 'go-eCharger/012345/frc/set', payload: '1' }]);
  assert.equal(sim.state.frc, 1);
});

test('go-e: a rejected write fails with the charger\'s reason; a silent charger times out', async (t) => {
  const { hub, sim } = await setup(t, { commands: { confirmTimeoutSeconds: 1 } });
  sim.faults.rejecting = true;
  const rejected = await hub.commandDone(hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 10 }).id);
  assert.equal(rejected.state, 'FAILED');
  assert.match(rejected.failedReason ?? '', /rejected.*mqtt write access disabled/);

  sim.faults.rejecting = false;
  sim.faults.silent = true;
  const silent = await hub.commandDone(hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 10 }).id);
  assert.equal(silent.state, 'FAILED');
  assert.match(silent.failedReason ?? '', /did not confirm within 1 s/);

  sim.faults.silent = false;
  const bad = await hub.commandDone(hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 40 }).id);
  assert.equal(bad.state, 'FAILED');
  assert.match(bad.failedReason ?? '', /outside what the device accepts/);
  assert.equal(sim.received.filter((m) => m.payload === '40').length, 0, 'an out-of-range value is never sent');

  const ok = await hub.commandDone(hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 10 }).id);
  assert.equal(ok.state, 'EXECUTED', ok.failedReason ?? '');
  assert.equal(sim.state.amp, 10);
});

test('events: state changes and commands are published on the broker, one topic per kind and type, never retained', async (t) => {
  const { hub, sim } = await setup(t);
  const listener = await mqtt.connectAsync(hub.broker.url);
  t.after(() => listener.endAsync(true));
  const seen: { topic: string; body: any; retain: boolean }[] = [];
  listener.on('message', (topic, payload, packet) => seen.push({ topic, body: JSON.parse(payload.toString()), retain: packet.retain }));
  await listener.subscribeAsync('home-energy-hub/events/#', { qos: 1 });
  const gotUpdate = new Promise<void>((resolve) => listener.on('message', (topic) => topic === 'home-energy-hub/events/charger/update' && resolve()));
  await sim.plugIn();
  await gotUpdate;
  const command = hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 12 });
  const gotCommand = new Promise<void>((resolve) => listener.on('message', (topic) => topic === 'home-energy-hub/events/charger/command' && resolve()));
  await hub.commandDone(command.id);
  await gotCommand;
  const update = seen.find((m) => m.topic === 'home-energy-hub/events/charger/update')!;
  assert.equal(update.retain, false);
  assert.equal(update.body.event, 'update');
  assert.equal(update.body.deviceId, CHARGER);
  assert.equal(update.body.data.id, CHARGER);
  const executed = seen.find((m) => m.topic === 'home-energy-hub/events/charger/command')!;
  assert.equal(executed.retain, false);
  assert.equal(executed.body.data.id, command.id);
  assert.equal(executed.body.data.state, 'EXECUTED');
});
