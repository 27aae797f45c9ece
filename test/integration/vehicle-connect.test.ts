// Connecting a car end to end, as a partner's app and its user do it: POST /connections/vehicles on
// the real daemon (real sockets on loopback), the hub's connect page, the maker's login run against
// the makers' simulators over HTTPS with a test CA (BMW CarData's device code, Volvo ID's
// authorization code with its redirect back to the hub), the car added, the browser sent back to
// redirectUrl, and the car then read by the cloud family like any other. The browser's own trip
// through the pages is test/integration/vehicle-connect-browser.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker } from '../support/broker.ts';
import { prepareImport } from '../../src/domain/import.ts';
import { skippedWithout } from '../support/peers.ts';
import { browse } from '../support/cloud-sims.ts';
import { BMW, CHARGER, REDIRECT, VOLVO, certificates, connect, startConnectHub, type ConnectHub } from '../support/connect-hub.ts';

const get = (url: string, cookie?: string) => fetch(url, { redirect: 'manual', ...(cookie ? { headers: { cookie } } : {}) });
/** The cookie a response sets (name=value), as a browser sends it back. */
const cookieOf = (res: Response) => res.headers.get('set-cookie')?.split(';', 1)[0];
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

function outcome(res: Response): URLSearchParams {
  assert.equal(res.status, 303);
  const location = new URL(res.headers.get('location')!);
  assert.equal(`${location.origin}${location.pathname}`, 'https://app.example/cars');
  assert.equal(location.searchParams.get('from'), 'hub', 'the redirect URL keeps its own query');
  return location.searchParams;
}

/** Logs in with Volvo through the hub's page and Volvo's simulated login; the page it ends on. */
async function volvoLogin(hub: ConnectHub, pageUrl: string): Promise<{ res: Response; page: string }> {
  const login = await post(pageUrl, { action: 'login', vccApiKey: VOLVO.vccApiKey, clientId: VOLVO.clientId, clientSecret: VOLVO.clientSecret });
  assert.equal(login.status, 200);
  const cookie = cookieOf(login);
  assert.ok(cookie, 'the page that sends the owner to Volvo ID sets the login\'s cookie');
  const onTheWay = await login.text();
  const to = onTheWay.match(/<meta http-equiv="refresh" content="0;url=([^"]+)">/)?.[1]?.replaceAll('&amp;', '&');
  assert.ok(to, 'the page goes on to Volvo ID by itself');
  assert.equal(new URL(to).origin, `https://localhost:${hub.volvo.port}`);
  // Volvo ID logs the owner in and sends the browser back to the hub's one callback address.
  const back = await browse(to, hub.ca);
  assert.equal(back.status, 302);
  assert.equal(new URL(back.location!).origin + new URL(back.location!).pathname, `${hub.url}/connect/callback`);
  const callback = await get(back.location!, cookie);
  assert.equal(callback.status, 303);
  const res = await get(new URL(callback.headers.get('location')!, hub.url).href);
  return { res, page: await res.text() };
}

