// Volvo cars without the internet: the Volvo Cars API simulator (src/sim/cloud/volvo-api-sim.ts, HTTPS
// with a test CA) answering with Home Assistant core's fixtures (test/fixtures/volvo/README.md).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { Store } from '../../../src/store/store.ts';
import { prepareImport } from '../../../src/domain/import.ts';
import { silentLogger } from '../../../src/log.ts';
import { systemClock } from '../../../src/domain/time.ts';
import { CloudRuntime } from '../../../src/runtime/cloud/cloud-runtime.ts';
import type { CloudStatus } from '../../../src/runtime/cloud/cloud-session.ts';
import { authorizeUrl, exchangeCode, volvoVehicles } from '../../../src/runtime/cloud/volvo-api.ts';
import { builtInCloudDrivers } from '../../../drivers/cloud/index.ts';
import { vehicleDetail } from '../../../src/runtime/values/present.ts';
import { browse, volvoService } from '../../support/cloud-sims.ts';
import { until } from '../support.ts';

const VIN = 'YV1XZK9V0R0000001';
const CAR = '0b5c4a2e-6a43-4b8e-9d43-9b2f6f4c1a02';
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../fixtures/volvo/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;
const CLIENT = { clientId: 'volvo-app', clientSecret: 'volvo-secret', vccApiKey: 'vcc-key-1' };

async function setup(t: TestContext, energyState = fixture('xc40-energy-state.json'), expiresInSeconds?: number, withLogin = true, stateEveryMs = 100) {
  const { sim, url, ca } = await volvoService(t, { ...CLIENT, vin: VIN, energyState, odometer: fixture('odometer.json'), expiresInSeconds });
  const store = Store.open(':memory:');
  const prepared = prepareImport([{
    kind: 'vehicle', id: CAR, userId: 'u1', isOnline: false, staticData: { vendor: 'VOLVO', name: 'XC40' },
    driver: { type: 'volvo', vin: VIN, ...CLIENT, ...(withLogin ? { refreshToken: sim.validRefreshToken } : {}) },
  }], Date.now(), () => undefined);
  store.importDevices(prepared.devices, prepared.images, Date.now());
  const runtime = new CloudRuntime({
    store, definitions: builtInCloudDrivers(), clock: systemClock, log: silentLogger(),
    endpoints: { volvo: { authUrl: url, apiUrl: url, ca } },
    settings: { flushMs: 20, volvo: { stateEveryMs, odometerEveryMs: 60_000, backoff: { initialMs: 50, maxMs: 200 } } },
  });
  const statuses = new EventEmitter();
  runtime.onStatus = (_id, status) => statuses.emit('status', status);
  t.after(async () => {
    await runtime.stop();
    store.close();
  });
  return { sim, store, runtime, statuses, url, ca };
}

const state = (want: CloudStatus['state']) => (status: CloudStatus) => status.state === want;

function detailOf(store: Store, runtime: CloudRuntime): Record<string, any> {
  runtime.writer.flush();
  return vehicleDetail(store.devices.get(CAR)!) as Record<string, any>;
}

test('Volvo: the Energy API state and the odometer (Home Assistant\'s XC40 fixture) become chargeState and odometer; miles become km', async (t) => {
  const { sim, store, runtime, statuses } = await setup(t);
  runtime.start();
  await until(statuses, 'status', state('streaming'));
  const detail = detailOf(store, runtime);
  assert.deepEqual({ ...detail['chargeState'], lastUpdated: undefined }, {
    lastUpdated: undefined, stateOfCharge: 53, estimatedRange: 241, chargeRate: 1.39, chargeLimitMax: 90, isPlugged: true, chargingState: 'CHARGING',
  });
  assert.equal(detail['odometer'].odometer, 30000);
  assert.equal(detail['isOnline'], true);
  assert.equal(store.devices.get(CAR)!.driver!['refreshToken'], sim.validRefreshToken);
});

test('Volvo: a field with status ERROR is not available; an unplugged, idle car is UNPLUGGED (the EX30 fixture)', async (t) => {
  const { store, runtime, statuses } = await setup(t, fixture('ex30-energy-state.json'));
  runtime.start();
  await until(statuses, 'status', state('streaming'));
  const detail = detailOf(store, runtime);
  assert.deepEqual({ ...detail['chargeState'], lastUpdated: undefined }, { lastUpdated: undefined, isPlugged: false, chargingState: 'UNPLUGGED' });
});

test('Volvo: an exhausted quota (403 "Out of call volume quota") waits until it is replenished and keeps the login', async (t) => {
  const { sim, store, runtime, statuses } = await setup(t);
  sim.quotaReplenishedIn = '02:26:24';
  runtime.start();
  const waiting = await until<CloudStatus>(statuses, 'status', state('waitingForQuota'));
  assert.match((waiting as { reason: string }).reason, /daily call quota is used up; reading resumes in 147 min/);
  assert.ok((waiting as { untilMs: number }).untilMs - Date.now() > 2 * 3600_000);
  assert.equal(sim.refreshes, 1);
  assert.equal(runtime.status(CAR)!.state, 'waitingForQuota');
  assert.equal(store.devices.get(CAR)!.driver!['refreshToken'], sim.validRefreshToken);
});

