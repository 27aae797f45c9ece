// The TeslaMate definition against a simulator that publishes what TeslaMate's MQTT integration
// documents, through a real broker and a whole hub: the car's telemetry, its health topic, and
// commands, which TeslaMate cannot take: they go through the charger the car is plugged into.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GoESim } from '../../../src/sim/mqtt/go-e-sim.ts';
import { TeslaMateSim } from '../../../src/sim/mqtt/teslamate-sim.ts';
import { drivenRecord, startMqttHub } from '../../support/mqtt-hub.ts';
import { startBroker } from '../../support/broker.ts';

const CHARGER = '7a2b3c4d-0000-4000-8000-00000000c001';
const VEHICLE = '7a2b3c4d-0000-4000-8000-00000000e001';

async function setup(t: import('node:test').TestContext, binding: Record<string, unknown> = {}, config: Record<string, unknown> = {}) {
  const hub = await startMqttHub(t, {
    records: [
      drivenRecord('charger', CHARGER, 'GO_E', { type: 'go-e', serial: '012345' }),
      drivenRecord('vehicle', VEHICLE, 'TESLA', { type: 'teslamate', carId: '1', chargerId: CHARGER, ...binding }),
    ],
    config,
  });
  const car = new TeslaMateSim(hub.broker.url, '1');
  const charger = new GoESim(hub.broker.url, '012345');
  t.after(() => car.stop());
  t.after(() => charger.stop());
  const carOnline = hub.event((e) => e.type === 'update' && e.device.id === VEHICLE && e.device.isOnline && e.device.state?.['isClimateOn'] === false);
  const chargerOnline = hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.isOnline);
  await car.start();
  await charger.start();
  await Promise.all([carOnline, chargerOnline]);
  return { hub, car, charger };
}

test('teslamate: the car\'s topics become its telemetry, and a charging session is seen', async (t) => {
  const { hub, car } = await setup(t);
  const stored = hub.device(VEHICLE)!;
  assert.equal(stored.isOnline, true);
  assert.ok(stored.lastUpdatedMs !== null && stored.lastUpdatedMs > Date.parse('2026-11-01T00:00:00Z'));
  assert.deepEqual({ ...stored.state, lastUpdated: undefined }, {
    lastUpdated: undefined, stateOfCharge: 64, chargeLimit: 80, chargingState: 'UNPLUGGED', isPlugged: false, rangeKm: 301.4,
    chargingTimeRemainingMinutes: 0, chargeCurrentMax: 16, odometerKm: 48211, latitude: 52.520008, longitude: 13.404954,
    insideTemperature: 19.5, isClimateOn: false,
  });

  const charging = hub.event((e) => e.type === 'update' && e.device.id === VEHICLE && e.device.state?.['chargingState'] === 'CHARGING');
  await car.startCharging(11.2, 16);
  const update = await charging;
  assert.equal(update.type === 'update' && update.device.state?.['chargeRate'], 11.2);
  assert.equal(hub.device(VEHICLE)!.state?.['chargeCurrent'], 16);
  assert.equal(hub.device(VEHICLE)!.state?.['isPlugged'], true);

  // TeslaMate empties charger_power when charging ends: the value is dropped, not kept stale.
  const stopped = hub.event((e) => e.type === 'update' && e.device.id === VEHICLE && e.device.state?.['chargeRate'] === undefined);
  await car.set('charger_power', null);
  await stopped;
});

