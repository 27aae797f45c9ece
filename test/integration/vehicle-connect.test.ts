// Connecting a car end to end, as a partner's app and its user do it: POST /connections/vehicles on
// the real daemon (real sockets on loopback), the hub's connect page, the maker's login run against
// the makers' simulators over HTTPS with a test CA (BMW CarData's device code, Volvo ID's
// authorization code with its redirect back to the hub), the car added, the browser sent back to
// redirectUrl, and the car then read by the cloud family like any other.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon } from '../../src/daemon.ts';
import { ConfigSchema } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { prepareImport } from '../../src/domain/import.ts';
import type { DeviceRecord } from '../../src/domain/device.ts';
import { CardataAuthSim } from '../../src/sim/cloud/cardata-auth-sim.ts';
import { VolvoApiSim } from '../../src/sim/cloud/volvo-api-sim.ts';
import { makeCertificates, type TestCertificates } from '../support/tls.ts';
import { startBroker } from '../support/broker.ts';
import { skippedWithout } from '../support/peers.ts';

const KEY = 'vehicle-connect-test-key-0123456789';
const REDIRECT = 'https://app.example/cars?from=hub';
const CHARGER = '4b9a6e5c-be8f-4dbc-9f7c-5e6f7a8b9c01';
const BMW = { clientId: '8f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f', gcid: '34ddc38-93220-423330-93101-fcd292373', vin: 'WBY11HH0000000001' };
const VOLVO = { clientId: 'volvo-app', clientSecret: 'volvo-secret-value', vccApiKey: 'vcckey0123456789', vin: 'YV1XZK9V0R0000001' };
const volvoFixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/volvo/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;

interface Hub {
  daemon: Daemon;
  url: string;
  ca: string;
  bmw: CardataAuthSim;
  volvo: VolvoApiSim;
  api(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  /** Resolves once the device's stored record satisfies `check`, on the hub's own events. */
  until(id: string, check: (device: DeviceRecord) => boolean): Promise<DeviceRecord>;
}

/** The test CA and the makers' server certificate (BMW's broker's too, when a test starts one). */
function certificates(t: TestContext): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'hub-connect-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return makeCertificates(dir);
}

