// The go-e definition against a simulator that publishes what the go-e MQTT API v2 documents, through
// a real broker and a whole hub: state mapping, last will, and commands confirmed, rejected, timed out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import mqtt from 'mqtt';
import { readFileSync } from 'node:fs';
import { GoESim, type GoEOptions } from '../../../src/sim/mqtt/go-e-sim.ts';
import { drivenRecord, startMqttHub } from '../../support/mqtt-hub.ts';
import { startBroker } from '../../support/broker.ts';

const CHARGER = '6f1c2a4e-0000-4000-8000-00000000c001';
const VEHICLE = '6f1c2a4e-0000-4000-8000-00000000e001';

async function setup(t: import('node:test').TestContext, config: Record<string, unknown> = {}, binding: Record<string, string> = {}, goe: GoEOptions & { prefix?: string } = {}) {
  const hub = await startMqttHub(t, {
    records: [
      drivenRecord('charger', CHARGER, 'GO_E', { type: 'go-e', serial: '012345', ...binding }),
      drivenRecord('vehicle', VEHICLE, 'TESLA', null),
    ],
    config,
  });
  const sim = new GoESim(hub.broker.url, '012345', goe.prefix, goe);
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

/** The capture of a real charger (firmware 053.1): `topic payload` per line. */
const CAPTURE = readFileSync(new URL('../../fixtures/go-e/mqtt-capture-053.1.txt', import.meta.url), 'utf8')
  .split('\n').filter((line) => line.trim() !== '').map((line) => {
    const at = line.indexOf(' ');
    return { topic: line.slice(0, at), payload: line.slice(at + 1) };
  });

test('go-e: a captured 053.1 charger (leading-slash topics, no pnp, fna, typ or mcc) is heard: state, phases from pha, model from var', async (t) => {
  const hub = await startMqttHub(t, {
    records: [drivenRecord('charger', CHARGER, 'GO_E', { type: 'go-e', serial: '000001' })],
  });
  const charger = await mqtt.connectAsync(hub.broker.url);
  t.after(() => charger.endAsync(true));
  const heard = hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.isOnline && e.device.state?.['chargeCurrentMax'] === 10
    && e.device.state?.['activePhases'] !== undefined && e.device.state?.['chargeRate'] !== undefined);
  for (const { topic, payload } of CAPTURE) await charger.publishAsync(topic, payload, { qos: 1, retain: true });
  await heard;
  hub.daemon.mqtt!.flush();
  const { lastUpdated: _stamp, ...state } = hub.device(CHARGER)!.state!;
  // car 1 (idle), amp 10, nrg total 0 W, pha [false,false,false,true,false,false]: no phase after the contactor.
  assert.deepEqual(state, { chargingState: 'UNPLUGGED', isPlugged: false, chargeCurrentMax: 10, chargeRate: 0, activePhases: 0 });
  const probe = await hub.daemon.mqtt!.probe({ type: 'go-e', serial: '000001' }, 'charger', AbortSignal.timeout(5000));
  assert.deepEqual(probe.staticValues, { model: 'go-e Charger 11 kW' });
});

test('go-e: without a last will (the captured firmware), a charger that vanishes is shown offline after the silence allowed', async (t) => {
  // The hub's own silence check runs every quarter of its default staleness: 5 s keeps it quick.
  const broker = await startBroker();
  t.after(() => broker.stop());
  const hub = await startMqttHub(t, {
    broker,
    records: [drivenRecord('charger', CHARGER, 'GO_E', { type: 'go-e', serial: '012345', staleAfterSeconds: '1' })],
    config: { mqtt: { url: broker.url, protocolVersion: broker.supportsMqtt5 ? 5 : 4, staleAfterSeconds: 5 } },
  });
  const sim = new GoESim(hub.broker.url, '012345', 'go-eCharger', { form: 'slash', firmware: 'captured', rbtIntervalMs: 200 });
  t.after(() => sim.stop());
  const online = hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.isOnline);
  await sim.start();
  await online;
  const offline = hub.event((e) => e.type === 'offline' && e.device.id === CHARGER);
  sim.drop(); // no will: nothing is published when it goes
  await offline;
  assert.equal(hub.device(CHARGER)!.isOnline, false);
});

test('go-e: a custom prefix set in the app is the whole prefix (no serial): the charger is read and commanded there', async (t) => {
  const { hub, sim } = await setup(t, {}, { topicPrefix: 'home/garage/wallbox' }, { prefix: 'home/garage/wallbox', form: 'whole' });
  const done = await hub.commandDone(hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 12 }).id);
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
  assert.deepEqual(sim.received.filter((m) => m.topic.endsWith('/set')), [{ topic: 'home/garage/wallbox/amp/set', payload: '12' }]);
});

test('go-e: a charger under /go-eCharger/… (older firmware) is found and commanded under that prefix', async (t) => {
  const { hub, sim } = await setup(t, {}, {}, { form: 'slash' });
  const done = await hub.commandDone(hub.submit(CHARGER, 'CHARGING_STOP').id);
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
  assert.deepEqual(sim.received.filter((m) => m.topic.endsWith('/set')), [{ topic: '/go-eCharger/012345/frc/set', payload: '1' }]);
});

test('go-e: a charging stop is released by CHARGING_START (frc 0 hands control back); a binding may choose to force charging on (frc 2)', async (t) => {
  const { hub, sim } = await setup(t);
  const plugged = hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.state?.['chargingState'] === 'CHARGING');
  await sim.plugIn();
  await plugged;
  const stop = await hub.commandDone(hub.submit(CHARGER, 'CHARGING_STOP').id);
  assert.equal(stop.state, 'EXECUTED', stop.failedReason ?? '');
  assert.equal(sim.state.frc, 1);
  const charging = hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.state?.['chargingState'] === 'CHARGING');
  const start = await hub.commandDone(hub.submit(CHARGER, 'CHARGING_START').id);
  assert.equal(start.state, 'EXECUTED', start.failedReason ?? '');
  assert.equal(sim.state.frc, 0, 'neutral: the charger is not left forced');
  await charging;

  const forced = await setup(t, {}, { startForceState: '2' });
  const on = await forced.hub.commandDone(forced.hub.submit(CHARGER, 'CHARGING_START').id);
  assert.equal(on.state, 'EXECUTED', on.failedReason ?? '');
  assert.equal(forced.sim.state.frc, 2);
});
