// The CarConnectivity definition (VW group cars) against a simulator that publishes what the
// CarConnectivity MQTT plugin publishes, through a real broker and a whole hub: telemetry, the
// plugin's last will, and charging start/stop confirmed only by the car's new charging state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CarConnectivitySim } from '../../../src/sim/mqtt/carconnectivity-sim.ts';
import { drivenRecord, startMqttHub } from '../../support/mqtt-hub.ts';

const VEHICLE = '8b3c4d5e-0000-4000-8000-00000000e001';
const VIN = 'TMBJR7NX0PY000001';

async function setup(t: import('node:test').TestContext, config: Record<string, unknown> = {}) {
  const hub = await startMqttHub(t, { records: [drivenRecord('vehicle', VEHICLE, 'SKODA', { type: 'carconnectivity', vin: VIN })], config });
  const car = new CarConnectivitySim(hub.broker.url, VIN);
  t.after(() => car.stop());
  const online = hub.event((e) => e.type === 'update' && e.device.id === VEHICLE && e.device.isOnline && e.device.state?.['chargingState'] === 'STOPPED');
  await car.start();
  await online;
  return { hub, car };
}

test('carconnectivity: the car\'s topics become its telemetry', async (t) => {
  const { hub, car } = await setup(t);
  const plugged = hub.event((e) => e.type === 'update' && e.device.id === VEHICLE && e.device.state?.['isPlugged'] === true);
  await car.plugIn();
  await plugged;
  assert.deepEqual({ ...hub.device(VEHICLE)!.state, lastUpdated: undefined }, {
    lastUpdated: undefined, stateOfCharge: 52, chargeLimit: 80, chargingState: 'PREPARING', isCharging: false, chargeRate: 0, isPlugged: true,
  });
});

test('carconnectivity: the plugin\'s last will marks the car offline', async (t) => {
  const { hub, car } = await setup(t);
  const offline = hub.event((e) => e.type === 'offline' && e.device.id === VEHICLE);
  car.drop();
  await offline;
  const back = hub.event((e) => e.type === 'update' && e.device.id === VEHICLE && e.device.isOnline);
  await car.start();
  await back;
});

test('carconnectivity: CHARGING_START and CHARGING_STOP are written to start-stop and confirmed by the charging state', async (t) => {
  const { hub, car } = await setup(t);
  await car.plugIn();
  // The cloud round trip: the new state comes a while after the command.
  car.faults.delayMs = 300;
  const started = await hub.commandDone(hub.submit(VEHICLE, 'CHARGING_START').id);
  assert.equal(started.state, 'EXECUTED', started.failedReason ?? '');
  assert.equal(car.state.chargingState, 'charging');
  const stopped = await hub.commandDone(hub.submit(VEHICLE, 'CHARGING_STOP').id);
  assert.equal(stopped.state, 'EXECUTED', stopped.failedReason ?? '');
  assert.deepEqual(car.received.map((m) => m.payload), ['start', 'stop']);
  assert.ok(car.received.every((m) => m.topic === `carconnectivity/0/garage/${VIN}/charging/commands/start-stop_writetopic`));
});

test('carconnectivity: a car that does not start charging fails the command after the confirmation time', async (t) => {
  const { hub, car } = await setup(t, { commands: { confirmTimeoutSeconds: 1 } });
  // Not plugged in: the cloud takes the command, the car never starts.
  const failed = await hub.commandDone(hub.submit(VEHICLE, 'CHARGING_START').id);
  assert.equal(failed.state, 'FAILED');
  assert.match(failed.failedReason ?? '', /did not confirm within 1 s/);
  assert.equal(car.received.length, 1);
});

test('carconnectivity: SET_CHARGING_CURRENT is not the car\'s: without a charger it fails with a reason', async (t) => {
  const { hub, car } = await setup(t);
  const failed = await hub.commandDone(hub.submit(VEHICLE, 'SET_CHARGING_CURRENT', { current: 10 }).id);
  assert.equal(failed.state, 'FAILED');
  assert.match(failed.failedReason ?? '', /SET_CHARGING_CURRENT is not supported: the vehicle's driver \(carconnectivity\) cannot do it, and no charger/);
  assert.equal(car.received.length, 0);
});
