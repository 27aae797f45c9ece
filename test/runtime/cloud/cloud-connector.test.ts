// The cloud family's logins for the vehicle connect page: BMW CarData's device code polled in the
// background, Volvo ID's redirect back to the hub's callback, and the cars each finds, against the
// makers' simulators over HTTPS on loopback.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { silentLogger } from '../../../src/log.ts';
import { systemClock } from '../../../src/domain/time.ts';
import { CloudConnector } from '../../../src/runtime/cloud/cloud-connector.ts';
import { BMW_CARDATA_ENDPOINTS, type CardataEndpoints } from '../../../src/runtime/cloud/cardata-oauth.ts';
import { VOLVO_ENDPOINTS, type VolvoEndpoints } from '../../../src/runtime/cloud/volvo-api.ts';
import { VehicleLoginFailed, type VehicleLoginState } from '../../../src/runtime/devices/vehicle-connector.ts';
import type { CardataAuthSimOptions } from '../../../src/sim/cloud/cardata-auth-sim.ts';
import { builtInCloudDrivers } from '../../../drivers/cloud/index.ts';
import { browse, cardataLoginService, volvoService } from '../../support/cloud-sims.ts';
import { until } from '../support.ts';

const CLIENT_ID = '3f2c9a1e-7b4d-4e8a-9c1f-5a6b7c8d9e0f';
const VIN = 'WBY11CF080CH47012';
const MINI_VIN = 'WMW11DJ060TY00002';
const VOLVO_VIN = 'YV1XZK9V0R0000001';
const VOLVO = { clientId: 'volvo-app', clientSecret: 'volvo-secret', vccApiKey: 'vcc-key-1' };
const CALLBACK = 'https://hub.local/connections/vehicles/callback';
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../fixtures/volvo/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;

function connectorFor(t: TestContext, endpoints: { bmwCardata?: CardataEndpoints; volvo?: VolvoEndpoints }) {
  const connector = new CloudConnector({
    definitions: builtInCloudDrivers(), clock: systemClock, log: silentLogger(),
    endpoints: { bmwCardata: endpoints.bmwCardata ?? BMW_CARDATA_ENDPOINTS, volvo: endpoints.volvo ?? VOLVO_ENDPOINTS },
  });
  const progress = new EventEmitter();
  connector.onProgress = (key, state) => progress.emit('progress', { key, state });
  t.after(() => connector.stop());
  /** The first state of session `key` that is no longer 'waiting'. */
  const settled = (key: string) => until<{ key: string; state: VehicleLoginState }>(progress, 'progress', (p) => p.key === key && p.state.state !== 'waiting')
    .then((p) => p.state);
  return { connector, settled };
}

async function bmw(t: TestContext, options: Partial<CardataAuthSimOptions> = {}) {
  const { sim, endpoints } = await cardataLoginService(t, { clientId: CLIENT_ID, ...options });
  sim.vehicleMappings = [{ vin: VIN, mappingType: 'PRIMARY' }];
  return { sim, ...connectorFor(t, { bmwCardata: endpoints }) };
}

const bmwLogin = (vin: string | null = null, clientId = CLIENT_ID) => ({ vendor: 'BMW', fields: { clientId }, callbackUrl: CALLBACK, vin });

test('the forms: BMW and MINI ask for the CarData client id, Volvo for its application\'s key, id and secret', () => {
  const connector = new CloudConnector({ definitions: builtInCloudDrivers(), clock: systemClock, log: silentLogger(), endpoints: { bmwCardata: BMW_CARDATA_ENDPOINTS, volvo: VOLVO_ENDPOINTS } });
  const forms = connector.forms();
  assert.deepEqual([...forms.keys()].sort(), ['BMW', 'MINI', 'VOLVO']);
  for (const vendor of ['BMW', 'MINI']) assert.deepEqual(forms.get(vendor)!.fields.map((f) => [f.name, f.required]), [['clientId', true]]);
  assert.deepEqual(forms.get('VOLVO')!.fields.map((f) => [f.name, f.required]), [['vccApiKey', true], ['clientId', true], ['clientSecret', true]]);
  // The portal's ids (8-4-4-4-12), as HTML checks a pattern: the whole value, with the v flag.
  const pattern = new RegExp(`^(?:${forms.get('BMW')!.fields[0]!.pattern})$`, 'v');
  assert.ok(pattern.test(CLIENT_ID));
  assert.ok(pattern.test(CLIENT_ID.toUpperCase()));
  assert.ok(!pattern.test('my client'));
});

