// The generic definition, configured in the binding by an installer, against a "hub-native" wallbox
// simulator through a real broker and a whole hub: JSON paths, unit conversion and enum maps; commands
// confirmed by an MQTT 5 response (correlation data), by a JSON answer echoing an id, and by the
// device's state; and the registry refusing a malformed binding with a plain-language message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MqttGenericSim } from '../../../src/sim/mqtt/mqtt-generic-sim.ts';
import { builtInMqttDrivers } from '../../../drivers/mqtt/index.ts';
import { drivenRecord, startMqttHub } from '../../support/mqtt-hub.ts';
import { skippedWithout } from '../../support/peers.ts';

const CHARGER = 'a1b2c3d4-0000-4000-8000-00000000c001';
const BASE = 'home/wallbox-1';

/** What an installer writes for the hub-native wallbox. */
const BINDING = {
  type: 'mqtt-generic',
  state: [{
    topic: `${BASE}/state`, format: 'json',
    fields: {
      chargingState: { path: 'status', as: 'string', map: { idle: 'UNPLUGGED', waiting: 'STOPPED', charging: 'CHARGING', done: 'FINISHED', fault: 'FAULT' } },
      chargeRate: { path: 'power_w', as: 'number', unit: 'W', to: 'kW', digits: 2 },
      chargeCurrentMax: { path: 'limit_a', as: 'number' },
      isPlugged: { path: 'plug.connected', as: 'boolean' },
      enabled: { path: 'enabled', as: 'boolean' },
    },
  }],
  availability: { topic: `${BASE}/status`, online: ['online'], offline: ['offline'] },
  commands: {
    // MQTT 5 request/response: the hub's response topic and correlation data ride on the request.
    SET_CHARGING_CURRENT: {
      value: { from: 'payload', field: 'current', min: 0, max: 63, digits: 0 },
      publish: [{ topic: `${BASE}/request`, payload: '{"op":"setCurrent","value":{value}}', withResponseTopic: 'hub/replies/wallbox-1' }],
      confirm: { by: 'response', topic: 'hub/replies/wallbox-1', correlation: 'property', success: { path: 'ok', equals: ['true'] }, reasonPath: 'error' },
    },
    // The correlation travels inside the JSON, and comes back at `id`.
    CHARGING_STOP: {
      value: { from: 'constant', value: 'stop' },
      publish: [{ topic: `${BASE}/rpc`, payload: '{"id":"{correlation}","method":"{value}"}' }],
      confirm: { by: 'response', topic: `${BASE}/rpc/reply`, correlation: { path: 'id' }, success: { path: 'result', equals: ['ok'] }, reasonPath: 'message' },
    },
    // No answer at all: the state read back shows it.
    CHARGING_START: {
      value: { from: 'constant', value: true },
      publish: [{ topic: `${BASE}/set/enabled`, payload: '{value}' }],
      confirm: { by: 'state', field: 'enabled' },
    },
  },
};

async function setup(t: import('node:test').TestContext, config: Record<string, unknown> = {}) {
  const hub = await startMqttHub(t, { records: [drivenRecord('charger', CHARGER, 'GO_E', BINDING)], config });
  const device = new MqttGenericSim(hub.broker.url, BASE);
  t.after(() => device.stop());
  const online = hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.isOnline && e.device.state?.['chargeCurrentMax'] === 16);
  await device.start();
  await online;
  return { hub, device };
}

test('mqtt-generic: JSON paths, W→kW and an enum map make the chargeState', async (t) => {
  if (!(await brokerHasMqtt5(t))) return;
  const { hub, device } = await setup(t);
  const charging = hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.state?.['chargingState'] === 'CHARGING');
  await device.plugIn();
  await charging;
  const body = (await (await hub.api(`/chargers/${CHARGER}`)).json()) as Record<string, any>;
  assert.equal(body.isOnline, true);
  assert.deepEqual({ ...body.chargeState, lastUpdated: undefined }, {
    lastUpdated: undefined, chargingState: 'CHARGING', chargeRate: 11.04, chargeCurrentMax: 16, isPlugged: true,
  });
  const offline = hub.event((e) => e.type === 'offline' && e.device.id === CHARGER);
  device.drop();
  await offline;
});

test('mqtt-generic: a response with our correlation data confirms; another\'s is ignored; a refusal gives the device\'s reason', async (t) => {
  if (!(await brokerHasMqtt5(t))) return;
  const { hub, device } = await setup(t);
  device.strayAnswers = true;
  const ok = await hub.commandDone(hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 10 }).id);
  assert.equal(ok.state, 'EXECUTED', ok.failedReason ?? '');
  assert.equal(device.state.limitA, 10);
  assert.deepEqual(device.received.filter((m) => m.topic.endsWith('/request')).map((m) => JSON.parse(m.payload)), [{ op: 'setCurrent', value: 10 }]);

  const outOfRange = await hub.commandDone(hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 40 }).id);
  assert.equal(outOfRange.state, 'FAILED');
  assert.equal(outOfRange.failedReason, 'The device rejected the command: limit 40 A out of range');

  device.faults.rejecting = true;
  const refused = await hub.commandDone(hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 12 }).id);
  assert.equal(refused.state, 'FAILED');
  assert.match(refused.failedReason ?? '', /rejected the command: locked by the installer/);
  assert.equal(device.state.limitA, 10);
});

