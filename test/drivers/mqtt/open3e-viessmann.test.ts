// The open3e Viessmann definitions (heating circuit 1 and hot water) against a simulator that
// publishes what open3e's listener mode publishes with -j and the supported -mfstr, through a real
// broker and a whole hub: data points to stored telemetry, silence (open3e has no last will) to
// offline and back, writes on the command topic confirmed by the value read back, and writes the
// device ignores failing on their timeout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Open3eSim, type Open3eOptions } from '../../../src/sim/mqtt/open3e-sim.ts';
import { startBroker } from '../../support/broker.ts';
import { drivenRecord, startMqttHub } from '../../support/mqtt-hub.ts';

const CIRCUIT = '7a1c0e00-0000-4000-8000-00000000f301';
const DHW = '7a1c0e00-0000-4000-8000-00000000f302';

interface Setup {
  config?: Record<string, unknown>;
  binding?: Record<string, unknown>;
  sim?: Open3eOptions;
}

async function setup(t: import('node:test').TestContext, options: Setup = {}) {
  // The hub's own silence check runs every quarter of its default staleness: 5 s keeps it quick.
  const broker = await startBroker();
  const hub = await startMqttHub(t, {
    broker,
    records: [
      drivenRecord('hvac', CIRCUIT, 'VIESSMANN', { type: 'open3e-viessmann-circuit', ...options.binding }, { type: 'HEATING_CIRCUIT' }),
      drivenRecord('hvac', DHW, 'VIESSMANN', { type: 'open3e-viessmann-dhw', ...options.binding }, { type: 'DHW' }),
    ],
    config: { mqtt: { url: broker.url, protocolVersion: broker.supportsMqtt5 ? 5 : 4, staleAfterSeconds: 5 }, ...options.config },
  });
  t.after(() => broker.stop());
  const sim = new Open3eSim(broker.url, options.sim);
  t.after(() => sim.stop());
  const circuit = hub.event((e) => e.type === 'update' && e.device.id === CIRCUIT && e.device.isOnline && e.device.state?.['operationMode'] !== undefined);
  const dhw = hub.event((e) => e.type === 'update' && e.device.id === DHW && e.device.isOnline && e.device.state?.['targetTemperature'] !== undefined);
  await sim.start();
  await Promise.all([circuit, dhw]);
  return { hub, sim };
}

const commands = (sim: Open3eSim) => sim.received.map((m) => m.payload);

test('open3e: the data points\' JSON becomes the circuit\'s and the hot water\'s telemetry', async (t) => {
  const { hub } = await setup(t);
  const { lastUpdated: _c, ...circuit } = hub.device(CIRCUIT)!.state!;
  assert.deepEqual(circuit, {
    flowTemperature: 34.2, outsideTemperature: 6.3, targetTemperature: 23, standardTemperature: 21, reducedTemperature: 15,
    operationMode: 'Heating', operationState: 'Normal',
  });
  const { lastUpdated: _d, ...dhw } = hub.device(DHW)!.state!;
  assert.deepEqual(dhw, { waterTemperature: 47.1, outsideTemperature: 6.3, targetTemperature: 47.5 });
  const vendors = (await (await hub.api('/connections/available-vendors')).json()) as { hvac: { id: string }[] };
  assert.ok(vendors.hvac.some((v) => v.id === 'VIESSMANN'));
});

test('open3e: its last will (LWT offline, retained) marks both devices offline at once, and LWT online brings them back', async (t) => {
  const { hub, sim } = await setup(t);
  const circuitOff = hub.event((e) => e.type === 'offline' && e.device.id === CIRCUIT);
  const dhwOff = hub.event((e) => e.type === 'offline' && e.device.id === DHW);
  sim.drop();
  await Promise.all([circuitOff, dhwOff]);
  const back = hub.event((e) => e.type === 'update' && e.device.id === CIRCUIT && e.device.isOnline);
  await sim.start();
  await back;
});

test('open3e: while open3e runs but its CAN bus is silent, silence longer than staleAfterSeconds still marks the device offline, and messages bring it back', async (t) => {
  const { hub, sim } = await setup(t, { binding: { staleAfterSeconds: 1 }, sim: { intervalMs: 200 } });
  const offline = hub.event((e) => e.type === 'offline' && e.device.id === DHW);
  sim.faults.silent = true;
  await offline;
  assert.equal(hub.device(DHW)?.isOnline, false);
  const back = hub.event((e) => e.type === 'update' && e.device.id === DHW && e.device.isOnline);
  sim.faults.silent = false;
  await back;
});