test('Volvo: a refresh reads the car now (one call of the application\'s quota), not the last poll\'s answer', async (t) => {
  // Polled hourly here: whatever the refresh returns, it read itself.
  const { sim, store, runtime, statuses } = await setup(t, fixture('xc40-energy-state.json'), undefined, true, 3_600_000);
  runtime.start();
  await until(statuses, 'status', state('streaming'));
  const reads = sim.reads;
  sim.energyState = { ...sim.energyState, batteryChargeLevel: { status: 'OK', value: 77, unit: 'percentage', updatedAt: '2026-11-27T10:00:00Z' } };
  const fresh = await runtime.refresh(store.devices.get(CAR)!);
  assert.equal((fresh.state as Record<string, unknown>)['stateOfCharge'], 77);
  assert.equal(sim.reads, reads + 1, 'one state call');
  assert.equal(detailOf(store, runtime)['chargeState'].stateOfCharge, 77);
  // Refreshes that come together share one read.
  await Promise.all([runtime.refresh(store.devices.get(CAR)!), runtime.refresh(store.devices.get(CAR)!)]);
  assert.equal(sim.reads, reads + 2);
});

test('Volvo: a refresh when the day\'s quota is spent says so (503 with the reason), and the next one waits without a call', async (t) => {
  const { sim, store, runtime, statuses } = await setup(t, fixture('xc40-energy-state.json'), undefined, true, 3_600_000);
  runtime.start();
  await until(statuses, 'status', state('streaming'));
  sim.quotaReplenishedIn = '01:00:00';
  await assert.rejects(runtime.refresh(store.devices.get(CAR)!), (err: Error) => {
    assert.equal(err.name, 'DeviceUnreachableError');
    assert.match(err.message, /daily call quota is used up; reading resumes in 60 min/);
    return true;
  });
  assert.equal(runtime.status(CAR)!.state, 'waitingForQuota');
  const reads = sim.reads;
  await assert.rejects(runtime.refresh(store.devices.get(CAR)!), /quota is used up/);
  assert.equal(sim.reads, reads, 'no call while the quota is spent');
});

test('Volvo: tokens are refreshed when the access token runs out, and the rotated refresh token is stored each time', async (t) => {
  // Access tokens of 61 s are renewed a minute early: at every poll.
  const { sim, store, runtime, statuses } = await setup(t, undefined, 61);
  runtime.start();
  await until<CloudStatus>(statuses, 'status', (s) => s.state === 'streaming' && sim.refreshes >= 3);
  assert.equal(store.devices.get(CAR)!.driver!['refreshToken'], sim.validRefreshToken);
});

test('Volvo: a refused refresh (7 days without a login, or revoked) says a new login is due and stops asking', async (t) => {
  const { sim, store, runtime, statuses } = await setup(t);
  sim.revoked = true;
  runtime.start();
  const due = await until<CloudStatus>(statuses, 'status', state('loginDue'));
  assert.match((due as { reason: string }).reason, /Volvo refused the login \(invalid_grant\); log in to Volvo again/);
  assert.equal(detailOf(store, runtime)['isOnline'], false);
  assert.equal(sim.reads, 0);
});

test('Volvo: the authorization code login with PKCE gives the tokens', async (t) => {
  const { sim, url, ca } = await setup(t);
  const endpoints = { authUrl: url, apiUrl: url, ca };
  const { url: page, codeVerifier } = authorizeUrl(endpoints, CLIENT.clientId, 'https://hub.local/connect/volvo', 'state-1');
  const params = new URL(page).searchParams;
  assert.equal(params.get('code_challenge_method'), 'S256');
  assert.match(params.get('scope') ?? '', /energy:state:read/);
  const code = sim.approve(params.get('code_challenge')!);
  const tokens = await exchangeCode(endpoints, CLIENT, code, codeVerifier, 'https://hub.local/connect/volvo', Date.now());
  assert.equal(tokens.refreshToken, sim.validRefreshToken);
  await assert.rejects(exchangeCode(endpoints, CLIENT, code, codeVerifier, 'https://hub.local/connect/volvo', Date.now()), /Volvo refused the login/);
});

test('Volvo: the owner\'s browser on the login page comes back to the hub with a code for the exchange, or with access_denied; the tokens list the account\'s cars', async (t) => {
  const { sim, url, ca } = await setup(t);
  const endpoints = { authUrl: url, apiUrl: url, ca };
  const back = 'https://hub.local/connect/token-1/callback';
  const { url: page, codeVerifier } = authorizeUrl(endpoints, CLIENT.clientId, back, 'state-2');
  const approved = await browse(page, ca);
  assert.equal(approved.status, 302);
  const answer = new URL(approved.location);
  assert.equal(`${answer.origin}${answer.pathname}`, back);
  assert.equal(answer.searchParams.get('state'), 'state-2');
  const tokens = await exchangeCode(endpoints, CLIENT, answer.searchParams.get('code')!, codeVerifier, back, Date.now());
  assert.deepEqual(await volvoVehicles(endpoints, CLIENT, tokens.accessToken), [VIN]);

  sim.loginDeclined = true;
  const declined = new URL((await browse(authorizeUrl(endpoints, CLIENT.clientId, back, 'state-3').url, ca)).location);
  assert.deepEqual([declined.searchParams.get('error'), declined.searchParams.get('state'), declined.searchParams.get('code')], ['access_denied', 'state-3', null]);
  // Another application's client id is not sent back anywhere.
  assert.equal((await browse(authorizeUrl(endpoints, 'someone-else', back, 'state-4').url, ca)).status, 400);
});

test('Volvo: a car imported without its login (an export leaves it out) asks for one and calls Volvo not at all', async (t) => {
  const { sim, runtime, statuses } = await setup(t, undefined, undefined, false);
  runtime.start();
  const due = await until<CloudStatus>(statuses, 'status', state('loginDue'));
  assert.match((due as { reason: string }).reason, /no Volvo login on this hub/);
  assert.equal(sim.requests.length, 0);
});
