// BMW CarData end to end without the internet: BMW's login service (src/sim/cloud/cardata-auth-sim.ts,
// HTTPS with a test CA) and BMW's stream broker (a mosquitto with TLS and a password, the GCID as user
// and the id token as password) publishing the documented message shape with its string values.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { Store } from '../../../src/store/store.ts';
import { prepareImport } from '../../../src/domain/import.ts';
import { silentLogger } from '../../../src/log.ts';
import { systemClock } from '../../../src/domain/time.ts';
import { CloudRuntime } from '../../../src/runtime/cloud/cloud-runtime.ts';
import type { StreamStatus } from '../../../src/runtime/cloud/cardata-stream.ts';
import { builtInCloudDrivers } from '../../../drivers/cloud/index.ts';
import { CardataAuthSim, cardataMessage } from '../../../src/sim/cloud/cardata-auth-sim.ts';
import { vehicleDetail } from '../../../src/runtime/values/present.ts';
import { startBroker, type TestBroker } from '../../support/broker.ts';
import { startTakeoverBroker, type TakeoverBroker } from '../../support/takeover-broker.ts';
import { makeCertificates } from '../../support/tls.ts';
import { skippedWithout } from '../../support/peers.ts';
import { until } from '../support.ts';

const GCID = '34ddc38-93220-423330-93101-fcd292373';
const VIN = 'WBY11HH0000000001';
const CLIENT_ID = 'cardata-client-1';
const CAR = '0b5c4a2e-6a43-4b8e-9d43-9b2f6f4c1a01';

interface Setup {
  sim: CardataAuthSim;
  broker: TestBroker;
  /** The broker that says "Session taken over", where the setup asked for it (the stream goes there). */
  takeover?: TakeoverBroker;
  store: Store;
  runtime: CloudRuntime;
  statuses: EventEmitter;
  ca: string;
  endpoints: { bmwCardata: { authUrl: string; apiUrl: string; streamUrl: string; ca: string } };
}

async function setup(t: TestContext, options: { idTokens?: string[]; expiresInSeconds?: number; renewBeforeMs?: number; withoutLogin?: boolean; takeover?: boolean } = {}): Promise<Setup> {
  const certs = makeCertificates(mkdtempSync(join(tmpdir(), 'hub-cardata-')));
  const ca = readFileSync(certs.caFile, 'utf8');
  const sim = new CardataAuthSim({ clientId: CLIENT_ID, gcid: GCID, idTokens: options.idTokens ?? ['id-token-1'], expiresInSeconds: options.expiresInSeconds });
  await sim.start({ tls: { cert: readFileSync(certs.serverCertFile), key: readFileSync(certs.serverKeyFile) } });
  t.after(() => sim.stop());
  // BMW's broker takes the GCID with the current id token; the test's takes the last one the sim hands out.
  const broker = await startBroker({ tls: certs, users: { [GCID]: (options.idTokens ?? ['id-token-1']).at(-1)!, bystander: 'other' } });
  t.after(() => broker.stop());
  const takeover = options.takeover ? await startTakeoverBroker(certs) : undefined;
  if (takeover) t.after(() => takeover.stop());
  const store = Store.open(':memory:');
  const prepared = prepareImport([{
    kind: 'vehicle', id: CAR, userId: 'u1', isOnline: false, staticData: { vendor: 'BMW', name: 'i4' },
    driver: { type: 'bmw-cardata', clientId: CLIENT_ID, vin: VIN, gcid: GCID, ...(options.withoutLogin ? {} : { refreshToken: sim.validRefreshToken }) },
  }], Date.now(), () => undefined);
  store.importDevices(prepared.devices, prepared.images, Date.now());
  const endpoints = { bmwCardata: { authUrl: `https://localhost:${sim.port}`, apiUrl: `https://localhost:${sim.port}`, streamUrl: `mqtts://localhost:${takeover?.port ?? broker.port}`, ca } };
  const runtime = new CloudRuntime({
    store, definitions: builtInCloudDrivers(), clock: systemClock, log: silentLogger(), endpoints,
    settings: { flushMs: 20, stream: { renewBeforeMs: options.renewBeforeMs ?? 60_000, backoff: { initialMs: 50, maxMs: 200 } } },
  });
  const statuses = new EventEmitter();
  runtime.onStatus = (_id, status) => statuses.emit('status', status);
  t.after(async () => {
    await runtime.stop();
    store.close();
  });
  return { sim, broker, takeover, store, runtime, statuses, ca, endpoints };
}

