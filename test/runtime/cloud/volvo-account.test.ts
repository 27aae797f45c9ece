// Two Volvos of one owner's API application against the Volvo Cars API simulator: Volvo rotates the
// refresh token at every refresh, so the cars share one login, refreshed once for both, and one poll
// loop (volvo-poller.ts, account-login.ts). Answers are Home Assistant core's fixtures.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../../src/store/store.ts';
import { prepareImport } from '../../../src/domain/import.ts';
import { silentLogger } from '../../../src/log.ts';
import { systemClock } from '../../../src/domain/time.ts';
import { CloudRuntime } from '../../../src/runtime/cloud/cloud-runtime.ts';
import type { CloudStatus } from '../../../src/runtime/cloud/cloud-session.ts';
import { authorizeUrl, exchangeCode } from '../../../src/runtime/cloud/volvo-api.ts';
import { builtInCloudDrivers } from '../../../drivers/cloud/index.ts';
import { VolvoApiSim } from '../../../src/sim/cloud/volvo-api-sim.ts';
import { vehicleDetail } from '../../../src/runtime/values/present.ts';
import { makeCertificates } from '../../support/tls.ts';

const XC40 = { id: '0b5c4a2e-6a43-4b8e-9d43-9b2f6f4c1c01', vin: 'YV1XZK9V0R0000011' };
const EX30 = { id: '0b5c4a2e-6a43-4b8e-9d43-9b2f6f4c1c02', vin: 'YV1EX30V0R0000012' };
type Car = typeof XC40;
const CLIENT = { clientId: 'volvo-app-2', clientSecret: 'volvo-secret', vccApiKey: 'vcc-key-2' };
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../fixtures/volvo/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;

async function setup(t: TestContext, logins: (sim: VolvoApiSim) => Record<string, Record<string, unknown>>, expiresInSeconds?: number) {
  const certs = makeCertificates(mkdtempSync(join(tmpdir(), 'hub-volvo-account-')));
  const ca = readFileSync(certs.caFile, 'utf8');
  const sim = new VolvoApiSim({
    ...CLIENT, vin: XC40.vin, energyState: fixture('xc40-energy-state.json'), odometer: fixture('odometer.json'), expiresInSeconds,
    moreCars: [{ vin: EX30.vin, energyState: fixture('ex30-energy-state.json'), odometer: fixture('odometer.json') }],
  });
  await sim.start({ tls: { cert: readFileSync(certs.serverCertFile), key: readFileSync(certs.serverKeyFile) } });
  t.after(() => sim.stop());
  const store = Store.open(':memory:');
  const login = logins(sim);
  const prepared = prepareImport([XC40, EX30].map((car) => ({
    kind: 'vehicle', id: car.id, userId: 'u1', isOnline: false, staticData: { vendor: 'VOLVO', name: car === XC40 ? 'XC40' : 'EX30' },
    driver: { type: 'volvo', vin: car.vin, ...CLIENT, ...login[car.id] },
  })), Date.now(), () => undefined);
  store.importDevices(prepared.devices, prepared.images, Date.now());
  const url = `https://localhost:${sim.port}`;
  const runtime = new CloudRuntime({
    store, definitions: builtInCloudDrivers(), clock: systemClock, log: silentLogger(),
    endpoints: { volvo: { authUrl: url, apiUrl: url, ca } },
    settings: { flushMs: 20, volvo: { stateEveryMs: 100, odometerEveryMs: 60_000, backoff: { initialMs: 50, maxMs: 200 } } },
  });
  const statuses = new EventEmitter();
  runtime.onStatus = (id, status) => statuses.emit('status', id, status);
  t.after(async () => {
    await runtime.stop();
    store.close();
  });
  return { sim, store, runtime, statuses, endpoints: { authUrl: url, apiUrl: url, ca } };
}

/** Resolves at the first status of car `id` for which `match` holds; rejects after 5 s. */
function carStatus(statuses: EventEmitter, id: string, match: (status: CloudStatus) => boolean): Promise<CloudStatus> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      statuses.off('status', on);
      reject(new Error(`car ${id} never had the status waited for`));
    }, 5000);
    const on = (car: string, status: CloudStatus) => {
      if (car !== id || !match(status)) return;
      clearTimeout(timer);
      statuses.off('status', on);
      resolve(status);
    };
    statuses.on('status', on);
  });
}

const stateReads = (sim: VolvoApiSim, car: Car) => sim.requests.filter((r) => r.path === `/energy/v2/vehicles/${car.vin}/state`).length;
const bindingOf = (store: Store, car: Car) => store.devices.get(car.id)!.driver!;
const detailOf = (store: Store, runtime: CloudRuntime, car: Car) => {
  runtime.writer.flush();
  return vehicleDetail(store.devices.get(car.id)!) as Record<string, any>;
};

