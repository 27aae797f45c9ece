// The CarConnectivity definition (VW group cars) against a simulator that publishes what the
// CarConnectivity MQTT plugin publishes (plugin @3bd53dc, CarConnectivity @9dfda1e), through a real
// broker and a whole hub: telemetry with the state of charge of the electric drive (a plug-in
// hybrid's primary drive is its tank), the plugin's last will and the connector's healthy flag, and
// charging start/stop confirmed by the plugin's own answer (error/code, error/message) without
// waiting for the connector's next fetch from the cloud.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CarConnectivitySim, type CarConnectivityOptions } from '../../../src/sim/mqtt/carconnectivity-sim.ts';
import { drivenRecord, startMqttHub } from '../../support/mqtt-hub.ts';

const VEHICLE = '8b3c4d5e-0000-4000-8000-00000000e001';
const VIN = 'TMBJR7NX0PY000001';

async function setup(t: import('node:test').TestContext, config: Record<string, unknown> = {}, options: CarConnectivityOptions = {}) {
  const hub = await startMqttHub(t, { records: [drivenRecord('vehicle', VEHICLE, 'SKODA', { type: 'carconnectivity', vin: VIN })], config });
  // The connector's id is its type unless configured: skoda for a Škoda (the binding's default by vendor).
  const car = new CarConnectivitySim(hub.broker.url, { vin: VIN, connectorId: 'skoda', ...options });
  t.after(() => car.stop());
  const online = hub.event((e) => e.type === 'update' && e.device.id === VEHICLE && e.device.isOnline && e.device.state?.['chargingState'] === 'STOPPED'
    && e.device.state?.['stateOfCharge'] !== undefined);
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
    lastUpdated: undefined, stateOfCharge: 52, rangeKm: 210, chargeLimit: 80, chargingState: 'PREPARING', chargeRate: 0, isPlugged: true,
  });
});

test('carconnectivity: GET /vehicles/{id} shows the state of charge and range of its electric drive, and the VIN it is reached by', async (t) => {
  const { hub, car } = await setup(t);
  const plugged = hub.event((e) => e.type === 'update' && e.device.id === VEHICLE && e.device.state?.['isPlugged'] === true);
  await car.plugIn();
  await plugged;
  const res = await hub.api(`/vehicles/${VEHICLE}`);
  assert.equal(res.status, 200);
  const body = (await res.json()) as Record<string, any>;
  assert.equal(body.staticData.vin, VIN);
  assert.deepEqual({ ...body.chargeState, lastUpdated: undefined }, {
    lastUpdated: undefined, stateOfCharge: 52, estimatedRange: 210, chargeRate: 0, chargeLimitMax: 80, isPlugged: true, chargingState: 'PREPARING',
  });
  assert.equal(body.chargeState.lastUpdated, body.lastUpdated);
  // The bridge reports no odometer, position or climate: those objects are absent, not empty.
  assert.deepEqual(['odometer', 'location', 'climateState'].filter((key) => key in body), []);
  const listed = (await (await hub.api(`/vehicles?vin=${VIN.slice(0, 6).toLowerCase()}`)).json()) as Record<string, any>;
  assert.deepEqual(listed.content.map((v: Record<string, unknown>) => v['vin']), [VIN]);
});

test('carconnectivity: a plug-in hybrid\'s state of charge is its battery\'s (the secondary, electric drive), not the fuel tank\'s', async (t) => {
  const { hub } = await setup(t, {}, { hybrid: true });
  const state = hub.device(VEHICLE)!.state!;
  assert.equal(state['stateOfCharge'], 41);
  assert.equal(state['rangeKm'], 24);
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

test('carconnectivity: a connector that no longer gets through to the cloud (healthy False) shows the car offline, and it comes back', async (t) => {
  const { hub, car } = await setup(t);
  const offline = hub.event((e) => e.type === 'offline' && e.device.id === VEHICLE);
  await car.setHealthy(false);
  await offline;
  assert.equal(hub.device(VEHICLE)!.isOnline, false);
  const back = hub.event((e) => e.type === 'update' && e.device.id === VEHICLE && e.device.isOnline);
  await car.setHealthy(true);
  await back;
});

test('carconnectivity: CHARGING_START and CHARGING_STOP are confirmed by the plugin\'s answer (error/code 0), long before the next cloud fetch', async (t) => {
  // The connector fetches every 300–600 s upstream: here never, unless asked.
  const { hub, car } = await setup(t, { commands: { confirmTimeoutSeconds: 5 } });
  await car.plugIn();
  const started = await hub.commandDone(hub.submit(VEHICLE, 'CHARGING_START').id);
  assert.equal(started.state, 'EXECUTED', started.failedReason ?? '');
  assert.equal(car.state.chargingState, 'ready_for_charging', 'confirmed before the cloud reported anything new');
  // The car's state follows with the fetch.
  const charging = hub.event((e) => e.type === 'update' && e.device.id === VEHICLE && e.device.state?.['chargingState'] === 'CHARGING');
  await car.fetch();
  await charging;
  const stopped = await hub.commandDone(hub.submit(VEHICLE, 'CHARGING_STOP').id);
  assert.equal(stopped.state, 'EXECUTED', stopped.failedReason ?? '');
  assert.deepEqual(car.received.map((m) => m.payload), ['start', 'stop']);
  assert.ok(car.received.every((m) => m.topic === `carconnectivity/0/garage/${VIN}/charging/commands/start-stop_writetopic`));
});

test('carconnectivity: a command the cloud refuses fails at once with the plugin\'s message', async (t) => {
  const { hub, car } = await setup(t);
  // Not plugged in: the connector's cloud call fails.
  const unplugged = await hub.commandDone(hub.submit(VEHICLE, 'CHARGING_START').id);
  assert.equal(unplugged.state, 'FAILED');
  assert.match(unplugged.failedReason ?? '', /rejected the command: Error executing command: Could not control charging \(car not connected\)/);
  await car.plugIn();
  car.faults.rejecting = true;
  const refused = await hub.commandDone(hub.submit(VEHICLE, 'CHARGING_START').id);
  assert.equal(refused.state, 'FAILED');
  assert.match(refused.failedReason ?? '', /403: Forbidden/);
});

test('carconnectivity: a plugin that does not answer fails the command after the confirmation time', async (t) => {
  const { hub, car } = await setup(t, { commands: { confirmTimeoutSeconds: 1 } });
  car.faults.silent = true;
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
