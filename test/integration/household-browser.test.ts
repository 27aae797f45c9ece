// The household page (/home) end to end in headless Chromium (playwright-core, Debian's
// /usr/bin/chromium): the demo household on a loopback socket; the page asks for the key once, shows
// the flows that the API's values add up to, updates them by itself from the live stream, shows an
// offline device as such, and a command created through the API with its outcome. Screenshots at
// phone and desktop width, light and dark, go to .test-artefacts/household/ (gitignored).
// Without Chromium it is skipped, and under CI=true it fails (test/support/peers.ts).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { once } from 'node:events';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Browser, Page } from 'playwright-core';
import { createApp } from '../../src/api/app.ts';
import { DEFAULT_API_SETTINGS, type ApiDeps, type ApiSettings } from '../../src/api/deps.ts';
import { Store } from '../../src/store/store.ts';
import { VendorCatalog } from '../../src/domain/vendors.ts';
import { prepareImport } from '../../src/domain/import.ts';
import { storedStateRuntime } from '../../src/runtime/live.ts';
import { HubEvents } from '../../src/runtime/events/hub-events.ts';
import { HouseholdSeries } from '../../src/runtime/household-series.ts';
import { POINT_MS } from '../../src/store/household-series.ts';
import { demoRecords, DEMO_USER } from '../../src/demo/site.ts';
import { silentLogger } from '../../src/log.ts';
import { skipWithout } from '../support/peers.ts';
import { launchChromium, recordingPage } from '../support/browser.ts';
import { builtInBindingDefaults } from '../../src/binding-defaults.ts';
import { VENDORS_BY_KIND } from '../../src/domain/vocabulary.ts';
import { DeviceSightings } from '../../src/runtime/device-sightings.ts';

const skip = skipWithout('chromium');
const ARTEFACTS = join(resolve(dirname(fileURLToPath(import.meta.url)), '..', '..'), '.test-artefacts', 'household');
const PV_CARPORT = '1e6d3b2f-8b5c-4a8f-8c4f-2b3c4d5e6f02';
const THERMOSTAT = '3a8f5d4b-ad7e-4cab-8e6b-4d5e6f7a8b03';
const CHARGER = '4b9a6e5c-be8f-4dbc-9f7c-5e6f7a8b9c01';
const CARPORT_CHARGER = '4b9a6e5c-be8f-4dbc-9f7c-5e6f7a8b9c02';