const state = (want: StreamStatus['state']) => (status: StreamStatus) => status.state === want;

async function publishAsCar(broker: TestBroker, ca: string, payload: string): Promise<void> {
  // BMW's side of the stream: a client of the test broker that is not the hub.
  const client = await mqtt.connectAsync(`mqtts://localhost:${broker.port}`, { username: 'bystander', password: 'other', ca, clientId: 'bmw-backend', protocolVersion: 5 });
  await client.publishAsync(`${GCID}/${VIN}`, payload, { qos: 1 });
  await client.endAsync();
}

async function stateOf(store: Store, runtime: CloudRuntime, match: (detail: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 5000;
  for (;;) {
    runtime.writer.flush();
    const detail = vehicleDetail(store.devices.get(CAR)!) as Record<string, unknown>;
    if (match(detail)) return detail;
    if (Date.now() > deadline) assert.fail(`the car's detail never matched: ${JSON.stringify(detail)}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test('the stream\'s string values become the car\'s charge state and odometer; the rotated refresh token is stored', async (t) => {
  if (skippedWithout(t, 'mosquitto')) return;
  const { sim, broker, store, runtime, statuses, ca } = await setup(t);
  runtime.start();
  await until(statuses, 'status', state('streaming'));
  // The refresh at start rotated the token: the binding holds the one BMW takes now, the old one is gone.
  assert.equal(store.devices.get(CAR)!.driver!['refreshToken'], sim.validRefreshToken);
  await publishAsCar(broker, ca, cardataMessage(GCID, VIN, {
    'vehicle.drivetrain.batteryManagement.header': '47',
    'vehicle.drivetrain.electricEngine.kombiRemainingElectricRange': '212',
    'vehicle.drivetrain.electricEngine.charging.status': 'CHARGINGACTIVE',
    'vehicle.body.chargingPort.status': 'CONNECTED',
    'vehicle.powertrain.electric.battery.charging.power': '7400',
    'vehicle.vehicle.travelledDistance': '18234',
  }));
  const detail = await stateOf(store, runtime, (d) => d['odometer'] !== undefined);
  const charge = detail['chargeState'] as Record<string, unknown>;
  assert.deepEqual({ ...charge, lastUpdated: undefined }, {
    lastUpdated: undefined, stateOfCharge: 47, estimatedRange: 212, chargeRate: 7.4, isPlugged: true, chargingState: 'CHARGING',
  });
  assert.equal((detail['odometer'] as Record<string, unknown>)['odometer'], 18234);
  assert.equal(detail['isOnline'], true);
  // A delta carries only what changed; null is "not available" and keeps the last value.
  await publishAsCar(broker, ca, cardataMessage(GCID, VIN, {
    'vehicle.drivetrain.electricEngine.charging.status': 'CHARGINGENDED', 'vehicle.drivetrain.batteryManagement.header': null,
  }));
  const later = await stateOf(store, runtime, (d) => (d['chargeState'] as Record<string, unknown>)['chargingState'] === 'FINISHED');
  assert.equal((later['chargeState'] as Record<string, unknown>)['stateOfCharge'], 47);
  // Unplugged: BMW says NOCHARGING ("no charging process") and the port DISCONNECTED: the origin's UNPLUGGED.
  await publishAsCar(broker, ca, cardataMessage(GCID, VIN, {
    'vehicle.drivetrain.electricEngine.charging.status': 'NOCHARGING', 'vehicle.body.chargingPort.status': 'DISCONNECTED',
  }));
  const unplugged = await stateOf(store, runtime, (d) => (d['chargeState'] as Record<string, unknown>)['isPlugged'] === false);
  assert.equal((unplugged['chargeState'] as Record<string, unknown>)['chargingState'], 'UNPLUGGED');
  // Plugged in again and not charging yet: STOPPED.
  await publishAsCar(broker, ca, cardataMessage(GCID, VIN, { 'vehicle.body.chargingPort.status': 'CONNECTED' }));
  const plugged = await stateOf(store, runtime, (d) => (d['chargeState'] as Record<string, unknown>)['isPlugged'] === true);
  assert.equal((plugged['chargeState'] as Record<string, unknown>)['chargingState'], 'STOPPED');
  assert.equal(runtime.supportedCommands().length, 0);
});

test('tokens are renewed before the id token runs out, and the stream reconnects with the new password', async (t) => {
  if (skippedWithout(t, 'mosquitto')) return;
  // Tokens that last 3 s, renewed 2.7 s before: a new login about every 0.3 s.
  const { sim, store, runtime, statuses } = await setup(t, { expiresInSeconds: 3, renewBeforeMs: 2700 });
  runtime.start();
  await until<StreamStatus>(statuses, 'status', (s) => s.state === 'streaming' && sim.refreshes >= 3);
  assert.equal(store.devices.get(CAR)!.driver!['refreshToken'], sim.validRefreshToken);
});

test('a stream password the broker refuses is answered with new tokens, not the same one again', async (t) => {
  if (skippedWithout(t, 'mosquitto')) return;
  const { sim, runtime, statuses } = await setup(t, { idTokens: ['stale-id-token', 'id-token-2'] });
  runtime.start();
  await until(statuses, 'status', state('retrying'));
  await until(statuses, 'status', state('streaming'));
  assert.equal(sim.refreshes, 2);
});

test('a refused refresh (a revoked or lapsed login) leaves the car offline with a new login due, and nothing is tried again', async (t) => {
  if (skippedWithout(t, 'mosquitto')) return;
  const { sim, store, runtime, statuses } = await setup(t);
  sim.revoked = true;
  runtime.start();
  const status = await until<StreamStatus>(statuses, 'status', state('loginDue'));
  assert.match((status as { reason: string }).reason, /BMW refused the login \(invalid_grant.*connect the car again/);
  const requests = sim.requests.length;
  runtime.writer.flush();
  assert.equal(store.devices.get(CAR)!.isOnline, false);
  assert.equal(runtime.status(CAR)!.state, 'loginDue');
  assert.equal(sim.requests.length, requests);
});

test('a lost stream connection is made again', async (t) => {
  if (skippedWithout(t, 'mosquitto')) return;
  const { broker, runtime, statuses } = await setup(t);
  runtime.start();
  await until(statuses, 'status', state('streaming'));
  const lost = until<StreamStatus>(statuses, 'status', state('retrying'));
  await broker.restart();
  const retrying = await lost;
  assert.match((retrying as { reason: string }).reason, /lost/);
  await until(statuses, 'status', state('streaming'));
});

test('a stream the broker says was taken over (DISCONNECT 0x8E) is left to the other client, and the owner is told why', async (t) => {
  if (skippedWithout(t, 'mosquitto')) return; // the TLS broker of the rest of the setup
  const { takeover, store, runtime, statuses } = await setup(t, { takeover: true });
  runtime.start();
  await until(statuses, 'status', state('streaming'));
  assert.equal(takeover!.connects, 1);
  // An evcc on the same BMW account connected with the GCID: the broker tells the hub so.
  const takenOver = until<StreamStatus>(statuses, 'status', state('takenOver'));
  takeover!.takeOver();
  const status = await takenOver;
  assert.match((status as { reason: string }).reason, /another client .* took over the CarData stream/);
  runtime.writer.flush();
  assert.equal(store.devices.get(CAR)!.isOnline, false);
  // Left to the other client: no new connection within many back-off steps (50-200 ms each).
  await assert.rejects(until(statuses, 'status', state('connecting'), 1500), { name: 'AbortError' });
  assert.equal(takeover!.connects, 1);
  assert.equal(runtime.status(CAR)!.state, 'takenOver');
});

test('a connection lost without a word, even right after the hub\'s own token renewal, is taken back, never taken for a takeover', async (t) => {
  if (skippedWithout(t, 'mosquitto')) return;
  // Tokens that last 3 s, renewed 2.7 s before: every connection is a fresh one, made by a renewal.
  const { sim, broker, runtime, statuses } = await setup(t, { expiresInSeconds: 3, renewBeforeMs: 2700 });
  const seen: StreamStatus[] = [];
  statuses.on('status', (status: StreamStatus) => seen.push(status));
  runtime.start();
  // Two hiccups of the broker (mosquitto closes without a DISCONNECT), each right after a renewal.
  for (let hiccup = 0; hiccup < 2; hiccup++) {
    const renewals = sim.refreshes;
    await until<StreamStatus>(statuses, 'status', (s) => s.state === 'streaming' && sim.refreshes > renewals);
    const lost = until<StreamStatus>(statuses, 'status', state('retrying'));
    await broker.restart();
    assert.match(((await lost) as { reason: string }).reason, /lost/);
  }
  await until(statuses, 'status', state('streaming'));
  assert.deepEqual(seen.filter((s) => s.state === 'takenOver'), []);
});

test('one REST snapshot at start fills the car before its first stream message; the container is made once and its id kept', async (t) => {
  if (skippedWithout(t, 'mosquitto')) return;
  const { sim, store, runtime, statuses, endpoints } = await setup(t);
  sim.telematicData = { 'vehicle.drivetrain.batteryManagement.header': '62', 'vehicle.vehicle.travelledDistance': '18000', 'vehicle.body.chargingPort.status': null };
  runtime.start();
  await until(statuses, 'status', state('streaming'));
  const detail = await stateOf(store, runtime, (d) => d['odometer'] !== undefined);
  assert.equal((detail['chargeState'] as Record<string, unknown>)['stateOfCharge'], 62);
  assert.equal((detail['chargeState'] as Record<string, unknown>)['isPlugged'], undefined);
  assert.equal(sim.restCalls, 3); // the container list, the new container, the snapshot
  assert.equal(sim.containers.length, 1);
  assert.ok(sim.containers[0]!.technicalDescriptors.includes('vehicle.drivetrain.electricEngine.charging.status'));
  assert.equal(store.devices.get(CAR)!.driver!['containerId'], 'container-1');
  // The next start (the hub restarted) costs one REST call: the container's id is in the binding.
  await runtime.stop();
  const again = new CloudRuntime({ store, definitions: builtInCloudDrivers(), clock: systemClock, log: silentLogger(), endpoints });
  t.after(() => again.stop());
  const restCalls = sim.restCalls;
  const requests = sim.requests.length;
  again.start();
  // The token refresh, then straight to the snapshot with the stored container.
  await sim.requestsReach(requests + 2);
  assert.equal(sim.requests[requests + 1]!.path, `/customers/vehicles/${VIN}/telematicData`);
  assert.equal(sim.requests[requests + 1]!.query.get('containerId'), 'container-1');
  assert.equal(sim.restCalls, restCalls + 1);
  assert.equal(sim.containers.length, 1);
});

test('a snapshot refused for the day (CU-429) is not tried again; the stream carries on', async (t) => {
  if (skippedWithout(t, 'mosquitto')) return;
  const { sim, broker, store, runtime, statuses, ca } = await setup(t);
  sim.restLimit = 0;
  runtime.start();
  await until(statuses, 'status', state('streaming'));
  await publishAsCar(broker, ca, cardataMessage(GCID, VIN, { 'vehicle.drivetrain.batteryManagement.header': '47' }));
  await stateOf(store, runtime, (d) => (d['chargeState'] as Record<string, unknown> | undefined)?.['stateOfCharge'] === 47);
  assert.equal(sim.restCalls, 1);
  assert.equal(runtime.status(CAR)!.state, 'streaming');
});

test('a car imported without its login (an export leaves it out) asks for one and calls BMW not at all', async (t) => {
  if (skippedWithout(t, 'mosquitto')) return;
  const { sim, runtime, statuses } = await setup(t, { withoutLogin: true });
  runtime.start();
  const due = await until<StreamStatus>(statuses, 'status', state('loginDue'));
  assert.match((due as { reason: string }).reason, /no BMW login on this hub/);
  assert.equal(sim.requests.length, 0);
});
