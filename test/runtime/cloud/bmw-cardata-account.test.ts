// Two BMWs of one CarData account (one client id, one GCID) against BMW's login service as a
// simulator and a mosquitto with TLS and a password as BMW's broker: BMW allows one stream
// connection per account and rotates the refresh token at every refresh, so the cars share one
// connection and one login (cardata-stream.ts, account-login.ts). The broker's log shows what it saw.
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
import type { CloudStatus } from '../../../src/runtime/cloud/cloud-session.ts';
import { builtInCloudDrivers } from '../../../drivers/cloud/index.ts';
import { CardataAuthSim, cardataMessage } from '../../../src/sim/cloud/cardata-auth-sim.ts';
import { vehicleDetail } from '../../../src/runtime/values/present.ts';
import { startBroker, type TestBroker } from '../../support/broker.ts';
import { startTakeoverBroker } from '../../support/takeover-broker.ts';
import { makeCertificates } from '../../support/tls.ts';
import { skippedWithout } from '../../support/peers.ts';

const GCID = '34ddc38-93220-423330-93101-fcd292374';
const CLIENT_ID = 'cardata-client-2';
const I4 = { id: '0b5c4a2e-6a43-4b8e-9d43-9b2f6f4c1b01', vin: 'WBY11HH0000000011' };
const MINI = { id: '0b5c4a2e-6a43-4b8e-9d43-9b2f6f4c1b02', vin: 'WMW11HH0000000012' };
type Car = typeof I4;

async function setup(t: TestContext, cars: Car[], options: { expiresInSeconds?: number; renewBeforeMs?: number; takeover?: boolean } = {}) {
  const certs = makeCertificates(mkdtempSync(join(tmpdir(), 'hub-cardata-account-')));
  const ca = readFileSync(certs.caFile, 'utf8');
  const sim = new CardataAuthSim({ clientId: CLIENT_ID, gcid: GCID, idTokens: ['id-token-1'], expiresInSeconds: options.expiresInSeconds });
  await sim.start({ tls: { cert: readFileSync(certs.serverCertFile), key: readFileSync(certs.serverKeyFile) } });
  t.after(() => sim.stop());
  const broker = await startBroker({ tls: certs, users: { [GCID]: 'id-token-1', bystander: 'other' } });
  t.after(() => broker.stop());
  // The broker that says "Session taken over" (mosquitto 2.0 says nothing), where the test needs that word.
  const takeover = options.takeover ? await startTakeoverBroker(certs) : undefined;
  if (takeover) t.after(() => takeover.stop());
  const store = Store.open(':memory:');
  const runtime = new CloudRuntime({
    store, definitions: builtInCloudDrivers(), clock: systemClock, log: silentLogger(),
    endpoints: { bmwCardata: { authUrl: `https://localhost:${sim.port}`, apiUrl: `https://localhost:${sim.port}`, streamUrl: `mqtts://localhost:${takeover?.port ?? broker.port}`, ca } },
    settings: { flushMs: 20, stream: { renewBeforeMs: options.renewBeforeMs ?? 60_000, backoff: { initialMs: 50, maxMs: 200 } } },
  });
  // Every status of every car, with the car's id.
  const statuses = new EventEmitter();
  const seen: { id: string; status: CloudStatus }[] = [];
  runtime.onStatus = (id, status) => {
    seen.push({ id, status });
    statuses.emit('status', id, status);
  };
  t.after(async () => {
    await runtime.stop();
    store.close();
  });
  // Each car connected with the same login: a copy of the account's refresh token in its binding.
  const addCars = (more: Car[], refreshToken = sim.validRefreshToken) => {
    const prepared = prepareImport(more.map((car) => ({
      kind: 'vehicle', id: car.id, userId: 'u1', isOnline: false, staticData: { vendor: car === MINI ? 'MINI' : 'BMW', name: car.vin.slice(-2) },
      driver: { type: 'bmw-cardata', clientId: CLIENT_ID, vin: car.vin, gcid: GCID, refreshToken },
    })), Date.now(), () => undefined);
    store.importDevices(prepared.devices, prepared.images, Date.now());
  };
  addCars(cars);
  return { sim, broker, takeover, store, runtime, statuses, seen, ca, addCars };
}