async function startHub(t: TestContext) {
  const store = Store.open(':memory:');
  const clock = { now: () => Date.now() };
  const key = store.apiKeys.create('browser-test', clock.now()).key;
  const prepared = prepareImport(demoRecords(clock.now()), clock.now(), (id) => store.devices.get(id)?.kind, () => undefined);
  store.importDevices(prepared.devices, prepared.images, clock.now(), prepared.ocppCredentials);
  const events = new HubEvents();
  const series = new HouseholdSeries({ store, events, clock, log: silentLogger() });
  series.start();
  const sightings = new DeviceSightings(events);
  sightings.start();
  // Points of the last half hour, as the sampler leaves them, so that the curves have something to draw.
  for (let i = 6; i >= 1; i--) {
    store.householdSeries.add(DEMO_USER, { startMs: Math.floor(clock.now() / POINT_MS) * POINT_MS - i * POINT_MS, pvKw: 6 - i * 0.5, homeKw: 2 + i * 0.1, gridKw: -1 + i * 0.3, batteryKw: 1, batterySoc: 60 + i, price: 0.28 });
  }
  const settings: ApiSettings = { ...DEFAULT_API_SETTINGS, publicUrl: 'http://127.0.0.1:0' };
  const deps: ApiDeps = {
    store, log: silentLogger(), clock, vendors: new VendorCatalog(), settings, bindingDefaults: builtInBindingDefaults(),
    // A hub without drivers: a command is stored and told, as the worker tells it.
    runtime: {
      ...storedStateRuntime,
      commandCreated: (command) => events.emit({ type: 'command', command, atMs: clock.now() }),
      // What the HTTP family says of a device that refuses the hub's login (HubRuntime.offlineReason).
      offlineReason: (device) => (device.id === CARPORT_CHARGER ? 'the device refuses the hub\'s credentials' : undefined),
    },
    household: { events, flowsOf: (userId) => series.flowsOf(userId), seenAtOf: (id) => sightings.seenAtMs(id) },
  };
  const server = serve({ fetch: createApp(deps).app.fetch, hostname: '127.0.0.1', port: 0 }) as Server;
  if (!server.listening) await once(server, 'listening');
  settings.publicUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.after(async () => {
    sightings.stop();
    series.stop();
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
    store.close();
  });
  const api = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${settings.publicUrl}/v1.0.0${path}`, { ...init, headers: { 'x-api-key': key, 'content-type': 'application/json' } });
    assert.ok(res.ok, `${path}: ${res.status} ${await res.clone().text()}`);
    return res.json() as Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  return { store, events, key, url: settings.publicUrl, api, clock };
}

const launch = launchChromium;

function newPage(browser: Browser, t: TestContext, options: { width: number; height: number; colorScheme: 'light' | 'dark'; locale?: string }) {
  return recordingPage(browser, t, { viewport: { width: options.width, height: options.height }, colorScheme: options.colorScheme, locale: options.locale ?? 'en-GB' });
}

async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(`${url}/home`);
  await page.locator('#key-input').fill(key);
  await page.locator('#key-form button').click();
  await page.locator('#flows').waitFor({ state: 'visible' });
}

const kwText = (kw: number) => `${kw.toFixed(2)} kW`;
const METER = '2f7e4c3a-9c6d-4b9a-9d5a-3c4d5e6f7a01';
const TARIFF = '6dbc8a7e-da8b-4fde-9b9e-7a8b9cadbe01';
const HOUR = 3_600_000;

/** A tariff's prices for the last hours and the next, and the grid meter's hourly counters: what the ledger records. */
function seedLedger(store: Store, nowMs: number): void {
  const hour = Math.floor(nowMs / HOUR) * HOUR;
  for (let h = -6; h <= 8; h++) store.tariffLedger.recordPrice(TARIFF, hour + h * HOUR, Math.round((0.22 + 0.015 * ((h * 5 + 13) % 9)) * 10000) / 10000, 0);
  for (let h = -6, counter = 4321.5; h <= 0; h++, counter += 0.7 + (h % 3) * 0.45) store.tariffLedger.recordHour(METER, hour + h * HOUR, Math.round(counter * 1000) / 1000, 0);
}

/** The words a household sees: text of rendered elements, not in a folded <details>, not hidden. */
function visibleText(page: Page): Promise<string> {
  // A string: the test's TypeScript has no DOM types.
  return page.evaluate(`(() => {
    const out = [];
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const e = n.parentElement;
      if (e && e.checkVisibility({ checkVisibilityCSS: true }) && !e.closest('details:not([open]) > :not(summary)')) out.push(n.textContent);
    }
    return out.join(' ');
  })()`);
}

/** The API's field names and its enum values (vendors aside, which are makers' names), from the OpenAPI document's schemas. */
function apiNames(doc: { components: { schemas: Record<string, unknown> } }): Set<string> {
  const names = new Set<string>();
  const vendors = new Set(Object.values(VENDORS_BY_KIND).flat());
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    if (o['properties'] && typeof o['properties'] === 'object') for (const name of Object.keys(o['properties'])) if (/[a-z][A-Z]/.test(name)) names.add(name);
    if (Array.isArray(o['enum'])) for (const v of o['enum']) if (typeof v === 'string' && /^[A-Z][A-Z_]{2,}$/.test(v) && !vendors.has(v)) names.add(v);
    for (const v of Object.values(o)) visit(v);
  };
  visit(doc.components.schemas);
  return names;
}

test('the household page in Chromium: the key once, flows and today\'s figures that are the API\'s, devices and commands in words, curves that follow the stream', { skip, timeout: 120_000 }, async (t) => {
  const hub = await startHub(t);
  seedLedger(hub.store, hub.clock.now());
  // The grid meter reports: the flows' grid is the API's.
  const meterState = { lastUpdated: new Date().toISOString(), power: -1.25, meterValue: 4325.1 };
  hub.store.devices.updateState(METER, meterState, true, hub.clock.now());
  hub.events.emit({ type: 'update', device: hub.store.devices.get(METER)!, atMs: hub.clock.now() });
  const browser = await launch(t);
  mkdirSync(ARTEFACTS, { recursive: true });
  const { page, errors } = await newPage(browser, t, { width: 1280, height: 1000, colorScheme: 'light' });
  await signIn(page, hub.url, hub.key);

  // The flows are what the API's values add up to, each with its direction, and they balance.
  const inverters = await hub.api(`/users/${DEMO_USER}/pv-inverters`);
  let pv = 0;
  for (const { id, isOnline } of inverters.content as { id: string; isOnline: boolean }[]) {
    if (isOnline) pv += (await hub.api(`/users/${DEMO_USER}/pv-inverters/${id}`)).powerState?.solarPower ?? 0;
  }
  assert.equal(await page.locator('#kw-pv').textContent(), kwText(pv));
  const batteries = await hub.api(`/users/${DEMO_USER}/batteries`);
  let charge = 0;
  for (const { id } of batteries.content as { id: string }[]) charge += (await hub.api(`/users/${DEMO_USER}/batteries/${id}`)).chargeState.chargeRate;
  assert.equal(await page.locator('#kw-battery').textContent(), kwText(Math.abs(charge)));
  assert.equal(await page.locator('#sub-battery').textContent(), charge > 0 ? 'charging' : 'discharging');
  assert.match((await page.locator('#name-battery').textContent())!, /^Battery \d+ %$/);
  const grid = (await hub.api(`/users/${DEMO_USER}/meters/${METER}`)).powerState.power as number;
  assert.equal(await page.locator('#kw-grid').textContent(), kwText(Math.abs(grid)));
  assert.equal(await page.locator('#sub-grid').textContent(), grid < 0 ? 'selling' : 'buying');
  const flows = JSON.parse((await page.locator('#flows').getAttribute('data-flows'))!) as Record<string, number>;
  assert.ok(Math.abs(flows['pvKw']! + flows['gridKw']! - flows['batteryKw']! - flows['homeKw']!) < 0.002, `the flows balance: ${JSON.stringify(flows)}`);
  assert.equal(await page.locator('#kw-home').textContent(), kwText(pv + grid - charge));

  // Today: the cost is the sum of the consumption endpoint's hours of today, the price the prices' one in force.
  const since = Date.parse((await (await fetch(`${hub.url}/home/today?user=${DEMO_USER}`, { headers: { 'x-api-key': hub.key } })).json() as { since: string }).since);
  const hours = (await hub.api(`/tariffs/${TARIFF}/consumption?size=48`)).content as { startDate: string; cost?: number }[];
  const cost = Math.round(hours.filter((h) => Date.parse(h.startDate) >= since).reduce((s, h) => s + (h.cost ?? 0), 0) * 10000) / 10000;
  assert.ok(since > hub.clock.now() - 6 * HOUR || cost > 0, 'some of the seeded hours are today\'s');
  assert.equal(Number(await page.locator('#cost-today').getAttribute('data-value')), cost);
  assert.equal(await page.locator('#cost-today').textContent(), new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'EUR', minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(cost));
  const prices = (await hub.api(`/tariffs/${TARIFF}/prices`)) as { startDate: string; totalPrice: number }[];
  const priceNow = prices.filter((p) => Date.parse(p.startDate) <= hub.clock.now()).at(-1)!.totalPrice;
  assert.equal(Number(await page.locator('#price-now').getAttribute('data-value')), priceNow);
  assert.match((await page.locator('#cheapest').textContent())!, /^Cheapest ahead: \d\d:\d\d /);
  // Today's energy is the series' points since midnight, 5 minutes each.
  const todays = ((await hub.api(`/users/${DEMO_USER}/household/series`)).points as Record<string, number>[]).filter((p) => Date.parse(String(p['startDate'])) >= since);
  const kwh = (f: (p: Record<string, number>) => number) => Math.round(todays.reduce((s, p) => s + Math.max(0, f(p)) / 12, 0) * 100) / 100;
  if (todays.length > 0) {
    assert.equal(Number(await page.locator('#e-pv').getAttribute('data-value')), kwh((p) => p['pvPower']!));
    assert.equal(Number(await page.locator('#e-gridExport').getAttribute('data-value')), kwh((p) => -p['gridPower']!));
    assert.equal(Number(await page.locator('#e-home').getAttribute('data-value')), kwh((p) => p['consumptionPower']!));
  }

  // The key is kept for the tab: a reload asks for nothing.
  await page.reload();
  await page.locator('#flows').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#key').isHidden(), true);

  // The curves are the API's series, with the stream's live end: one point more, which follows a device's new value.
  const series = await hub.api(`/users/${DEMO_USER}/household/series`);
  assert.equal(series.points.length, 6);
  const pvLine = page.locator('#curves polyline[data-field="pvPower"]');
  const PV_LINE = 'document.querySelector(\'#curves polyline[data-field="pvPower"]\')';
  await page.waitForFunction(`${PV_LINE}?.getAttribute('points')?.split(' ').length === 7`);
  const carport = hub.store.devices.get(PV_CARPORT)!;
  hub.events.emit({ type: 'update', device: { ...carport, state: { ...carport.state, solarPower: 3.5 } }, atMs: hub.clock.now() });
  await page.locator('#kw-pv', { hasText: kwText(pv - 2.11 + 3.5) }).waitFor();
  await page.waitForFunction(`${PV_LINE}?.getAttribute('data-last') === '${Math.round((pv - 2.11 + 3.5) * 1000) / 1000}'`);
  assert.equal((await pvLine.getAttribute('points'))?.split(' ').length, 7, 'within 10 s the live end moves rather than adds');

  // Every device is listed, in words; an offline one says why, never with an invented time.
  const devices = await page.locator('.device').count();
  assert.equal(devices, hub.store.devices.all().filter((d) => d.userId === DEMO_USER).length);
  await page.locator(`#device-${THERMOSTAT} .badge.off`, { hasText: 'offline' }).waitFor();
  await page.locator(`#device-${THERMOSTAT} .reason`, { hasText: 'No driver of this hub reaches this device.' }).waitFor();
  await page.locator(`#device-${CARPORT_CHARGER} .reason`, { hasText: 'the device refuses the hub\'s credentials' }).waitFor();
  assert.equal(await page.locator('.reason', { hasText: 'No answer since' }).count(), 0, 'the hub has heard from no device that is now offline');
  await page.locator('#device-0d5c2a1e-7a4b-4f7e-9b3e-1a2b3c4d5e02 .now', { hasText: '41 % · discharging 0.80 kW' }).waitFor();
  await page.locator(`#device-${CHARGER} .now`, { hasText: 'plugged in · charging 7.20 kW' }).waitFor();
  await page.locator(`#device-${CARPORT_CHARGER} .now`, { hasText: 'Car: Commuter' }).waitFor();
  await page.locator('#device-5cab7f6d-cf9a-4ecd-8a8d-6f7a8b9cad02 .now', { hasText: 'Charges at: Carport' }).waitFor();
  // The technical details are folded away, and open on a click.
  const details = page.locator(`#device-${CHARGER} details`);
  assert.equal(await details.locator('dd', { hasText: 'chargeRate 7.2' }).isVisible(), false);
  await details.locator('summary').click();
  await details.locator('dd', { hasText: 'chargeRate 7.2' }).waitFor({ state: 'visible' });

  // A command sent through the API appears, then its outcome, in words.
  const created = await hub.api(`/users/${DEMO_USER}/chargers/${CHARGER}/commands/charging-stop`, { method: 'POST' });
  await page.locator(`#device-${CHARGER} li[data-command-id="${created.id}"]`, { hasText: 'Charging stopped · waiting' }).waitFor();
  hub.store.commands.complete(created.id, 'EXECUTED', null, hub.clock.now());
  hub.events.emit({ type: 'command', command: hub.store.commands.get(created.id)!, atMs: hub.clock.now() });
  await page.locator(`#device-${CHARGER} li[data-command-id="${created.id}"]`, { hasText: 'Charging stopped · done' }).waitFor();
  assert.equal(await details.getAttribute('open'), '', 'an opened card stays open as the stream redraws the list');

  // A device with a driver: offline before the hub heard from it, no time at all; once heard from
  // and silent again, "no answer since" the time the hub saw.
  const SMA = '1e6d3b2f-0000-4000-8000-0000000000e7';
  const extra = prepareImport([{ kind: 'pvInverter', id: SMA, userId: DEMO_USER, isOnline: false, lastUpdated: new Date(hub.clock.now() - 90 * 60_000).toISOString(),
    staticData: { vendor: 'SMA', name: 'Garden', model: 'Sunny Boy 3.0' }, driver: { type: 'sma', host: '192.0.2.20' } }], hub.clock.now(), (id) => hub.store.devices.get(id)?.kind, () => undefined);
  hub.store.importDevices(extra.devices, extra.images, hub.clock.now(), extra.ocppCredentials);
  hub.events.emit({ type: 'offline', device: hub.store.devices.get(SMA)!, atMs: hub.clock.now() });
  await page.locator(`#device-${SMA} .reason`, { hasText: 'No answer from this device.' }).waitFor();
  const seenMs = hub.clock.now();
  hub.store.devices.updateState(SMA, { solarPower: 0.4 }, true, seenMs);
  hub.events.emit({ type: 'update', device: hub.store.devices.get(SMA)!, atMs: seenMs });
  await page.locator(`#device-${SMA} .badge`, { hasText: 'online' }).waitFor();
  hub.store.devices.updateState(SMA, { solarPower: 0.4 }, false, seenMs);
  hub.events.emit({ type: 'offline', device: hub.store.devices.get(SMA)!, atMs: seenMs + 1000 });
  const seenText = new Date(Math.floor(seenMs / 1000) * 1000).toLocaleString('en-GB', { dateStyle: 'short', timeStyle: 'short' });
  await page.locator(`#device-${SMA} .reason`, { hasText: `No answer since ${seenText}` }).waitFor();
  assert.deepEqual(errors, [], 'no console errors (no CSP violation, no missing icon)');
});

