// Connect sessions, available vendors and their logos.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestHub, json } from '../support/hub.ts';
import { VendorCatalog } from '../../src/domain/vendors.ts';
import { TestProber } from '../support/pairing.ts';

const good = { redirectUrl: 'https://app.example/paired?x=1', vendor: 'GO_E', userId: 'user-1' };

test('POST /connections/chargers answers 201 with a single-use pairing URL on the hub', async (t) => {
  const hub = createTestHub({ pairing: new TestProber() });
  t.after(hub.close);
  const res = await hub.request('/connections/chargers?theme=DARK&language=GERMAN', { method: 'POST', json: good });
  assert.equal(res.status, 201);
  assert.equal(res.headers.get('cache-control'), 'no-store', 'a single-use pairing URL must not sit in a cache');
  assert.equal(res.headers.get('content-type'), 'application/json');
  const { url } = await json(res);
  assert.match(url, /^http:\/\/hub\.test:8080\/connect\/[A-Za-z0-9_-]{32}$/);
  const token = url.split('/').pop();
  const session = hub.store.connectSessions.find(token)!;
  assert.equal(session.userId, 'user-1');
  assert.equal(session.vendor, 'GO_E');
  assert.equal(session.theme, 'DARK');
  assert.equal(session.language, 'GERMAN');
  assert.equal(session.vin, null, 'a charger session binds no car');
  assert.equal(session.expiresAtMs, hub.clock.now() + 15 * 60_000);
  assert.equal(hub.store.connectSessions.consume(token, hub.clock.now()), true);
  assert.equal(hub.store.connectSessions.consume(token, hub.clock.now()), false, 'single use');
});

test('a connect session expires', async (t) => {
  const hub = createTestHub({ pairing: new TestProber() });
  t.after(hub.close);
  const { url } = await json(await hub.request('/connections/chargers', { method: 'POST', json: good }));
  const token = url.split('/').pop();
  assert.equal(hub.store.connectSessions.consume(token, hub.clock.now() + 15 * 60_000 + 1), false);
});

test('the connect request validates every field, the query, and stores nothing on error', async (t) => {
  const hub = createTestHub({ pairing: new TestProber() });
  t.after(hub.close);
  const cases: [unknown, string, string[]][] = [
    [{}, '', ['redirectUrl', 'userId', 'vendor']],
    [{ ...good, redirectUrl: 'ftp://x.example/' }, '', ['redirectUrl']],
    [{ ...good, redirectUrl: '/relative' }, '', ['redirectUrl']],
    [{ ...good, redirectUrl: `https://x.example/${'a'.repeat(2048)}` }, '', ['redirectUrl']],
    [{ ...good, vendor: 'TESLA' }, '', ['vendor']],
    [{ ...good, redirectUrl: ' https://x.example/' }, '', ['redirectUrl']],
    [{ ...good, userId: '' }, '', ['userId']],
    [{ ...good, userId: '   ' }, '', ['userId']],
    [{ ...good, userId: 'u'.repeat(51) }, '', ['userId']],
    [good, '?theme=BLUE&language=SPANISH', ['language', 'theme']],
  ];
  for (const [body, query, fields] of cases) {
    const res = await hub.request(`/connections/chargers${query}`, { method: 'POST', json: body });
    assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
    const errors = (await json(res)).validationErrors.map((e: { field: string }) => e.field).sort();
    assert.deepEqual(errors, fields);
  }
  assert.equal((await hub.request('/connections/chargers', { method: 'POST', json: { ...good, userId: 'u'.repeat(50) } })).status, 201);
  const noBody = await json(await hub.request('/connections/chargers', { method: 'POST' }));
  assert.deepEqual(noBody.validationErrors, [{ field: 'body', message: 'is required' }]);
});

test('the connect request refuses a charger vendor the hub cannot pair, naming those it can, in one message', async (t) => {
  const hub = createTestHub({ pairing: new TestProber() });
  t.after(hub.close);
  const message = 'must be a charger vendor this hub can pair: GO_E';
  // A catalog vendor this hub cannot pair and a word outside the catalog get the same answer.
  for (const vendor of ['EASEE', 'TESLA', 'nope']) {
    const res = await hub.request('/connections/chargers', { method: 'POST', json: { ...good, vendor } });
    assert.equal(res.status, 400);
    assert.deepEqual((await json(res)).validationErrors, [{ field: 'vendor', message }], vendor);
  }
  // Beside the body's other problems, all at once.
  const all = await hub.request('/connections/chargers', { method: 'POST', json: { vendor: 'EASEE' } });
  assert.deepEqual((await json(all)).validationErrors.map((e: { field: string }) => e.field).sort(), ['redirectUrl', 'userId', 'vendor']);
  const empty = await hub.request('/connections/chargers', { method: 'POST', json: {} });
  assert.deepEqual((await json(empty)).validationErrors.find((e: { field: string }) => e.field === 'vendor'), { field: 'vendor', message: 'is required' });

  const without = createTestHub();
  t.after(without.close);
  const none = await without.request('/connections/chargers', { method: 'POST', json: good });
  assert.equal(none.status, 400);
  assert.deepEqual((await json(none)).validationErrors, [{ field: 'vendor', message: 'cannot be paired: this hub pairs no charger vendor' }]);
});

