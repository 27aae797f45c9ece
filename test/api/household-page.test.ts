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
import { storedStateRuntime, type Runtime } from '../../src/runtime/devices/live.ts';
import { HubEvents } from '../../src/runtime/events/hub-events.ts';
import { HouseholdSeries } from '../../src/runtime/household/household-series.ts';
import { DeviceSightings } from '../../src/runtime/household/device-sightings.ts';
import { localMidnight } from '../../src/runtime/household/household-today.ts';
import { POINT_MS } from '../../src/store/household-series.ts';
import { silentLogger } from '../../src/log.ts';
import { prepareImport } from '../../src/domain/import.ts';
import { builtInBindingDefaults } from '../../src/binding-defaults.ts';

const USER = 'household-3';
const PV = '1e6d3b2f-0000-4000-8000-0000000000a7';
const METER = '2f7e4c3a-0000-4000-8000-0000000000b7';

function setup(t: import('node:test').TestContext, runtime: Runtime = storedStateRuntime, clock = { now: () => Date.now() }) {
  const store = Store.open(':memory:');
  const key = store.apiKeys.create('page', clock.now()).key;
  const prepared = prepareImport([
    { kind: 'pvInverter', id: PV, userId: USER, isOnline: true, staticData: { vendor: 'SMA', model: 'Sunny Tripower 8.0' }, powerState: { solarPower: 4.2 } },
    { kind: 'meter', id: METER, userId: USER, staticData: { vendor: 'SMA', model: 'Home Manager 2.0' }, isOnline: false, driver: { type: 'sma', host: '192.0.2.10', password: 'hunter2-secret', role: 'grid' } },
  ], clock.now(), (id) => store.devices.get(id)?.kind, () => undefined);
  store.importDevices(prepared.devices, prepared.images, clock.now(), prepared.ocppCredentials);
  const events = new HubEvents();
  const series = new HouseholdSeries({ store, events, clock, log: silentLogger() });
  series.start();
  const sightings = new DeviceSightings(events);
  sightings.start();
  const { app } = createApp({
    store, log: silentLogger(), clock, vendors: new VendorCatalog(), runtime, bindingDefaults: builtInBindingDefaults(),
    settings: { ...DEFAULT_API_SETTINGS, publicUrl: 'http://hub.test' },
    household: { events, flowsOf: (u) => series.flowsOf(u), seenAtOf: (id) => sightings.seenAtMs(id) },
  });
  t.after(() => {
    sightings.stop();
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
  // The browser's icon request finds one, and the page names it.
  const icon = await app.request('/favicon.ico');
  assert.equal(icon.status, 200);
  assert.match(icon.headers.get('content-type')!, /image\/svg\+xml/);
  assert.match(await icon.text(), /^<svg /);
  assert.match(text, /<link rel="icon" href="\/favicon.ico"/);
});

test('an offline device\'s reason is never invented: no driver, no answer, no answer since a time the hub saw', async (t) => {
  const { app, key, store, events } = setup(t);
  const THERMOSTAT = '3a8f5d4b-0000-4000-8000-0000000000c7';
  // Both were last updated, by their import, 90 minutes ago: a time the hub never saw.
  const importedMs = Date.now() - 90 * 60_000;
  const prepared = prepareImport([
    { kind: 'hvac', id: THERMOSTAT, userId: USER, isOnline: false, lastUpdated: new Date(importedMs).toISOString(), type: 'THERMOSTAT', staticData: { vendor: 'VIESSMANN', model: 'Vitocal 250-A' } },
  ], Date.now(), (id) => store.devices.get(id)?.kind, () => undefined);
  store.importDevices(prepared.devices, prepared.images, Date.now(), prepared.ocppCredentials);
  store.devices.updateState(METER, null, false, importedMs);
  type Reasons = { devices: { detail: { id: string }; reason?: unknown }[] };
  const reasons = async () => Object.fromEntries(((await (await app.request('/home/devices', { headers: { 'x-api-key': key } })).json()) as Reasons).devices
    .map((d) => [d.detail.id, d.reason]));
  let now = await reasons();
  assert.deepEqual(now[THERMOSTAT], { code: 'noDriver' }, 'no binding: no driver reaches it');
  assert.deepEqual(now[METER], { code: 'noAnswer' }, 'a binding the hub has not heard from: no time at all');
  assert.equal(now[PV], undefined, 'an online device has no reason');
  // The hub hears from the meter, then it falls silent: the time is the one the hub saw.
  const seenMs = Date.now() - 5_000;
  events.emit({ type: 'update', device: { ...store.devices.get(METER)!, isOnline: true }, atMs: seenMs });
  events.emit({ type: 'offline', device: store.devices.get(METER)!, atMs: seenMs + 4_000 });
  now = await reasons();
  assert.deepEqual(now[METER], { code: 'noAnswer', since: new Date(Math.floor(seenMs / 1000) * 1000).toISOString().replace('.000Z', 'Z') });
});

test('today\'s figures are the API\'s: energy from the series\' points, cost the sum of the consumption endpoint\'s hours, prices from its prices', async (t) => {
  // Half past two in the afternoon, hub's time: today has 14 hours behind it.
  const nowMs = localMidnight(Date.now()) + 14.5 * 3_600_000;
  const { app, key, store } = setup(t, storedStateRuntime, { now: () => nowMs });
  const TARIFF = '6dbc8a7e-0000-4000-8000-0000000000d7';
  const prepared = prepareImport([
    { kind: 'tariff', id: TARIFF, userId: USER, isOnline: true, staticData: { vendor: 'TIBBER', name: 'Dynamic', currency: 'EUR' } },
  ], nowMs, (id) => store.devices.get(id)?.kind, () => undefined);
  store.importDevices(prepared.devices, prepared.images, nowMs, prepared.ocppCredentials);
  const midnight = localMidnight(nowMs);
  const HOUR = 3_600_000;
  // Prices every hour from yesterday evening to tonight; counters every hour since yesterday evening.
  for (let h = -4; h <= 20; h++) store.tariffLedger.recordPrice(TARIFF, midnight + h * HOUR, Math.round((0.2 + 0.01 * ((h * 7) % 13)) * 10000) / 10000, 0);
  for (let h = -4, counter = 1000; h <= 14; h++, counter += 0.4 + (h % 5) * 0.3) store.tariffLedger.recordHour(METER, midnight + h * HOUR, Math.round(counter * 1000) / 1000, 0);
  // Points from yesterday evening on, some importing, some exporting, the battery both ways.
  for (let at = midnight - 2 * HOUR; at < nowMs - POINT_MS; at += POINT_MS) {
    const i = (at - midnight) / POINT_MS;
    store.householdSeries.add(USER, { startMs: at, pvKw: Math.max(0, Math.sin(i / 40) * 5), homeKw: 1 + (i % 7) * 0.1, gridKw: ((i % 11) - 5) * 0.3, batteryKw: ((i % 9) - 4) * 0.2, carKw: i % 13 < 4 ? 3.7 : 0, batterySoc: 50, price: 0.25 });
  }
  const get = async (path: string) => (await app.request(path, { headers: { 'x-api-key': key } })).json() as Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  const today = await get(`/home/today?user=${USER}`);
  assert.deepEqual(today, (await get('/home/devices')).today, 'the page reads the same figures both ways');
  assert.equal(Date.parse(today.since), midnight);

  // Energy: the series API's points since midnight, 5 minutes each.
  const points = (await get(`/v1.0.0/users/${USER}/household/series?hours=48`)).points.filter((p: { startDate: string }) => Date.parse(p.startDate) >= midnight);
  assert.ok(points.length > 100);
  const kwh = (f: (p: Record<string, number>) => number) => Math.round(points.reduce((s: number, p: Record<string, number>) => s + Math.max(0, f(p)) / 12, 0) * 100) / 100;
  assert.deepEqual(today.energy, {
    pvKwh: kwh((p) => p['pvPower']!), gridImportKwh: kwh((p) => p['gridPower']!), gridExportKwh: kwh((p) => -p['gridPower']!),
    batteryChargeKwh: kwh((p) => p['batteryPower']!), batteryDischargeKwh: kwh((p) => -p['batteryPower']!), carKwh: kwh((p) => p['carPower']!),
    homeKwh: kwh((p) => p['consumptionPower']!),
  });
  assert.ok(today.energy.carKwh > 0, 'the car charged today');
  // The grid's import fed the car as well as the house: the share is of both.
  assert.equal(today.selfSufficiency, Math.round((1 - today.energy.gridImportKwh / (today.energy.homeKwh + today.energy.carKwh)) * 100));

  // Cost: today's hours of the consumption endpoint, summed; yesterday's are not in it.
  const hours = (await get(`/v1.0.0/tariffs/${TARIFF}/consumption?size=100`)).content as { startDate: string; consumption: number; cost: number }[];
  const todays = hours.filter((h) => Date.parse(h.startDate) >= midnight);
  assert.equal(todays.length, 14);
  assert.ok(hours.length > todays.length);
  assert.equal(today.tariff.cost, Math.round(todays.reduce((s, h) => s + h.cost, 0) * 10000) / 10000);
  assert.equal(today.tariff.importKwh, Math.round(todays.reduce((s, h) => s + h.consumption, 0) * 1000) / 1000);
  assert.equal(today.tariff.hours, 14);

  // Prices: the one in force now, and the three cheapest published for later, by time.
  const prices = (await get(`/v1.0.0/tariffs/${TARIFF}/prices`)) as { startDate: string; totalPrice: number }[];
  assert.equal(today.tariff.priceNow, prices.filter((p) => Date.parse(p.startDate) <= nowMs).at(-1)!.totalPrice);
  const ahead = prices.filter((p) => Date.parse(p.startDate) > nowMs);
  const cheapest = [...ahead].sort((a, b) => a.totalPrice - b.totalPrice).slice(0, 3);
  assert.deepEqual(today.tariff.cheapest.map((p: { totalPrice: number }) => p.totalPrice).sort(), cheapest.map((p) => p.totalPrice).sort());
  assert.equal(today.tariff.currency, 'EUR');
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
  assert.deepEqual((meter as { reason?: unknown }).reason, { code: 'driver', text: refused }, 'an offline device carries its driver\'s reason');
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
    assert.equal((await app.request(`/home/today?user=${NEIGHBOUR}`, { headers: { 'x-api-key': k } })).status, 404);
    assert.equal((await app.request('/home/today', { headers: { 'x-api-key': k } })).status, 200);
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