test('the household page in Chromium in each language: no API field name on screen, the first phone screen holds the flows, the cost and the price; screenshots', { skip, timeout: 180_000 }, async (t) => {
  const hub = await startHub(t);
  seedLedger(hub.store, hub.clock.now());
  const names = apiNames(await hub.api('/openapi.json'));
  assert.ok(names.has('stateOfCharge') && names.has('CHARGING_STOP') && names.has('chargeLimitMin'), 'the list holds the API\'s names');
  const created = await hub.api(`/users/${DEMO_USER}/chargers/${CHARGER}/commands/charging-stop`, { method: 'POST' });
  hub.store.commands.complete(created.id, 'EXECUTED', null, hub.clock.now());
  const browser = await launch(t);
  mkdirSync(ARTEFACTS, { recursive: true });
  const shots: string[] = [];
  for (const [lang, locale] of [['en', 'en-GB'], ['de', 'de-DE'], ['fr', 'fr-FR']] as const) {
    for (const [width, height, colorScheme] of [[390, 844, 'light'], [1280, 900, 'dark']] as const) {
      const { page, errors } = await newPage(browser, t, { width, height, colorScheme, locale });
      await signIn(page, hub.url, hub.key);
      await page.locator('#curves polyline').first().waitFor();
      await page.locator('#price-now[data-value]').waitFor();
      const text = await visibleText(page);
      assert.match(text, { en: /Cost so far/, de: /Kosten bisher/, fr: /Coût à cette heure/ }[lang], 'the visible text is read');
      const shown = [...names].filter((name) => new RegExp(`\\b${name}\\b`).test(text));
      assert.deepEqual(shown, [], `${lang} at ${width} px shows API names`);
      if (width === 390) {
        // Without scrolling: the flows picture, today's cost and the price now.
        for (const id of ['#flows svg', '#cost-today', '#price-now']) {
          const box = (await page.locator(id).boundingBox())!;
          assert.ok(box.y + box.height <= height, `${id} ends at ${box.y + box.height} px, below the first ${height} px (${lang})`);
        }
      } else {
        // The desktop's width is used: the picture and today side by side.
        const [flows, today] = [(await page.locator('#flows').boundingBox())!, (await page.locator('#today').boundingBox())!];
        assert.equal(flows.y, today.y, 'the flows and today share a row');
      }
      const path = join(ARTEFACTS, `${lang}-${width}-${colorScheme}.png`);
      await page.screenshot({ path, fullPage: true });
      shots.push(path);
      assert.deepEqual(errors, []);
    }
  }
  t.diagnostic(`screenshots: ${shots.join(' ')}`);
  console.log(`household page screenshots: ${ARTEFACTS}`);
});