test('two Volvos of one API application: one refresh per expiry reads both, both bindings hold the rotated token; a car deleted is read no more', async (t) => {
  // Access tokens of 60 s are renewed a minute early: at every poll.
  const { sim, store, runtime, statuses } = await setup(t, (s) => ({ [XC40.id]: { refreshToken: s.validRefreshToken }, [EX30.id]: { refreshToken: s.validRefreshToken } }), 60);
  runtime.start();
  // After a poll has read the second car, the next one has not begun (it comes 100 ms later).
  let counts: number[] = [];
  await carStatus(statuses, EX30.id, (s) => {
    counts = [sim.refreshes, stateReads(sim, XC40), stateReads(sim, EX30)];
    return s.state === 'streaming' && sim.refreshes >= 3;
  });
  assert.equal(counts[0], counts[1]);
  assert.equal(counts[0], counts[2]);
  assert.equal(sim.staleRefreshes, 0);
  assert.deepEqual([bindingOf(store, XC40)['refreshToken'], bindingOf(store, EX30)['refreshToken']], [sim.validRefreshToken, sim.validRefreshToken]);
  assert.equal(detailOf(store, runtime, XC40)['chargeState'].stateOfCharge, 53);
  assert.equal(detailOf(store, runtime, EX30)['chargeState'].chargingState, 'UNPLUGGED');
  assert.equal(runtime.status(XC40.id)!.state, 'streaming');

  store.deleteDevice(store.devices.get(EX30.id)!, Date.now());
  runtime.sync();
  assert.equal(runtime.status(EX30.id), undefined);
  const readsOfDeleted = stateReads(sim, EX30);
  const refreshes = sim.refreshes;
  await carStatus(statuses, XC40.id, (s) => s.state === 'streaming' && sim.refreshes >= refreshes + 2);
  assert.equal(stateReads(sim, EX30), readsOfDeleted);
  assert.equal(sim.staleRefreshes, 0);
});

test('Volvos holding different logins: the newest is used and written to both, the older one never sent; a car connected again brings a newer one, used at once', async (t) => {
  const dayAgo = Date.now() - 86_400_000;
  const { sim, store, runtime, statuses, endpoints } = await setup(t, (s) => ({
    [XC40.id]: { refreshToken: s.validRefreshToken, loginAtMs: Date.now() },
    [EX30.id]: { refreshToken: 'volvo-refresh-spent-long-ago', loginAtMs: dayAgo },
  }));
  runtime.start();
  await Promise.all([carStatus(statuses, XC40.id, (s) => s.state === 'streaming'), carStatus(statuses, EX30.id, (s) => s.state === 'streaming')]);
  assert.equal(sim.staleRefreshes, 0);
  assert.equal(sim.refreshes, 1);
  // The EX30 holds what the XC40 does: the rotated token, and the time of the login it descends from.
  assert.deepEqual(bindingOf(store, EX30), { ...bindingOf(store, XC40), vin: EX30.vin });
  assert.equal(bindingOf(store, EX30)['refreshToken'], sim.validRefreshToken);
  assert.ok((bindingOf(store, EX30)['loginAtMs'] as number) > dayAgo);

  // The owner connects the EX30 again (the connect page's login): Volvo starts a new token chain.
  const back = 'https://hub.local/connect/volvo';
  const { url, codeVerifier } = authorizeUrl(endpoints, CLIENT.clientId, back, 'state-1');
  const code = sim.approve(new URL(url).searchParams.get('code_challenge')!);
  const login = await exchangeCode(endpoints, CLIENT, code, codeVerifier, back, Date.now());
  store.devices.updateDriver(EX30.id, { ...bindingOf(store, EX30), refreshToken: login.refreshToken, loginAtMs: Date.now() });
  const refreshes = sim.refreshes;
  runtime.sync();
  await carStatus(statuses, XC40.id, (s) => s.state === 'streaming' && sim.refreshes > refreshes);
  assert.equal(sim.staleRefreshes, 0);
  assert.deepEqual([bindingOf(store, XC40)['refreshToken'], bindingOf(store, EX30)['refreshToken']], [sim.validRefreshToken, sim.validRefreshToken]);
});

test('Volvos holding different logins: a refused newest one gives way to the other, which both then hold', async (t) => {
  const { sim, store, runtime, statuses } = await setup(t, (s) => ({
    [XC40.id]: { refreshToken: 'volvo-refresh-revoked', loginAtMs: Date.now() },
    [EX30.id]: { refreshToken: s.validRefreshToken, loginAtMs: Date.now() - 60_000 },
  }));
  runtime.start();
  await Promise.all([carStatus(statuses, XC40.id, (s) => s.state === 'streaming'), carStatus(statuses, EX30.id, (s) => s.state === 'streaming')]);
  assert.equal(sim.staleRefreshes, 1);
  assert.deepEqual([bindingOf(store, XC40)['refreshToken'], bindingOf(store, EX30)['refreshToken']], [sim.validRefreshToken, sim.validRefreshToken]);
  assert.deepEqual(runtime.attention(), []);
});
