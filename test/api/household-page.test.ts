// The household page's routes without a browser: the page and script hold no data and need no key,
// the devices and the live stream need it in the header (never in the URL), a binding shows where
// the device is but none of its secrets, and the stream starts with the flows and follows events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createApp } from '../../src/api/app.ts';
import { MAX_LIVE_STREAMS } from '../../src/api/household/live-slots.ts';
import { DEFAULT_API_SETTINGS } from '../../src/api/deps.ts';
import { Store } from '../../src/store/store.ts';
import { VendorCatalog } from '../../src/domain/vendors.ts';
import { storedStateRuntime, type Runtime } from '../../src/runtime/live.ts';
import { HubEvents } from '../../src/runtime/events/hub-events.ts';
import { HouseholdSeries } from '../../src/runtime/household-series.ts';
import { silentLogger } from '../../src/log.ts';
import { prepareImport } from '../../src/domain/import.ts';
import { builtInBindingDefaults } from '../../src/binding-defaults.ts';

const USER = 'household-3';
const PV = '1e6d3b2f-0000-4000-8000-0000000000a7';
const METER = '2f7e4c3a-0000-4000-8000-0000000000b7';

function setup(t: import('node:test').TestContext, runtime: Runtime = storedStateRuntime) {
  const store = Store.open(':memory:');
  const clock = { now: () => Date.now() };
  const key = store.apiKeys.create('page', clock.now()).key;
  const prepared = prepareImport([
    { kind: 'pvInverter', id: PV, userId: USER, isOnline: true, staticData: { vendor: 'SMA', model: 'Sunny Tripower 8.0' }, powerState: { solarPower: 4.2 } },
    { kind: 'meter', id: METER, userId: USER, staticData: { vendor: 'SMA', model: 'Home Manager 2.0' }, isOnline: false, driver: { type: 'sma', host: '192.0.2.10', password: 'hunter2-secret', role: 'grid' } },
  ], clock.now(), (id) => store.devices.get(id)?.kind, () => undefined);
  store.importDevices(prepared.devices, prepared.images, clock.now(), prepared.ocppCredentials);
  const events = new HubEvents();
  const series = new HouseholdSeries({ store, events, clock, log: silentLogger() });
  series.start();
  const { app } = createApp({
    store, log: silentLogger(), clock, vendors: new VendorCatalog(), runtime, bindingDefaults: builtInBindingDefaults(),
    settings: { ...DEFAULT_API_SETTINGS, publicUrl: 'http://hub.test' }, household: { events, flowsOf: (u) => series.flowsOf(u) },
  });
  t.after(() => {
    series.stop();
    store.close();
  });
  return { app, key, store, events };
}

test('the page and its script need no key and allow only the hub\'s own script, style and requests', async (t) => {
  const { app } = setup(t);
  const page = await app.request('/home', { headers: { 'accept-language': 'de-DE,de;q=0.9' } });
  assert.equal(page.status, 200);
  const csp = page.headers.get('content-security-policy')!;
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'/);
  assert.match(csp, /connect-src 'self'/);
  assert.doesNotMatch(csp, /unsafe-inline/);
  const text = await page.text();
  assert.match(text, /<html lang="de">/);
  assert.match(text, /Schlüssel vergessen/);
  assert.doesNotMatch(text, /household-3/, 'no data of the household');
  assert.match(await (await app.request('/home?lang=fr&theme=dark')).text(), /<html lang="fr" data-theme="dark">/);
  const script = await app.request('/home/app.js');
  assert.equal(script.status, 200);
  assert.match(script.headers.get('content-type')!, /javascript/);
  assert.match(await (await app.request('/')).text(), /href="\/home"/, 'the landing page links to it');
});

test('devices and the stream need the key in the header; a binding shows its address, not its password; an offline device its reason', async (t) => {
  const refused = 'the device refuses the hub\'s credentials (HTTP 401)';
  const { app, key } = setup(t, { ...storedStateRuntime, offlineReason: (device) => (device.id === METER ? refused : undefined) });
  assert.equal((await app.request('/home/devices')).status, 401);
  assert.equal((await app.request(`/home/live?user=${USER}`)).status, 401);
  const res = await app.request('/home/devices', { headers: { 'x-api-key': key } });
  assert.equal(res.status, 200);
  const body = await res.json() as { users: string[]; userId: string; devices: { kind: string; binding: string | null }[]; flows: Record<string, number> };
  assert.deepEqual(body.users, [USER]);
  assert.equal(body.flows['pvKw'], 4.2);
  const meter = body.devices.find((d) => d.kind === 'meter')!;
  assert.equal(meter.binding, 'sma, host 192.0.2.10');
  assert.equal((meter as { reason?: string }).reason, refused, 'an offline device carries its driver\'s reason');
  assert.equal('reason' in body.devices.find((d) => d.kind === 'pvInverter')!, false);
  assert.doesNotMatch(JSON.stringify(body), /hunter2/);
});