/** Resolves when every car of `ids` has had the status `want` (since the call); rejects after 5 s. */
function allReach(statuses: EventEmitter, ids: string[], want: CloudStatus['state']): Promise<void> {
  const waiting = new Set(ids);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cars still not ${want}: ${[...waiting].join(', ')}`)), 5000);
    const on = (id: string, status: CloudStatus) => {
      if (status.state === want) waiting.delete(id);
      if (waiting.size > 0) return;
      clearTimeout(timer);
      statuses.off('status', on);
      resolve();
    };
    statuses.on('status', on);
  });
}

/** The hub's connections to the broker as BMW's stream client (mosquitto logs each one it takes). */
const streamConnections = (broker: TestBroker) => broker.logLines!.filter((line) => line.includes('New client connected') && line.includes(` as ${GCID} `)).length;
/** Connections the broker closed because another came with the same client id (a takeover). */
const takeovers = (broker: TestBroker) => broker.logLines!.filter((line) => /already connected, closing old connection/.test(line)).length;

async function publishAsCar(broker: TestBroker, ca: string, vin: string, values: Record<string, string | null>): Promise<void> {
  const client = await mqtt.connectAsync(`mqtts://localhost:${broker.port}`, { username: 'bystander', password: 'other', ca, clientId: 'bmw-backend', protocolVersion: 5 });
  await client.publishAsync(`${GCID}/${vin}`, cardataMessage(GCID, vin, values), { qos: 1 });
  await client.endAsync();
}

/** Waits until the car's detail has `want` under `path` (chargeState.stateOfCharge, odometer.odometer). */
async function shows(store: Store, runtime: CloudRuntime, id: string, path: string, want: unknown): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    runtime.writer.flush();
    const detail = vehicleDetail(store.devices.get(id)!) as Record<string, any>;
    const [group, field] = path.split('.') as [string, string];
    if (detail[group]?.[field] === want) return;
    if (Date.now() > deadline) assert.fail(`car ${id} never showed ${path} ${String(want)}: ${JSON.stringify(detail[group])}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const socOf = (store: Store, runtime: CloudRuntime, id: string, want: number) => shows(store, runtime, id, 'chargeState.stateOfCharge', want);

const tokenOf = (store: Store, car: Car) => store.devices.get(car.id)!.driver!['refreshToken'];

test('two cars of one BMW account: one stream connection, one login; each car gets its own values, both bindings the rotated token', async (t) => {
  if (skippedWithout(t, 'mosquitto')) return;
  const { sim, broker, store, runtime, statuses, ca } = await setup(t, [I4, MINI]);
  sim.telematicData = { 'vehicle.vehicle.travelledDistance': '18000' };
  const streaming = allReach(statuses, [I4.id, MINI.id], 'streaming');
  runtime.start();
  await streaming;
  // Each car's REST snapshot, with the one container made for the account.
  await shows(store, runtime, I4.id, 'odometer.odometer', 18000);
  await shows(store, runtime, MINI.id, 'odometer.odometer', 18000);
  await publishAsCar(broker, ca, I4.vin, { 'vehicle.drivetrain.batteryManagement.header': '47' });
  await publishAsCar(broker, ca, MINI.vin, { 'vehicle.drivetrain.batteryManagement.header': '81' });
  await socOf(store, runtime, I4.id, 47);
  await socOf(store, runtime, MINI.id, 81);
  assert.equal(streamConnections(broker), 1);
  assert.equal(takeovers(broker), 0);
  // One refresh for the account; the token it spent is in neither binding any more.
  assert.equal(sim.refreshes, 1);
  assert.equal(sim.staleRefreshes, 0);
  assert.deepEqual([tokenOf(store, I4), tokenOf(store, MINI)], [sim.validRefreshToken, sim.validRefreshToken]);
  // One container for the account, its id in both bindings; one snapshot per car: four REST calls of BMW's 50 a day.
  assert.equal(sim.containers.length, 1);
  assert.deepEqual([I4, MINI].map((car) => store.devices.get(car.id)!.driver!['containerId']), ['container-1', 'container-1']);
  assert.deepEqual(sim.requests.filter((r) => r.path.endsWith('/telematicData')).map((r) => r.path).sort(), [I4, MINI].map((car) => `/customers/vehicles/${car.vin}/telematicData`));
  assert.equal(sim.restCalls, 4);
});

test('the account\'s tokens are renewed once for both cars: the spent token is never sent again, and the stream is never taken from itself', async (t) => {
  if (skippedWithout(t, 'mosquitto')) return;
  // Tokens that last 3 s, renewed 2.7 s before: a new login about every 0.3 s.
  const { sim, broker, store, runtime, statuses, seen } = await setup(t, [I4, MINI], { expiresInSeconds: 3, renewBeforeMs: 2700 });
  runtime.start();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${sim.refreshes} refreshes`)), 10_000);
    statuses.on('status', (_id: string, status: CloudStatus) => {
      if (status.state !== 'streaming' || sim.refreshes < 4) return;
      clearTimeout(timer);
      resolve();
    });
  });
  assert.deepEqual([tokenOf(store, I4), tokenOf(store, MINI)], [sim.validRefreshToken, sim.validRefreshToken]);
  assert.equal(sim.staleRefreshes, 0);
  assert.equal(takeovers(broker), 0);
  assert.deepEqual(seen.filter((s) => s.status.state === 'takenOver' || s.status.state === 'loginDue'), []);
});