async function startHub(t: TestContext, options: { streamUrl?: string; certs?: TestCertificates } = {}): Promise<Hub> {
  const certs = options.certs ?? certificates(t);
  const tls = { cert: readFileSync(certs.serverCertFile), key: readFileSync(certs.serverKeyFile) };
  const bmw = new CardataAuthSim({ clientId: BMW.clientId, gcid: BMW.gcid, idTokens: ['id-token-1'] });
  bmw.vehicleMappings = [{ vin: BMW.vin, mappingType: 'PRIMARY' }];
  bmw.telematicData = { 'vehicle.drivetrain.batteryManagement.header': '47', 'vehicle.body.chargingPort.status': 'CONNECTED' };
  await bmw.start({ tls });
  const volvo = new VolvoApiSim({ ...VOLVO, energyState: volvoFixture('xc40-energy-state.json'), odometer: volvoFixture('odometer.json') });
  await volvo.start({ tls });
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-connect-data-'));
  const bmwUrl = `https://localhost:${bmw.port}`;
  const volvoUrl = `https://localhost:${volvo.port}`;
  const config = ConfigSchema.parse({
    dataDir, http: { port: 0 }, apiKey: KEY,
    cloud: {
      // No broker unless the test starts one: a closed port.
      bmwCardata: { authUrl: bmwUrl, apiUrl: bmwUrl, streamUrl: options.streamUrl ?? 'mqtts://localhost:9', caFile: certs.caFile },
      volvo: { authUrl: volvoUrl, apiUrl: volvoUrl, caFile: certs.caFile },
    },
  });
  const daemon = new Daemon({
    config, log: silentLogger(),
    beforeListen: (store) => {
      const prepared = prepareImport([
        { kind: 'charger', id: CHARGER, userId: 'user-1', isOnline: true, staticData: { vendor: 'GO_E', name: 'Garage', model: 'Gemini' } },
      ], Date.now(), () => undefined);
      store.importDevices(prepared.devices, prepared.images, Date.now());
    },
  });
  t.after(async () => {
    await daemon.stop().catch(() => {});
    await Promise.allSettled([bmw.stop(), volvo.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  });
  await daemon.start();
  const url = daemon.url!;
  return {
    daemon, url, ca: readFileSync(certs.caFile, 'utf8'), bmw, volvo,
    api: (path, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set('x-api-key', KEY);
      let body = init.body;
      if (init.json !== undefined) {
        body = JSON.stringify(init.json);
        headers.set('content-type', 'application/json');
      }
      return fetch(`${url}/v1.0.0${path}`, { ...init, headers, body });
    },
    until: async (id, check) => {
      const now = daemon.db.devices.get(id);
      if (now && check(now)) return now;
      await daemon.events.next((e) => 'device' in e && e.device.id === id && check(daemon.db.devices.get(id) ?? e.device), 10_000);
      return daemon.db.devices.get(id)!;
    },
  };
}

/** The partner's call: the page's URL for a new session. */
async function connect(hub: Hub, body: Record<string, unknown>, query = ''): Promise<string> {
  const res = await hub.api(`/connections/vehicles${query}`, { method: 'POST', json: { redirectUrl: REDIRECT, userId: 'user-1', ...body } });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json() as { url: string }).url;
}

const get = (url: string) => fetch(url, { redirect: 'manual' });
const post = (url: string, fields: Record<string, string>) => fetch(url, {
  method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(),
});
const heading = (page: string) => page.match(/<h1>([^<]*)<\/h1>/)?.[1];

/** The page, reloaded as its meta refresh does, until `done` holds (the login happens elsewhere). */
async function reloadUntil(url: string, done: (res: Response, page: string) => boolean): Promise<{ res: Response; page: string }> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await get(url);
    const page = await res.text();
    if (done(res, page)) return { res, page };
    if (Date.now() > deadline) assert.fail(`the page never moved on: ${heading(page)}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A GET over HTTPS trusting the test CA, without following redirects (the maker's side of the browser's trip). */
function getMaker(url: string, ca: string): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    https.get(url, { ca }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, location: res.headers.location });
    }).on('error', reject);
  });
}

function outcome(res: Response): URLSearchParams {
  assert.equal(res.status, 303);
  const location = new URL(res.headers.get('location')!);
  assert.equal(`${location.origin}${location.pathname}`, 'https://app.example/cars');
  assert.equal(location.searchParams.get('from'), 'hub', 'the redirect URL keeps its own query');
  return location.searchParams;
}

/** Logs in with Volvo through the hub's page and Volvo's simulated login; the page it ends on. */
async function volvoLogin(hub: Hub, pageUrl: string): Promise<{ res: Response; page: string }> {
  const login = await post(pageUrl, { action: 'login', vccApiKey: VOLVO.vccApiKey, clientId: VOLVO.clientId, clientSecret: VOLVO.clientSecret });
  assert.equal(login.status, 200);
  const onTheWay = await login.text();
  const to = onTheWay.match(/<meta http-equiv="refresh" content="0;url=([^"]+)">/)?.[1]?.replaceAll('&amp;', '&');
  assert.ok(to, 'the page goes on to Volvo ID by itself');
  assert.equal(new URL(to).origin, `https://localhost:${hub.volvo.port}`);
  // Volvo ID logs the owner in and sends the browser back to the hub's one callback address.
  const back = await getMaker(to, hub.ca);
  assert.equal(back.status, 302);
  assert.equal(new URL(back.location!).origin + new URL(back.location!).pathname, `${hub.url}/connect/callback`);
  const callback = await get(back.location!);
  assert.equal(callback.status, 303);
  const res = await get(new URL(callback.headers.get('location')!, hub.url).href);
  return { res, page: await res.text() };
}

test('available vendors list the car makers the hub can connect: BMW, MINI and VOLVO', async (t) => {
  const hub = await startHub(t);
  const vendors = await (await hub.api('/connections/available-vendors')).json() as { vehicles: { id: string; name: string; logoUrl: string }[] };
  assert.deepEqual(vendors.vehicles.map((v) => v.id), ['BMW', 'MINI', 'VOLVO']);
  assert.match(vendors.vehicles[0]!.logoUrl, /\/logos\/bmw\.svg$/);
  // A maker the hub reaches only through a bridge, or not at all, cannot be connected by an app.
  for (const vendor of ['TESLA', 'MERCEDES']) {
    const res = await hub.api('/connections/vehicles', { method: 'POST', json: { redirectUrl: REDIRECT, userId: 'user-1', vendor } });
    assert.equal(res.status, 405, vendor);
    assert.equal((await res.json() as { errorCode: string }).errorCode, 'TELEMATICS_NOT_SUPPORTED');
  }
});

test('BMW: the owner enters the client id, confirms the code on BMW\'s page, chooses the charger; the car is added and the app gets its id', async (t) => {
  const hub = await startHub(t);
  const pageUrl = await connect(hub, { vendor: 'BMW' });
  const form = await get(pageUrl);
  assert.equal(form.status, 200);
  const formPage = await form.text();
  assert.equal(heading(formPage), 'Connect your BMW');
  assert.match(formPage, /<input id="f-clientId" name="clientId"/);
  assert.match(formPage, /<button type="submit" name="action" value="login" class="primary">Log in with BMW<\/button>/);

  const login = await post(pageUrl, { action: 'login', clientId: BMW.clientId });
  assert.equal(login.status, 303);
  assert.equal(new URL(login.headers.get('location')!, hub.url).href, pageUrl);
  const codePage = await (await get(pageUrl)).text();
  assert.equal(heading(codePage), 'Confirm the login at BMW');
  assert.match(codePage, /<p class="code" id="user-code">ABCD-EFGH<\/p>/);
  assert.match(codePage, /href="https:\/\/customer\.bmwgroup\.com\/oneid\/link\?user_code=ABCD-EFGH" target="_blank"/);
  assert.match(codePage, /<meta http-equiv="refresh" content="3">/);

  // The owner confirms on BMW's page; the hub's background poll picks the tokens up.
  hub.bmw.approved = true;
  const { page: choose } = await reloadUntil(pageUrl, (_res, page) => heading(page) === 'Add your car');
  assert.match(choose, new RegExp(`<input type="hidden" name="vin" value="${BMW.vin}">`));
  assert.match(choose, new RegExp(`<option value="${CHARGER}" selected>Garage · Gemini</option>`), 'the owner\'s one charger is preselected');

  const added = await post(pageUrl, { action: 'add', vin: BMW.vin, chargerId: CHARGER });
  const result = outcome(added);
  assert.equal(result.get('status'), 'SUCCESS');
  const vehicleId = result.get('vehicleId')!;
  const car = hub.daemon.db.devices.get(vehicleId)!;
  assert.deepEqual([car.kind, car.userId, car.vendor, car.staticData['vin']], ['vehicle', 'user-1', 'BMW', BMW.vin]);
  assert.deepEqual({ ...car.driver, refreshToken: undefined, loginAtMs: undefined }, {
    type: 'bmw-cardata', clientId: BMW.clientId, vin: BMW.vin, gcid: BMW.gcid, chargerId: CHARGER, refreshToken: undefined, loginAtMs: undefined,
  });
  assert.equal(typeof car.driver!['refreshToken'], 'string');
  assert.ok(Math.abs(Number(car.driver!['loginAtMs']) - Date.now()) < 60_000, 'the login\'s time, so that it wins over older logins of the account');

  // The API shows the car, never its login.
  const detail = await hub.api(`/vehicles/${vehicleId}`);
  assert.equal(detail.status, 200);
  const text = await detail.text();
  assert.equal(JSON.parse(text).staticData.vin, BMW.vin);
  assert.doesNotMatch(text, /refresh|token/i);

  // The session is used: the page says so, and the same submission again lands on the same outcome.
  assert.equal((await get(pageUrl)).status, 410);
  assert.equal(outcome(await post(pageUrl, { action: 'add', vin: BMW.vin })).get('vehicleId'), vehicleId);
});

test('BMW: a connected car streams; connecting it again renews its login and keeps its id and charger', async (t) => {
  if (skippedWithout(t, 'mosquitto')) return;
  const certs = certificates(t);
  const broker = await startBroker({ tls: certs, users: { [BMW.gcid]: 'id-token-1' } });
  t.after(() => broker.stop());
  const hub = await startHub(t, { streamUrl: `mqtts://localhost:${broker.port}`, certs });
  hub.bmw.approved = true;

  const pageUrl = await connect(hub, { vendor: 'BMW', vin: BMW.vin });
  assert.equal((await post(pageUrl, { action: 'login', clientId: BMW.clientId })).status, 303);
  await reloadUntil(pageUrl, (_res, page) => heading(page) === 'Add your car');
  const vehicleId = outcome(await post(pageUrl, { action: 'add', vin: BMW.vin, chargerId: CHARGER })).get('vehicleId')!;
  // The stream connects with the new login, and the REST snapshot fills the car in.
  const car = await hub.until(vehicleId, (d) => d.isOnline && d.state?.['stateOfCharge'] === 47);
  assert.equal(car.state?.['isPlugged'], true);

  // Connected again (a new login after BMW refused the old one, say): the same car, a new token.
  const before = hub.daemon.db.devices.get(vehicleId)!.driver!['refreshToken'];
  const again = await connect(hub, { vendor: 'BMW' });
  assert.equal((await post(again, { action: 'login', clientId: BMW.clientId })).status, 303);
  const { page } = await reloadUntil(again, (_res, p) => heading(p) === 'Add your car');
  assert.match(page, /already on this hub: adding it again renews its login/);
  assert.equal(outcome(await post(again, { action: 'add', vin: BMW.vin })).get('vehicleId'), vehicleId);
  const renewed = hub.daemon.db.devices.get(vehicleId)!;
  assert.notEqual(renewed.driver!['refreshToken'], before);
  assert.equal(renewed.driver!['chargerId'], CHARGER, 'the charger chosen before is kept');
  assert.equal(hub.daemon.db.devices.all().filter((d) => d.kind === 'vehicle').length, 1);
});

test('BMW: an unknown client id is refused on the form; an unconfirmed code runs out; Cancel returns to the app', async (t) => {
  const hub = await startHub(t);
  const pageUrl = await connect(hub, { vendor: 'MINI' }, '?language=GERMAN');
  const refused = await post(pageUrl, { action: 'login', clientId: '00000000-0000-4000-8000-000000000000' });
  assert.equal(refused.status, 422);
  const page = await refused.text();
  assert.equal(heading(page), 'Ihren MINI verbinden');
  assert.match(page, /Der Hersteller hat diese Angaben abgelehnt/);
  assert.equal(hub.daemon.db.devices.all().filter((d) => d.kind === 'vehicle').length, 0);

  const cancelled = await post(pageUrl, { action: 'cancel' });
  assert.equal(outcome(cancelled).get('status'), 'CANCELLED');
  assert.equal((await get(pageUrl)).status, 410);
});

test('Volvo: the owner enters the application\'s key, id and secret, logs in at Volvo ID and comes back; the car is added and read', async (t) => {
  const hub = await startHub(t);
  const pageUrl = await connect(hub, { vendor: 'VOLVO' }, '?language=FRENCH&theme=DARK');
  const formPage = await (await get(pageUrl)).text();
  assert.equal(heading(formPage), 'Connecter votre Volvo');
  assert.match(formPage, /<html lang="fr" data-theme="dark">/);
  // The one address the owner registers as the application's redirect URI.
  assert.ok(formPage.includes(`${hub.url}/connect/callback`), 'the page names the callback address to register');

  const { page } = await volvoLogin(hub, pageUrl);
  assert.equal(heading(page), 'Ajouter votre voiture');
  assert.ok(page.includes(VOLVO.vin));
  assert.doesNotMatch(page, new RegExp(VOLVO.clientSecret));
  const added = await post(pageUrl, { action: 'add', vin: VOLVO.vin, chargerId: '' });
  const vehicleId = outcome(added).get('vehicleId')!;
  const car = hub.daemon.db.devices.get(vehicleId)!;
  assert.deepEqual({ ...car.driver, refreshToken: undefined, loginAtMs: undefined }, {
    type: 'volvo', vin: VOLVO.vin, clientId: VOLVO.clientId, clientSecret: VOLVO.clientSecret, vccApiKey: VOLVO.vccApiKey, refreshToken: undefined, loginAtMs: undefined,
  }, 'no charger chosen: none bound');
  // Read by the cloud family at once: Home Assistant's XC40 fixture.
  const read = await hub.until(vehicleId, (d) => d.isOnline && d.state?.['stateOfCharge'] === 53);
  assert.equal(read.state?.['isPlugged'], true);
  const detail = await (await hub.api(`/vehicles/${vehicleId}`)).text();
  assert.doesNotMatch(detail, new RegExp(`${VOLVO.clientSecret}|${VOLVO.vccApiKey}|refresh`, 'i'));
});

test('Volvo: a login declined at Volvo ID or a wrong secret stays on the page with the reason; a stray callback is an unknown link', async (t) => {
  const hub = await startHub(t);
  const pageUrl = await connect(hub, { vendor: 'VOLVO' });
  hub.volvo.loginDeclined = true;
  const { page: declined } = await volvoLogin(hub, pageUrl);
  assert.equal(heading(declined), 'Connect your Volvo');
  assert.match(declined, /The login was declined or not finished/);
  assert.doesNotMatch(declined, new RegExp(VOLVO.clientSecret), 'a secret is never sent back');

  hub.volvo.loginDeclined = false;
  const wrong = await post(pageUrl, { action: 'login', vccApiKey: VOLVO.vccApiKey, clientId: VOLVO.clientId, clientSecret: 'not-the-secret' });
  const to = (await wrong.text()).match(/content="0;url=([^"]+)"/)![1]!.replaceAll('&amp;', '&');
  const back = await getMaker(to, hub.ca);
  const callback = await get(back.location!);
  const refused = await (await get(new URL(callback.headers.get('location')!, hub.url).href)).text();
  assert.match(refused, /The maker refused these details/);

  const stray = await get(`${hub.url}/connect/callback?state=forged&code=x`);
  assert.equal(stray.status, 404);
  assert.equal(heading(await stray.text()), 'Unknown link');
  assert.equal(hub.daemon.db.devices.all().filter((d) => d.kind === 'vehicle').length, 0);
});