test('teslamate: GET /vehicles/{id} shows the car\'s charge state, odometer, location and climate in the API\'s shape', async (t) => {
  const { hub, car } = await setup(t);
  const read = async () => {
    const res = await hub.api(`/vehicles/${VEHICLE}`);
    assert.equal(res.status, 200);
    return (await res.json()) as Record<string, any>;
  };
  const body = await read();
  const stamp = body.lastUpdated;
  assert.match(stamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.deepEqual(body.chargeState, {
    lastUpdated: stamp, stateOfCharge: 64, estimatedRange: 301, chargeLimitMax: 80, chargingTimeRemaining: 0, chargeCurrentMax: 16,
    isPlugged: false, chargingState: 'UNPLUGGED',
  });
  assert.deepEqual(body.odometer, { lastUpdated: stamp, odometer: 48211 });
  assert.deepEqual(body.location, { lastUpdated: stamp, latitude: 52.520008, longitude: 13.404954 });
  assert.deepEqual(body.climateState, { lastUpdated: stamp, isClimateOn: false, temperatureCurrent: 19.5 });
  const owned = (await (await hub.api(`/users/${body.userId}/vehicles/${VEHICLE}`)).json()) as Record<string, any>;
  assert.equal(owned.chargeState.stateOfCharge, 64);

  // Charging: the rate and the time left (TeslaMate's hours, in minutes) show; the car's actual current is no field of the API.
  const charging = hub.event((e) => e.type === 'update' && e.device.id === VEHICLE && e.device.state?.['chargingTimeRemainingMinutes'] === 110);
  await car.startCharging(11.2, 16);
  await car.set('time_to_full_charge', 1.83);
  await charging;
  const now = await read();
  assert.equal(now.chargeState.chargingState, 'CHARGING');
  assert.equal(now.chargeState.chargeRate, 11.2);
  assert.equal(now.chargeState.chargingTimeRemaining, 110);
  assert.equal(now.chargeState.isPlugged, true);
});

test('teslamate: healthy=false shows the car offline, healthy=true brings it back', async (t) => {
  const { hub, car } = await setup(t);
  const offline = hub.event((e) => e.type === 'offline' && e.device.id === VEHICLE);
  await car.set('healthy', false);
  await offline;
  assert.equal(hub.device(VEHICLE)!.isOnline, false);
  const back = hub.event((e) => e.type === 'update' && e.device.id === VEHICLE && e.device.isOnline);
  await car.set('healthy', true);
  await car.set('battery_level', 65);
  await back;
});

test('teslamate: a car not heard for longer than staleAfterSeconds is shown offline', async (t) => {
  const { hub } = await setup(t, { staleAfterSeconds: '1' });
  // TeslaMate says healthy, but the car has been silent longer than the binding allows.
  await hub.event((e) => e.type === 'offline' && e.device.id === VEHICLE, 10_000);
  assert.equal(hub.device(VEHICLE)!.isOnline, false);
});

test('teslamate: CHARGING_STOP of the car is carried out through its charger (binding chargerId)', async (t) => {
  const { hub, charger } = await setup(t);
  const plugged = hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.state?.['chargingState'] === 'CHARGING');
  await charger.plugIn();
  await plugged;
  const response = await hub.api(`/vehicles/${VEHICLE}/commands/charging-stop`, { method: 'POST' });
  assert.equal(response.status, 200);
  const command = (await response.json()) as { id: string; state: string };
  assert.equal(command.state, 'PENDING');
  const done = await hub.commandDone(command.id);
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
  assert.deepEqual(charger.received.filter((m) => m.topic.endsWith('/set')), [{ topic: 'go-eCharger/012345/frc/set', payload: '1' }]);
  assert.equal(charger.state.frc, 1);
});

test('teslamate: SET_CHARGING_SCHEDULE fails at once with a reason: TeslaMate takes no commands', async (t) => {
  const { hub, charger } = await setup(t);
  const done = await hub.commandDone(hub.submit(VEHICLE, 'SET_CHARGING_SCHEDULE', { schedules: [] }).id);
  assert.equal(done.state, 'FAILED');
  assert.match(done.failedReason ?? '', /SET_CHARGING_SCHEDULE is not supported.*teslamate.*accepts no commands/);
  assert.equal(charger.received.length, 0, 'nothing reaches the charger');

  // Through the API: answered FAILED at once with the reason, and told on the command events.
  const told = hub.event((e) => e.type === 'command' && e.command.type === 'SET_CHARGING_SCHEDULE' && e.command.state === 'FAILED' && e.command.id !== done.id);
  const res = await hub.api(`/vehicles/${VEHICLE}/commands/charging-schedule`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ schedules: [{ type: 'CHARGE', stateOfChargeTarget: 80, days: ['MONDAY'], start: '01:00', end: '06:00' }] }),
  });
  assert.equal(res.status, 200);
  const answered = (await res.json()) as { id: string; state: string; failedReason: string };
  assert.equal(answered.state, 'FAILED');
  assert.match(answered.failedReason, /no local path of this hub sets a vehicle's charging schedule \(SET_CHARGING_SCHEDULE is not offered for this device: what it offers is CHARGING_STOP, CHARGING_START, SET_CHARGING_CURRENT\)/);
  await told;
});

test('teslamate: healthy is not retained, so a hub that starts after TeslaMate shows the parked car online from its retained values', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const car = new TeslaMateSim(broker.url, '1');
  t.after(() => car.stop());
  await car.start();
  const hub = await startMqttHub(t, {
    broker,
    records: [drivenRecord('vehicle', VEHICLE, 'TESLA', { type: 'teslamate', carId: '1' })],
    config: { mqtt: { url: broker.url, protocolVersion: broker.supportsMqtt5 ? 5 : 4 } },
  });
  const online = hub.event((e) => e.type === 'update' && e.device.id === VEHICLE && e.device.isOnline && e.device.state?.['stateOfCharge'] === 64);
  await online;
  const offline = hub.event((e) => e.type === 'offline' && e.device.id === VEHICLE);
  await car.set('healthy', false);
  await offline;
});