test('the household page in Chromium with a read-only key scoped to one household: that household only, no selector, and it says the key is read-only', { skip, timeout: 120_000 }, async (t) => {
  const hub = await startHub(t);
  // A second household on the hub, which the key must not show.
  const neighbour = prepareImport([
    { kind: 'battery', id: '0d5c2a1e-0000-4000-8000-0000000000d1', userId: 'neighbour', staticData: { vendor: 'SMA', model: 'Home Storage' } },
  ], hub.clock.now(), (id) => hub.store.devices.get(id)?.kind, () => undefined);
  hub.store.importDevices(neighbour.devices, neighbour.images, hub.clock.now(), neighbour.ocppCredentials);
  const key = hub.store.apiKeys.create('wall-display', hub.clock.now(), { userId: DEMO_USER, readOnly: true }).key;
  const browser = await launch(t);
  mkdirSync(ARTEFACTS, { recursive: true });
  const { page, errors } = await newPage(browser, t, { width: 390, height: 844, colorScheme: 'light', locale: 'de-DE' });
  await signIn(page, `${hub.url}`, key);
  await page.locator('#read-only', { hasText: 'Dieser Schlüssel ist schreibgeschützt' }).waitFor({ state: 'visible' });
  assert.equal(await page.locator('#user').isHidden(), true, 'no household to choose');
  assert.equal(await page.locator('.device').count(), hub.store.devices.all().filter((d) => d.userId === DEMO_USER).length);
  assert.equal(await page.locator('#device-0d5c2a1e-0000-4000-8000-0000000000d1').count(), 0);
  // Asking for the neighbour in the address changes nothing.
  await page.goto(`${hub.url}/home?user=neighbour`);
  await page.locator('#flows').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#device-0d5c2a1e-0000-4000-8000-0000000000d1').count(), 0);
  await page.locator('#read-only').waitFor({ state: 'visible' });
  await page.screenshot({ path: join(ARTEFACTS, 'phone-read-only.png'), fullPage: true });
  // Forgetting the key hides the line with the rest.
  await page.locator('#sign-out').click();
  await page.locator('#key').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#read-only').isHidden(), true);
  assert.deepEqual(errors, [], 'no console errors (no CSP violation)');
});