test('a scoped key sees its own household without a choice, a read-only key is told so, another household is not there', { timeout: 10_000 }, async (t) => {
  const { app, key, store } = setup(t);
  const NEIGHBOUR = 'household-4';
  const prepared = prepareImport([
    { kind: 'battery', id: '0d5c2a1e-0000-4000-8000-0000000000c1', userId: NEIGHBOUR, staticData: { vendor: 'SMA', model: 'Home Storage' } },
  ], Date.now(), (id) => store.devices.get(id)?.kind, () => undefined);
  store.importDevices(prepared.devices, prepared.images, Date.now(), prepared.ocppCredentials);
  const scoped = store.apiKeys.create('kitchen-tablet', Date.now(), { userId: USER, readOnly: false }).key;
  const readOnly = store.apiKeys.create('wall-display', Date.now(), { userId: USER, readOnly: true }).key;
  type Devices = { users: string[]; userId: string; readOnly: boolean; devices: { detail: { id: string; userId: string } }[] };
  const devicesOf = async (k: string, query = '') => (await app.request(`/home/devices${query}`, { headers: { 'x-api-key': k } })).json() as Promise<Devices>;

  // The partner's key chooses among every household, and is not read-only.
  const partner = await devicesOf(key, `?user=${NEIGHBOUR}`);
  assert.deepEqual([partner.users, partner.userId, partner.readOnly], [[USER, NEIGHBOUR], NEIGHBOUR, false]);
  for (const [k, isReadOnly] of [[scoped, false], [readOnly, true]] as const) {
    // Asking for the neighbour changes nothing: the key's own household, and no other to choose.
    const body = await devicesOf(k, `?user=${NEIGHBOUR}`);
    assert.deepEqual([body.users, body.userId, body.readOnly], [[USER], USER, isReadOnly]);
    assert.deepEqual([...new Set(body.devices.map((d) => d.detail.userId))], [USER]);
    assert.equal((await app.request(`/home/live?user=${NEIGHBOUR}`, { headers: { 'x-api-key': k } })).status, 404);
    // Without ?user the stream is the key's own household.
    const abort = new AbortController();
    const own = await app.request('/home/live', { headers: { 'x-api-key': k }, signal: abort.signal });
    assert.equal(own.status, 200);
    const reader = own.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!/event: flows/.test(text)) text += (await reader.read()).value ?? '';
    abort.abort();
  }
  // The page says so in its three languages; the script shows the line only for a read-only key.
  for (const [lang, words] of [['en', /This key is read-only/], ['de', /Dieser Schlüssel ist schreibgeschützt/], ['fr', /Cette clé est en lecture seule/]] as const) {
    assert.match(await (await app.request(`/home?lang=${lang}`)).text(), new RegExp(`<p id="read-only" class="note" hidden>${words.source}`));
  }
  assert.match(await (await app.request('/home/app.js')).text(), /\$\('read-only'\)\.hidden = !body\.readOnly/);
});

test('the stream starts with the flows and tells a device\'s change', { timeout: 10_000 }, async (t) => {
  const { app, key, store, events } = setup(t);
  const abort = new AbortController();
  t.after(() => abort.abort());
  const res = await app.request(`/home/live?user=${USER}`, { headers: { 'x-api-key': key }, signal: abort.signal });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type')!, /text\/event-stream/);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  const until = async (pattern: RegExp) => {
    while (!pattern.test(text)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended before ${pattern}: ${text}`);
      text += value;
    }
  };
  await until(/event: flows\ndata: \{"pvKw":4.2,/);
  const pv = store.devices.get(PV)!;
  events.emit({ type: 'update', device: { ...pv, state: { solarPower: 5.1 } }, atMs: Date.now() });
  await until(/event: device\ndata: .*"solarPower":5.1/);
  await until(/event: flows\ndata: \{"pvKw":5.1,/);
});

test('live streams are limited, and a closed one frees its place', { timeout: 10_000 }, async (t) => {
  const { app, key } = setup(t);
  const open = async () => {
    const abort = new AbortController();
    t.after(() => abort.abort());
    const res = await app.request(`/home/live?user=${USER}`, { headers: { 'x-api-key': key }, signal: abort.signal });
    return { res, abort };
  };
  const streams = [];
  for (let i = 0; i < MAX_LIVE_STREAMS; i++) streams.push(await open());
  assert.ok(streams.every((s) => s.res.status === 200));
  assert.equal((await open()).res.status, 429);
  streams[0]!.abort.abort();
  assert.equal((await open()).res.status, 200);
});