test('BMW: the code for the owner, pending until approved on BMW\'s page, then the account\'s car with its model and the binding that reads it', async (t) => {
  const { sim, connector, settled } = await bmw(t);
  sim.basicData[VIN] = { vin: VIN, brand: 'BMW', modelName: 'iX1 xDrive30', series: 'X1' };
  const start = await connector.begin('session-1', bmwLogin());
  assert.equal(start.kind, 'deviceCode');
  assert.equal(start.kind === 'deviceCode' && start.userCode, 'ABCD-EFGH');
  assert.match(start.kind === 'deviceCode' ? start.verificationUriComplete ?? '' : '', /user_code=ABCD-EFGH/);
  assert.deepEqual(connector.progress('session-1'), { state: 'waiting', start });
  await sim.requestsReach(2); // the code, then a first poll that BMW answers authorization_pending
  assert.equal(connector.progress('session-1').state, 'waiting');
  const requestsBefore = sim.requests.length;
  connector.progress('session-1');
  assert.equal(sim.requests.length, requestsBefore, 'progress() asks BMW nothing');

  sim.approved = true;
  const state = await settled('session-1');
  assert.deepEqual(state, {
    state: 'loggedIn',
    cars: [{ vin: VIN, model: 'iX1 xDrive30', driver: { type: 'bmw-cardata', clientId: CLIENT_ID, vin: VIN, gcid: 'gcid-1', refreshToken: sim.validRefreshToken } }],
  });
  assert.deepEqual(connector.progress('session-1'), state);
  assert.equal(sim.restCalls, 2, 'the list of cars and one basic data');
  connector.end('session-1');
  assert.deepEqual(connector.progress('session-1'), { state: 'none' });
});

test('BMW: a MINI goes the same way; several cars are each offered, a car without basic data has no model', async (t) => {
  const { sim, connector, settled } = await bmw(t);
  sim.approved = true;
  sim.vehicleMappings = [{ vin: VIN, mappingType: 'PRIMARY' }, { vin: 'WMW21GD020TZ00001', mappingType: 'SECONDARY' }, { vin: MINI_VIN, mappingType: 'PRIMARY' }];
  sim.basicData[MINI_VIN] = { vin: MINI_VIN, brand: 'MINI', modelName: 'MINI Cooper SE' };
  await connector.begin('s', { ...bmwLogin(), vendor: 'MINI' });
  const state = await settled('s');
  assert.equal(state.state, 'loggedIn');
  assert.deepEqual(state.state === 'loggedIn' && state.cars.map((c) => [c.vin, c.model, c.driver['vin']]), [[VIN, null, VIN], [MINI_VIN, 'MINI Cooper SE', MINI_VIN]]);
});

test('BMW: more than three cars are offered without their models, to spare the day\'s 50 REST calls', async (t) => {
  const { sim, connector, settled } = await bmw(t);
  sim.approved = true;
  const vins = ['WBA00000000000001', 'WBA00000000000002', 'WBA00000000000003', 'WBA00000000000004'];
  sim.vehicleMappings = vins.map((vin) => ({ vin, mappingType: 'PRIMARY' as const }));
  for (const vin of vins) sim.basicData[vin] = { vin, modelName: 'i4 eDrive40' };
  await connector.begin('s', bmwLogin());
  const state = await settled('s');
  assert.deepEqual(state.state === 'loggedIn' && state.cars.map((c) => [c.vin, c.model]), vins.map((vin) => [vin, null]));
  assert.equal(sim.restCalls, 1);
});

