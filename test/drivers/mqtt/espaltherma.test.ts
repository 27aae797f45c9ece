// The ESPAltherma definition against a simulator that publishes what ESPAltherma's classic firmware
// publishes (raomin/ESPAltherma @10a1948), through a real broker and a whole hub: the ATTR object to
// stored telemetry, under the labels of real model definition files (test/fixtures/espaltherma, MIT),
// the LWT, the thermostat relay and Smart Grid confirmed by their echoes (the reconnect's sg/state 0
// is neither state nor answer), and the commands ESPAltherma cannot carry out failing with a reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { EspAlthermaSim, definitionLabels, type EspAlthermaOptions } from '../../../src/sim/mqtt/espaltherma-sim.ts';
import { drivenRecord, startMqttHub } from '../../support/mqtt-hub.ts';
import { until } from '../../support/process.ts';

const HEAT_PUMP = '7a1c0e00-0000-4000-8000-0000000da001';

async function setup(t: import('node:test').TestContext, config: Record<string, unknown> = {}, options: EspAlthermaOptions = {}) {
  const hub = await startMqttHub(t, {
    records: [drivenRecord('hvac', HEAT_PUMP, 'DAIKIN', { type: 'espaltherma' }, { type: 'HEATING_CIRCUIT' })],
    config,
  });
  const sim = new EspAlthermaSim(hub.broker.url, options);
  t.after(() => sim.stop());
  const online = hub.event((e) => e.type === 'update' && e.device.id === HEAT_PUMP && e.device.isOnline && e.device.state?.['outsideTemperature'] === 7.5);
  await sim.start();
  await online;
  return { hub, sim };
}

const commands = (sim: EspAlthermaSim) => sim.received.map((m) => `${m.topic} ${m.payload}`);

test('ESPAltherma: the labelled values of ATTR become the heat pump\'s telemetry', async (t) => {
  const { hub, sim } = await setup(t);
  const colder = hub.event((e) => e.type === 'update' && e.device.id === HEAT_PUMP && e.device.state?.['outsideTemperature'] === -3.5);
  sim.attributes['R1T-Outdoor air temp.'] = -3.5;
  sim.attributes['Operation Mode'] = 'Auto Heat';
  await sim.publishAttr();
  await colder;
  const { lastUpdated: _, ...telemetry } = hub.device(HEAT_PUMP)!.state!;
  assert.deepEqual(telemetry, {
    operationMode: 'Auto Heat', outsideTemperature: -3.5, roomTemperature: 21.2, leavingWaterTemperature: 35.1, inletWaterTemperature: 30.4,
    targetTemperature: 35, waterTemperature: 48.3, waterTargetTemperature: 50, errorCode: '00',
  });
  assert.equal(hub.device(HEAT_PUMP)!.isOnline, true);
  const vendors = (await (await hub.api('/connections/available-vendors')).json()) as { hvac: { id: string }[] };
  assert.ok(vendors.hvac.some((v) => v.id === 'DAIKIN'));
});

test('ESPAltherma: the last will (LWT Offline) marks the heat pump offline, and it comes back', async (t) => {
  const { hub, sim } = await setup(t);
  const offline = hub.event((e) => e.type === 'offline' && e.device.id === HEAT_PUMP);
  sim.drop();
  await offline;
  assert.equal(hub.device(HEAT_PUMP)?.isOnline, false);
  const back = hub.event((e) => e.type === 'update' && e.device.id === HEAT_PUMP && e.device.isOnline);
  await sim.start();
  await back;
});

test('ESPAltherma: SET_MODE switches the thermostat relay and POWER_BOOST sets Smart Grid 3, each confirmed by its echo', async (t) => {
  const { hub, sim } = await setup(t);
  const off = await hub.commandDone(hub.submit(HEAT_PUMP, 'SET_MODE', { mode: 'OFF' }).id);
  assert.equal(off.state, 'EXECUTED', off.failedReason ?? '');
  assert.equal(sim.thermostat, 'OFF');
  const heat = await hub.commandDone(hub.submit(HEAT_PUMP, 'SET_MODE', { mode: 'HEAT' }).id);
  assert.equal(heat.state, 'EXECUTED', heat.failedReason ?? '');
  const boost = await hub.commandDone(hub.submit(HEAT_PUMP, 'POWER_BOOST').id);
  assert.equal(boost.state, 'EXECUTED', boost.failedReason ?? '');
  assert.equal(sim.smartGridMode, 3);
  assert.deepEqual(commands(sim), ['espaltherma/POWER OFF', 'espaltherma/POWER ON', 'espaltherma/sg/set 3']);
});