test('open3e: a setpoint is written on the command topic, read back with read-json, and confirmed by the value read', async (t) => {
  const { hub, sim } = await setup(t);
  const water = await hub.commandDone(hub.submit(DHW, 'SET_TEMPERATURE', { temperature: 50 }).id);
  assert.equal(water.state, 'EXECUTED', water.failedReason ?? '');
  const room = await hub.commandDone(hub.submit(CIRCUIT, 'SET_TEMPERATURE', { temperature: 22.5 }).id);
  assert.equal(room.state, 'EXECUTED', room.failedReason ?? '');
  assert.deepEqual(commands(sim), [
    '{"mode":"write","data":[[396,50]],"addr":"0x680"}',
    '{"mode":"read-json","data":[396],"addr":"0x680"}',
    '{"mode":"write","data":[["424.Comfort",22.5]],"addr":"0x680"}',
    '{"mode":"read-json","data":[424],"addr":"0x680"}',
  ]);
  assert.equal(sim.points.get(396)!.value, 50);
  // Only the Comfort member changed; the others keep their values and their order.
  assert.deepEqual(Object.entries(sim.points.get(424)!.value), [['Comfort', 22.5], ['Standard', 21], ['Reduced', 15], ['Increased', 0], ['Duration', 0]]);
  hub.daemon.mqtt!.flush();
  assert.equal(hub.device(CIRCUIT)!.state!['targetTemperature'], 22.5);
});

test('open3e: a write the device ignores times out; modes without an equivalent and boosts are not supported', async (t) => {
  const { hub, sim } = await setup(t, { config: { commands: { confirmTimeoutSeconds: 1 } } });
  sim.faults.rejecting = true;
  const ignored = await hub.commandDone(hub.submit(DHW, 'SET_TEMPERATURE', { temperature: 55 }).id);
  assert.equal(ignored.state, 'FAILED');
  assert.match(ignored.failedReason ?? '', /did not confirm within 1 s/);
  assert.equal(sim.points.get(396)!.value, 47.5);

  const dry = await hub.commandDone(hub.submit(CIRCUIT, 'SET_MODE', { mode: 'DRY' }).id);
  assert.equal(dry.state, 'FAILED');
  assert.match(dry.failedReason ?? '', /no equivalent of mode DRY; it accepts OFF, HEAT, COOL, AUTO/);
  const boost = await hub.commandDone(hub.submit(DHW, 'POWER_BOOST').id);
  assert.equal(boost.state, 'FAILED');
  assert.match(boost.failedReason ?? '', /POWER_BOOST is not supported by the device's driver \(open3e-viessmann-dhw\)/);

  const tooHot = await hub.commandDone(hub.submit(DHW, 'SET_TEMPERATURE', { temperature: 75 }).id);
  assert.equal(tooHot.state, 'FAILED');
  assert.match(tooHot.failedReason ?? '', /outside what the device accepts \(10 to 60\)/);
  assert.equal(sim.received.filter((m) => m.payload.includes('75')).length, 0, 'an out-of-range value is never sent');
});

test('open3e: SET_MODE writes the mode\'s text to 1415.Mode (the enum encoder takes text), reads it back and is confirmed by it', async (t) => {
  const { hub, sim } = await setup(t);
  const auto = await hub.commandDone(hub.submit(CIRCUIT, 'SET_MODE', { mode: 'AUTO' }).id);
  assert.equal(auto.state, 'EXECUTED', auto.failedReason ?? '');
  assert.deepEqual(commands(sim), [
    '{"mode":"write","data":[["1415.Mode","Automatic"]],"addr":"0x680"}',
    '{"mode":"read-json","data":[1415],"addr":"0x680"}',
  ]);
  assert.deepEqual(sim.points.get(1415)!.value, { Mode: { ID: 255, Text: 'Automatic' }, State: { ID: 2, Text: 'Normal' } });
  const off = await hub.commandDone(hub.submit(CIRCUIT, 'SET_MODE', { mode: 'OFF' }).id);
  assert.equal(off.state, 'EXECUTED', off.failedReason ?? '');
  hub.daemon.mqtt!.flush();
  assert.equal(hub.device(CIRCUIT)!.state!['operationMode'], 'Off');
});