test('mqtt-generic: a device that never answers the request times out', async (t) => {
  if (!(await brokerHasMqtt5(t))) return;
  const { hub, device } = await setup(t, { commands: { confirmTimeoutSeconds: 1 } });
  device.faults.silent = true;
  const silent = await hub.commandDone(hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 10 }).id);
  assert.equal(silent.state, 'FAILED');
  assert.match(silent.failedReason ?? '', /did not confirm within 1 s/);
  assert.equal(device.state.limitA, 16);
});

test('mqtt-generic: an answer echoing our id in its JSON confirms, or rejects with its message', async (t) => {
  if (!(await brokerHasMqtt5(t))) return;
  const { hub, device } = await setup(t, { commands: { confirmTimeoutSeconds: 1 } });
  device.strayAnswers = true;
  const ok = await hub.commandDone(hub.submit(CHARGER, 'CHARGING_STOP').id);
  assert.equal(ok.state, 'EXECUTED', ok.failedReason ?? '');
  assert.equal(device.state.enabled, false);
  const sent = JSON.parse(device.received.find((m) => m.topic === `${BASE}/rpc`)!.payload) as { id: string; method: string };
  assert.equal(sent.method, 'stop');
  assert.match(sent.id, /^[0-9a-f-]{36}$/);

  device.faults.rejecting = true;
  const refused = await hub.commandDone(hub.submit(CHARGER, 'CHARGING_STOP').id);
  assert.equal(refused.state, 'FAILED');
  assert.equal(refused.failedReason, 'The device rejected the command: locked by the installer');

  device.faults.rejecting = false;
  device.faults.silent = true;
  const silent = await hub.commandDone(hub.submit(CHARGER, 'CHARGING_STOP').id);
  assert.equal(silent.state, 'FAILED');
  assert.match(silent.failedReason ?? '', /did not confirm within 1 s/);
});

test('mqtt-generic: a command without an answer is confirmed by the state read back, or times out', async (t) => {
  if (!(await brokerHasMqtt5(t))) return;
  const { hub, device } = await setup(t, { commands: { confirmTimeoutSeconds: 1 } });
  device.state.enabled = false;
  await device.plugIn();
  await hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.state?.['chargingState'] === 'STOPPED');
  const ok = await hub.commandDone(hub.submit(CHARGER, 'CHARGING_START').id);
  assert.equal(ok.state, 'EXECUTED', ok.failedReason ?? '');
  assert.equal(device.state.enabled, true);

  device.state.enabled = false;
  await device.plugIn();
  await hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.state?.['chargingState'] === 'STOPPED');
  device.faults.rejecting = true; // takes the write, changes nothing
  const ignored = await hub.commandDone(hub.submit(CHARGER, 'CHARGING_START').id);
  assert.equal(ignored.state, 'FAILED');
  assert.match(ignored.failedReason ?? '', /did not confirm within 1 s/);
});

// The registry checks a binding when the device is opened; each mistake is named where it sits.
function refusal(binding: Record<string, unknown>): string {
  try {
    builtInMqttDrivers().definitionFor({ type: 'mqtt-generic', ...binding });
  } catch (err) {
    return (err as Error).message;
  }
  assert.fail('the binding was accepted');
}

test('mqtt-generic: a well-formed binding becomes a definition with the binding\'s commands', () => {
  const definition = builtInMqttDrivers().definitionFor(BINDING);
  assert.equal(definition.type, 'mqtt-generic');
  assert.deepEqual(Object.keys(definition.commands ?? {}).sort(), ['CHARGING_START', 'CHARGING_STOP', 'SET_CHARGING_CURRENT']);
  assert.equal(builtInMqttDrivers().definitionFor({ ...BINDING, chargerId: CHARGER }).type, 'mqtt-generic', 'chargerId is the hub\'s own key');
});

test('mqtt-generic: a malformed binding is refused with a message that names each mistake', () => {
  assert.equal(refusal({}), 'driver mqtt-generic: the binding does not describe a usable device (state: is missing)');
  assert.match(refusal({ state: [{ topic: 'home/#', format: 'json', fields: {} }] }), /state\[0\]\.topic: must not contain MQTT wildcards/);
  assert.match(
    refusal({ state: [{ topic: 'a', format: 'json', fields: { power: { as: 'float' } } }] }),
    /state\[0\]\.fields\.power\.as: .*"number"/,
  );
  assert.match(refusal({ ...BINDING, comands: {} }), /Unrecognized key.*"comands"/);
  assert.match(
    refusal({ ...BINDING, commands: { CHARGING_START: { ...BINDING.commands.CHARGING_START, confirm: { by: 'state', field: 'running' } } } }),
    /command CHARGING_START is confirmed by field running, which no state topic gives/,
  );
  assert.match(refusal({ ...BINDING, state: [{ ...BINDING.state[0], topic: 'home/{serial}/state' }] }), /uses \{serial\}, which is not a setting/);
  assert.match(refusal({ ...BINDING, commands: { OPEN_DOOR: BINDING.commands.CHARGING_START } }), /commands: Unrecognized key: "OPEN_DOOR"/);
});

/** The simulated device speaks MQTT 5, which needs mosquitto; the embedded fallback broker speaks 3.1.1 only. */
async function brokerHasMqtt5(t: import('node:test').TestContext): Promise<boolean> {
  return !skippedWithout(t, 'mosquitto');
}