test('available vendors list the car makers the hub can connect: BMW, MINI and VOLVO', async (t) => {
  const hub = await startConnectHub(t);
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
  const hub = await startConnectHub(t);
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
  const hub = await startConnectHub(t, { streamUrl: `mqtts://localhost:${broker.port}`, certs });
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

test('BMW: an unknown client id is refused on the form, in the session\'s language; Cancel returns to the app', async (t) => {
  const hub = await startConnectHub(t);
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
  const hub = await startConnectHub(t);
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
  const hub = await startConnectHub(t);
  const pageUrl = await connect(hub, { vendor: 'VOLVO' });
  hub.volvo.loginDeclined = true;
  const { page: declined } = await volvoLogin(hub, pageUrl);
  assert.equal(heading(declined), 'Connect your Volvo');
  assert.match(declined, /The login was declined or not finished/);
  assert.doesNotMatch(declined, new RegExp(VOLVO.clientSecret), 'a secret is never sent back');

  hub.volvo.loginDeclined = false;
  const wrong = await post(pageUrl, { action: 'login', vccApiKey: VOLVO.vccApiKey, clientId: VOLVO.clientId, clientSecret: 'not-the-secret' });
  const to = (await wrong.text()).match(/content="0;url=([^"]+)"/)![1]!.replaceAll('&amp;', '&');
  const back = await browse(to, hub.ca);
  const callback = await get(back.location!, cookieOf(wrong));
  const refused = await (await get(new URL(callback.headers.get('location')!, hub.url).href)).text();
  assert.match(refused, /The maker refused these details/);

  // A form with a problem comes back with what was entered, but never the secret.
  const missing = await post(pageUrl, { action: 'login', vccApiKey: '', clientId: VOLVO.clientId, clientSecret: VOLVO.clientSecret });
  assert.equal(missing.status, 400);
  const again = await missing.text();
  assert.match(again, new RegExp(`name="clientId" type="text" value="${VOLVO.clientId}"`));
  assert.doesNotMatch(again, new RegExp(VOLVO.clientSecret));
  assert.match(again, /<input id="f-clientSecret" name="clientSecret" type="password" value=""/, 'typed unseen');

  const stray = await get(`${hub.url}/connect/callback?state=forged&code=x`);
  assert.equal(stray.status, 403, 'without the cookie of a login this browser began');
  const started = await post(pageUrl, { action: 'login', vccApiKey: VOLVO.vccApiKey, clientId: VOLVO.clientId, clientSecret: VOLVO.clientSecret });
  const forged = await get(`${hub.url}/connect/callback?state=forged&code=x`, cookieOf(started));
  assert.equal(forged.status, 404);
  assert.equal(heading(await forged.text()), 'Unknown link');
  assert.equal(hub.daemon.db.devices.all().filter((d) => d.kind === 'vehicle').length, 0);
});

test('a car already connected by another user is refused; an expired session goes back to the app with SESSION_EXPIRED', async (t) => {
  const hub = await startConnectHub(t);
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

test('a car another user has on the hub bound with its VIN in lower case (an import) is that car: refused', async (t) => {
  const hub = await startConnectHub(t);
  const driver = { type: 'bmw-cardata', clientId: BMW.clientId, gcid: BMW.gcid, vin: BMW.vin.toLowerCase() };
  const prepared = prepareImport([{ kind: 'vehicle', userId: 'user-2', driver, staticData: { vendor: 'BMW', name: 'Imported', model: 'i4' } }], Date.now(), () => undefined);
  hub.daemon.db.importDevices(prepared.devices, prepared.images, Date.now());
  hub.bmw.approved = true;
  const page = await connect(hub, { vendor: 'BMW' });
  await post(page, { action: 'login', clientId: BMW.clientId });
  await reloadUntil(page, (_res, html) => heading(html) === 'Add your car');
  const taken = await post(page, { action: 'add', vin: BMW.vin });
  assert.equal(taken.status, 422);
  assert.match(await taken.text(), /already connected to another user/);
  assert.deepEqual(hub.daemon.db.devices.all().filter((d) => d.kind === 'vehicle').map((d) => d.userId), ['user-2']);
});

test('an account with two cars: the owner chooses one, or the app\'s vin does; a VIN the account does not hold is NO_CAR', async (t) => {
  const hub = await startConnectHub(t);
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

test('Volvo: the callback goes on only in the browser that began the login; the same link elsewhere is refused and the owner still gets in', async (t) => {
  const hub = await startConnectHub(t);
  const pageUrl = await connect(hub, { vendor: 'VOLVO' });
  const login = await post(pageUrl, { action: 'login', vccApiKey: VOLVO.vccApiKey, clientId: VOLVO.clientId, clientSecret: VOLVO.clientSecret });
  const setCookie = login.headers.get('set-cookie') ?? '';
  assert.match(setCookie, /^hub_login=[A-Za-z0-9_-]{43}; Max-Age=900; Path=\/connect; HttpOnly; SameSite=Lax$/);
  const to = (await login.text()).match(/content="0;url=([^"]+)"/)![1]!.replaceAll('&amp;', '&');
  const back = await browse(to, hub.ca);

  // Someone else presents the link first: no cookie, a made-up one, or the cookie of another session's login.
  for (const cookie of [undefined, 'hub_login=made-up-value', 'other=1']) {
    const taken = await get(back.location!, cookie);
    assert.equal(taken.status, 403);
    assert.equal(taken.headers.get('location'), null, 'the session\'s page is not given away');
    const page = await taken.text();
    assert.equal(heading(page), 'Start again in this browser');
    assert.doesNotMatch(page, new RegExp(new URL(pageUrl).pathname));
  }
  const otherSession = await connect(hub, { vendor: 'VOLVO' });
  const otherLogin = await post(otherSession, { action: 'login', vccApiKey: VOLVO.vccApiKey, clientId: VOLVO.clientId, clientSecret: VOLVO.clientSecret });
  const crossed = await get(back.location!, cookieOf(otherLogin));
  assert.equal(crossed.status, 404, 'a browser that began another session\'s login: not its link');
  assert.equal(crossed.headers.get('location'), null);

  // The owner's browser, with its cookie, comes back to its session's page.
  const home = await get(back.location!, cookieOf(login));
  assert.equal(home.status, 303);
  assert.equal(new URL(home.headers.get('location')!, hub.url).pathname, new URL(pageUrl).pathname);
});