test('BMW: the session\'s VIN keeps that car only; an account without it has NO_CAR', async (t) => {
  const { sim, connector, settled } = await bmw(t);
  sim.approved = true;
  sim.vehicleMappings = [{ vin: VIN, mappingType: 'PRIMARY' }, { vin: MINI_VIN, mappingType: 'PRIMARY' }];
  await connector.begin('named', bmwLogin(MINI_VIN.toLowerCase()));
  const named = await settled('named');
  assert.deepEqual(named.state === 'loggedIn' && named.cars.map((c) => c.vin), [MINI_VIN]);

  await connector.begin('other', bmwLogin('WBA00000000000009'));
  assert.deepEqual(await settled('other'), { state: 'failed', error: 'NO_CAR' });

  sim.vehicleMappings = [];
  await connector.begin('none', bmwLogin());
  assert.deepEqual(await settled('none'), { state: 'failed', error: 'NO_CAR' });
});

test('BMW: an unknown client id is REFUSED at once; a login service that does not answer is UNREACHABLE', async (t) => {
  const { connector } = await bmw(t);
  await assert.rejects(connector.begin('s', bmwLogin(null, '00000000-0000-0000-0000-000000000000')), (err: unknown) => err instanceof VehicleLoginFailed && err.code === 'REFUSED');
  assert.deepEqual(connector.progress('s'), { state: 'none' });

  const { connector: nowhere } = connectorFor(t, { bmwCardata: { ...BMW_CARDATA_ENDPOINTS, authUrl: 'https://127.0.0.1:1' } });
  await assert.rejects(nowhere.begin('s', bmwLogin()), (err: unknown) => err instanceof VehicleLoginFailed && err.code === 'UNREACHABLE');
});

test('BMW: a code not entered in time is EXPIRED; the owner\'s "no" on BMW\'s page is DECLINED', async (t) => {
  const { sim, connector, settled } = await bmw(t, { deviceCodeExpiresInSeconds: 2 });
  await connector.begin('late', bmwLogin());
  assert.deepEqual(await settled('late'), { state: 'failed', error: 'EXPIRED' });

  sim.declined = true;
  await connector.begin('no', bmwLogin());
  assert.deepEqual(await settled('no'), { state: 'failed', error: 'DECLINED' });
});

test('BMW: a token endpoint that never answers a poll until the code runs out is UNREACHABLE', async (t) => {
  const { sim, connector, settled } = await bmw(t, { deviceCodeExpiresInSeconds: 2 });
  await connector.begin('s', bmwLogin());
  sim.faults.status = 503;
  assert.deepEqual(await settled('s'), { state: 'failed', error: 'UNREACHABLE' });
  assert.ok(sim.requests.length >= 2, 'it kept asking');
});

test('BMW: the day\'s REST calls used up (CU-429) is QUOTA', async (t) => {
  const { sim, connector, settled } = await bmw(t);
  sim.approved = true;
  sim.restLimit = 0;
  await connector.begin('s', bmwLogin());
  assert.deepEqual(await settled('s'), { state: 'failed', error: 'QUOTA' });
});

test('a new begin for the session replaces its login; end() and stop() leave no poll behind', async (t) => {
  const { connector } = await bmw(t);
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const before = timers();
  await connector.begin('a', bmwLogin());
  await connector.begin('a', bmwLogin());
  assert.equal(timers(), before + 1, 'the replaced login polls no more');
  await connector.begin('b', bmwLogin());
  assert.equal(timers(), before + 2);
  connector.end('b');
  assert.equal(timers(), before + 1);
  await connector.begin('b', bmwLogin());
  connector.stop();
  assert.equal(timers(), before);
  assert.deepEqual([connector.progress('a'), connector.progress('b')], [{ state: 'none' }, { state: 'none' }]);
});