test('a car added to a streaming account joins its connection; a car deleted leaves it while the other streams on; the last one closes it', async (t) => {
  if (skippedWithout(t, 'mosquitto')) return;
  const { sim, broker, store, runtime, statuses, ca, addCars } = await setup(t, [I4]);
  const first = allReach(statuses, [I4.id], 'streaming');
  runtime.start();
  await first;
  // The connect page adds the account's second car with the login the first one holds now.
  const joined = allReach(statuses, [MINI.id], 'streaming');
  addCars([MINI], String(tokenOf(store, I4)));
  runtime.sync();
  await joined;
  await publishAsCar(broker, ca, MINI.vin, { 'vehicle.drivetrain.batteryManagement.header': '64' });
  await socOf(store, runtime, MINI.id, 64);
  assert.equal(streamConnections(broker), 1);

  store.deleteDevice(store.devices.get(I4.id)!, Date.now());
  runtime.sync();
  assert.equal(runtime.status(I4.id), undefined);
  assert.equal(runtime.status(MINI.id)!.state, 'streaming');
  await publishAsCar(broker, ca, MINI.vin, { 'vehicle.drivetrain.batteryManagement.header': '65' });
  await socOf(store, runtime, MINI.id, 65);
  assert.equal(streamConnections(broker), 1);
  assert.equal(sim.staleRefreshes, 0);

  const closed = new Promise<void>((resolve) => {
    broker.log!.on('line', (line: string) => { if (line.includes(GCID) && /disconnect|closed/i.test(line)) resolve(); });
  });
  store.deleteDevice(store.devices.get(MINI.id)!, Date.now());
  runtime.sync();
  await closed;
  assert.equal(runtime.status(MINI.id), undefined);
});

test('another client on the same account still takes the stream from both cars, and both say so', async (t) => {
  if (skippedWithout(t, 'mosquitto')) return; // the TLS broker of the rest of the setup
  const { takeover, runtime, statuses } = await setup(t, [I4, MINI], { takeover: true });
  const streaming = allReach(statuses, [I4.id, MINI.id], 'streaming');
  runtime.start();
  await streaming;
  const takenOver = allReach(statuses, [I4.id, MINI.id], 'takenOver');
  takeover!.takeOver();
  await takenOver;
  assert.match(runtime.attention().join('\n'), new RegExp(`vehicle ${I4.id}: another client .*\\nvehicle ${MINI.id}: another client`));
});