test('ESPAltherma: setpoints are not supported, nor schedules with temperatures, modes without an equivalent fail, an unanswered command times out', async (t) => {
  const { hub, sim } = await setup(t, { commands: { confirmTimeoutSeconds: 1 } });
  const temperature = await hub.commandDone(hub.submit(HEAT_PUMP, 'SET_TEMPERATURE', { temperature: 21 }).id);
  assert.equal(temperature.state, 'FAILED');
  // SET_SCHEDULE: the hub runs the schedule itself (hub-schedules.ts).
  assert.equal(temperature.failedReason, 'SET_TEMPERATURE is not supported by the device\'s driver (espaltherma); it supports SET_MODE, POWER_BOOST, SET_SCHEDULE.');
  // The board keeps no program, so the hub runs one (hub-schedules.ts) through SET_MODE: modes only.
  const response = await hub.api(`/hvacs/${HEAT_PUMP}/commands/schedule`, {
    method: 'POST', json: { schedules: [{ mode: 'HEAT', temperature: 21, start: { day: 'MONDAY', time: '06:00' } }] },
  });
  const schedule = await hub.commandDone(((await response.json()) as { id: string }).id);
  assert.equal(schedule.state, 'FAILED');
  assert.match(schedule.failedReason ?? '', /can set the mode but not a temperature, and the schedule gives temperatures/);
  const cool = await hub.commandDone(hub.submit(HEAT_PUMP, 'SET_MODE', { mode: 'COOL' }).id);
  assert.equal(cool.state, 'FAILED');
  assert.match(cool.failedReason ?? '', /no equivalent of mode COOL; it accepts OFF, HEAT, AUTO/);
  assert.deepEqual(sim.received, [], 'nothing reaches the board');

  // A board built without Smart Grid relays, or one that lost the message, never echoes.
  sim.faults.silent = true;
  const silent = await hub.commandDone(hub.submit(HEAT_PUMP, 'SET_MODE', { mode: 'OFF' }).id);
  assert.equal(silent.state, 'FAILED');
  assert.match(silent.failedReason ?? '', /did not confirm within 1 s/);
});

/** Definition files of real models, and what each must give (the fields its labels carry). */
const MODELS: Record<string, string[]> = {
  'ALTHERMA(LT_CA_CB_04-08KW).h': ['outsideTemperature', 'roomTemperature', 'leavingWaterTemperature', 'inletWaterTemperature', 'targetTemperature', 'waterTemperature', 'waterTargetTemperature'],
  'DEFAULT.h': ['outsideTemperature', 'leavingWaterTemperature', 'inletWaterTemperature', 'targetTemperature', 'waterTemperature'],
  'ALTHERMA(HYBRID).h': ['outsideTemperature', 'leavingWaterTemperature', 'inletWaterTemperature', 'targetTemperature', 'waterTemperature', 'waterTargetTemperature'],
  'Altherma(LT_EBLQ-EBLQ-CA series 5-7kW Monobloc).h': ['outsideTemperature', 'leavingWaterTemperature', 'waterTemperature'],
  'Altherma(ERGA D EHSH-X P30-50 D series 04-08kW-ECH2O).h': ['outsideTemperature', 'leavingWaterTemperature', 'waterTemperature'],
  'PROTOCOL_S.h': ['outsideTemperature'],
};

for (const [file, fields] of Object.entries(MODELS)) {
  test(`ESPAltherma: the labels of ${file} give the outside temperature and the rest`, async (t) => {
    const labels = definitionLabels(readFileSync(new URL(`../../fixtures/espaltherma/${file}`, import.meta.url), 'utf8'));
    assert.ok(labels.length > 10, 'the file\'s labels were read');
    const { hub } = await setup(t, {}, { labels });
    const state = hub.device(HEAT_PUMP)!.state!;
    for (const field of fields) assert.equal(typeof state[field], 'number', `${field} from ${file}`);
    assert.equal(state['operationMode'], 'Heating');
  });
}

test('ESPAltherma: the sg/state 0 of a reconnect neither shows as the unit\'s state nor fails a boost that is waiting', async (t) => {
  const { hub, sim } = await setup(t, { commands: { confirmTimeoutSeconds: 5 } });
  // The board takes the boost, but the echo is late; meanwhile it reconnects and says 0.
  sim.faults.delayMs = 400;
  const boost = hub.submit(HEAT_PUMP, 'POWER_BOOST');
  await until('the boost at the board', () => sim.received.some((m) => m.topic === 'espaltherma/sg/set') || undefined);
  await sim.publish('espaltherma/sg/state', '0', false);
  const done = await hub.commandDone(boost.id);
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
  hub.daemon.mqtt!.flush();
  assert.equal(hub.device(HEAT_PUMP)!.state!['smartGridMode'], undefined, 'sg/state is not kept as the unit\'s state');
});

test('ESPAltherma: STATE is retained, so a hub started later knows the thermostat relay', async (t) => {
  const { hub, sim } = await setup(t);
  const off = await hub.commandDone(hub.submit(HEAT_PUMP, 'SET_MODE', { mode: 'OFF' }).id);
  assert.equal(off.state, 'EXECUTED', off.failedReason ?? '');
  const listener = await import('mqtt').then((m) => m.default.connectAsync(hub.broker.url));
  t.after(() => listener.endAsync(true));
  const retained = new Promise<string>((resolve) => listener.on('message', (topic, payload, packet) => packet.retain && resolve(payload.toString())));
  await listener.subscribeAsync(`${sim.prefix}/STATE`);
  assert.equal(await retained, 'OFF');
});