async function volvo(t: TestContext) {
  const { sim, endpoints, ca } = await volvoService(t, {
    ...VOLVO, vin: VOLVO_VIN, energyState: fixture('xc40-energy-state.json'), odometer: fixture('odometer.json'), vehicle: fixture('xc40-vehicle.json'),
  });
  const { connector } = connectorFor(t, { volvo: endpoints });
  /** begin(), the owner's browser at Volvo ID, and the query it comes back to the callback with. */
  const login = async (key: string, fields: Record<string, string> = VOLVO, vin: string | null = null) => {
    const start = await connector.begin(key, { vendor: 'VOLVO', fields, callbackUrl: CALLBACK, vin });
    assert.equal(start.kind, 'redirect');
    const back = await browse(start.kind === 'redirect' ? start.url : '', ca);
    assert.equal(back.status, 302);
    const to = new URL(back.location);
    assert.equal(`${to.origin}${to.pathname}`, CALLBACK);
    return to.searchParams;
  };
  return { sim, connector, login };
}

test('Volvo: the browser goes to Volvo ID and back to the callback; the code becomes the car, its model and its binding', async (t) => {
  const { sim, connector, login } = await volvo(t);
  const start = await connector.begin('session-1', { vendor: 'VOLVO', fields: VOLVO, callbackUrl: CALLBACK, vin: null });
  const state = new URL(start.kind === 'redirect' ? start.url : '').searchParams.get('state');
  assert.ok(state && state !== 'session-1' && state.length >= 32, 'a random state, not the session key');
  assert.equal(connector.progress('session-1').state, 'waiting');

  const query = await login('session-1');
  // A browser that began another session's login is not this one's: the state is left for the owner's.
  assert.equal(await connector.callback(query, 'session-2'), undefined);
  assert.equal(connector.progress('session-1').state, 'waiting');
  assert.equal(await connector.callback(query, 'session-1'), 'session-1');
  assert.deepEqual(connector.progress('session-1'), {
    state: 'loggedIn',
    cars: [{ vin: VOLVO_VIN, model: 'XC40', driver: { type: 'volvo', vin: VOLVO_VIN, ...VOLVO, refreshToken: sim.validRefreshToken } }],
  });
  // The state is good once: the same redirect again, or one the hub never made, belongs to no login.
  assert.equal(await connector.callback(query), undefined);
  assert.equal(await connector.callback(new URLSearchParams({ state: 'forged', code: 'x' })), undefined);
  assert.equal(await connector.callback(new URLSearchParams()), undefined);
});

test('Volvo: the owner declines at Volvo ID: DECLINED', async (t) => {
  const { sim, connector, login } = await volvo(t);
  sim.loginDeclined = true;
  const query = await login('s');
  assert.equal(query.get('error'), 'access_denied');
  assert.equal(await connector.callback(query), 's');
  assert.deepEqual(connector.progress('s'), { state: 'failed', error: 'DECLINED' });
});

test('Volvo: a wrong client secret is REFUSED; a used-up quota on the list of cars is QUOTA; another VIN is NO_CAR', async (t) => {
  const { sim, connector, login } = await volvo(t);
  assert.equal(await connector.callback(await login('secret', { ...VOLVO, clientSecret: 'wrong' })), 'secret');
  assert.deepEqual(connector.progress('secret'), { state: 'failed', error: 'REFUSED' });

  assert.equal(await connector.callback(await login('vin', VOLVO, 'YV1XZK9V0R0000009')), 'vin');
  assert.deepEqual(connector.progress('vin'), { state: 'failed', error: 'NO_CAR' });

  sim.quotaReplenishedIn = '02:26:24';
  assert.equal(await connector.callback(await login('quota')), 'quota');
  assert.deepEqual(connector.progress('quota'), { state: 'failed', error: 'QUOTA' });
});

test('Volvo: a login replaced or ended before the browser came back belongs to no login', async (t) => {
  const { connector, login } = await volvo(t);
  const first = await login('s');
  await login('s');
  assert.equal(await connector.callback(first), undefined);
  const ended = await login('t');
  connector.end('t');
  assert.equal(await connector.callback(ended), undefined);
  assert.deepEqual(connector.progress('t'), { state: 'none' });
});