test('a car already connected by another user is refused; an expired session goes back to the app with SESSION_EXPIRED', async (t) => {
  const hub = await startHub(t);
  hub.bmw.approved = true;
  const first = await connect(hub, { vendor: 'BMW' });
  await post(first, { action: 'login', clientId: BMW.clientId });
  await reloadUntil(first, (_res, page) => heading(page) === 'Add your car');
  outcome(await post(first, { action: 'add', vin: BMW.vin }));

  const res = await hub.api('/connections/vehicles', { method: 'POST', json: { redirectUrl: REDIRECT, userId: 'user-2', vendor: 'BMW' } });
  const other = (await res.json() as { url: string }).url;
  await post(other, { action: 'login', clientId: BMW.clientId });
  await reloadUntil(other, (_res, page) => heading(page) === 'Add your car');
  const taken = await post(other, { action: 'add', vin: BMW.vin });
  assert.equal(taken.status, 422);
  assert.match(await taken.text(), /already connected to another user/);
  assert.equal(hub.daemon.db.devices.all().filter((d) => d.kind === 'vehicle').length, 1);

  // A session past its time: the page offers the way back with the reason.
  const late = await connect(hub, { vendor: 'VOLVO' });
  hub.daemon.db.db.prepare('UPDATE connect_sessions SET expires_at = 0').run();
  const expired = await get(late);
  assert.equal(expired.status, 410);
  assert.match(await expired.text(), /status=FAILED&amp;error=SESSION_EXPIRED/);
});