const car = { redirectUrl: 'https://app.example/car?x=1', vendor: 'BMW', userId: 'user-1' };

test('POST /connections/vehicles answers 405 TELEMATICS_NOT_SUPPORTED for a vehicle vendor no family connects, and stores no session', async (t) => {
  const vendors = new VendorCatalog();
  const hub = createTestHub({ vendors });
  t.after(hub.close);
  // TESLA, VW… reach the hub through bridges (MQTT): nothing here connects them; BMW only once its family lists it.
  for (const vendor of ['TESLA', 'VW', 'MERCEDES', 'BMW']) {
    const res = await hub.request('/connections/vehicles', { method: 'POST', json: { ...car, vendor } });
    assert.equal(res.status, 405, vendor);
    const body = await json(res);
    assert.equal(body.errorCode, 'TELEMATICS_NOT_SUPPORTED');
    assert.equal(body.message, `This hub cannot connect ${vendor} vehicles`);
  }
  const count = () => hub.store.db.prepare('SELECT count(*) AS n FROM connect_sessions').get() as { n: number };
  assert.equal(count().n, 0);

  vendors.registerVendor('vehicles', 'BMW');
  const res = await hub.request('/connections/vehicles?theme=LIGHT&language=GERMAN', { method: 'POST', json: { ...car, vin: 'WBY11CF080CH47012' } });
  assert.equal(res.status, 201);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  const { url } = await json(res);
  assert.match(url, /^http:\/\/hub\.test:8080\/connect\/[A-Za-z0-9_-]{32}$/);
  const session = hub.store.connectSessions.find(url.split('/').pop())!;
  assert.deepEqual([session.userId, session.vendor, session.redirectUrl, session.theme, session.language, session.vin], ['user-1', 'BMW', car.redirectUrl, 'LIGHT', 'GERMAN', 'WBY11CF080CH47012']);
  assert.equal(session.expiresAtMs, hub.clock.now() + 15 * 60_000);
});

test('the vehicle connect request validates every field before the vendor is weighed', async (t) => {
  const hub = createTestHub();
  t.after(hub.close);
  const cases: [unknown, string[]][] = [
    [{}, ['redirectUrl', 'userId', 'vendor']],
    [{ ...car, vendor: 'GO_E' }, ['vendor']],
    [{ ...car, vendor: 'bmw' }, ['vendor']],
    [{ ...car, vin: 'WBY11CF080CH4701' }, ['vin']],
    [{ ...car, vin: 'WBY11CF080CH4701O' }, ['vin']],
    [{ ...car, vin: 17 }, ['vin']],
    [{ ...car, redirectUrl: '/relative', userId: '  ' }, ['redirectUrl', 'userId']],
  ];
  for (const [body, fields] of cases) {
    const res = await hub.request('/connections/vehicles', { method: 'POST', json: body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.deepEqual((await json(res)).validationErrors.map((e: { field: string }) => e.field).sort(), fields);
  }
  const bad = await hub.request('/connections/vehicles?theme=BLUE', { method: 'POST', json: car });
  assert.deepEqual((await json(bad)).validationErrors.map((e: { field: string }) => e.field), ['theme']);
});

test('available vendors list only makers a driver reaches, with logos served by the hub', async (t) => {
  const vendors = new VendorCatalog();
  const hub = createTestHub({ vendors });
  t.after(hub.close);
  assert.deepEqual(await json(await hub.request('/connections/available-vendors')), {
    hvac: [], vehicles: [], chargers: [], homePower: [], tariffs: [],
  });
  vendors.registerVendor('homePower', 'SMA');
  vendors.registerVendor('homePower', 'FRONIUS');
  vendors.registerVendor('chargers', 'GO_E');
  const body = await json(await hub.request('/connections/available-vendors'));
  assert.deepEqual(body.homePower, [
    { id: 'FRONIUS', name: 'Fronius', logoUrl: 'http://hub.test:8080/logos/fronius.svg' },
    { id: 'SMA', name: 'SMA', logoUrl: 'http://hub.test:8080/logos/sma.svg' },
  ]);
  assert.deepEqual(body.chargers, [{ id: 'GO_E', name: 'go-e', logoUrl: 'http://hub.test:8080/logos/go-e.svg' }]);
  const logo = await hub.app.request('/logos/go-e.svg');
  assert.equal(logo.status, 200);
  assert.equal(logo.headers.get('content-type'), 'image/svg+xml');
  assert.match(await logo.text(), /^<svg [^>]*>.*go-e.*<\/svg>$/s);
  assert.equal((await hub.app.request('/logos/../../etc/passwd')).status, 404);
  assert.throws(() => vendors.registerVendor('homePower', 'ACME'), /unknown vendor/);
});