test('an account with two cars: the owner chooses one, or the app\'s vin does; a VIN the account does not hold is NO_CAR', async (t) => {
  const hub = await startHub(t);
  const SECOND = 'WMW11DJ0000000002';
  hub.bmw.vehicleMappings.push({ vin: SECOND, mappingType: 'PRIMARY' });
  hub.bmw.approved = true;
  const pageUrl = await connect(hub, { vendor: 'MINI' });
  await post(pageUrl, { action: 'login', clientId: BMW.clientId });
  const { page } = await reloadUntil(pageUrl, (_res, p) => heading(p) === 'Add your car');
  assert.match(page, new RegExp(`<input type="radio" name="vin" value="${BMW.vin}" id="car-0" checked>`));
  assert.match(page, new RegExp(`<input type="radio" name="vin" value="${SECOND}" id="car-1">`));
  const unknown = await post(pageUrl, { action: 'add', vin: 'WBA00000000000000' });
  assert.equal(unknown.status, 400, 'a car the login did not offer');
  const vehicleId = outcome(await post(pageUrl, { action: 'add', vin: SECOND })).get('vehicleId')!;
  assert.equal(hub.daemon.db.devices.get(vehicleId)!.staticData['vin'], SECOND);

  // The app names the car: the page offers that one only.
  const named = await connect(hub, { vendor: 'BMW', vin: BMW.vin });
  await post(named, { action: 'login', clientId: BMW.clientId });
  const { page: one } = await reloadUntil(named, (_res, p) => heading(p) === 'Add your car');
  assert.match(one, new RegExp(`<input type="hidden" name="vin" value="${BMW.vin}">`));
  assert.doesNotMatch(one, new RegExp(SECOND));

  const absent = await connect(hub, { vendor: 'BMW', vin: 'WBA11AA0000000009' });
  await post(absent, { action: 'login', clientId: BMW.clientId });
  const { page: none } = await reloadUntil(absent, (_res, p) => /No car this hub can read/.test(p));
  assert.equal(heading(none), 'Connect your BMW');
});
