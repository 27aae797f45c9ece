// The household page's hub for the Chromium tests: the demo household on a loopback socket with a
// key, its series, sightings and live stream, a ledger with prices and hourly counters, and the page
// signed in. Used by household-browser.test.ts and household-page-words.test.ts.
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
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
import { storedStateRuntime } from '../../src/runtime/devices/live.ts';
import { HubEvents } from '../../src/runtime/events/hub-events.ts';
import { HouseholdSeries } from '../../src/runtime/household/household-series.ts';
import { DeviceSightings } from '../../src/runtime/household/device-sightings.ts';
import { POINT_MS } from '../../src/store/household-series.ts';
import { demoRecords, DEMO_USER } from '../../src/demo/site.ts';
import { silentLogger } from '../../src/log.ts';
import { recordingPage } from './browser.ts';
import { builtInBindingDefaults } from '../../src/binding-defaults.ts';

export const ARTEFACTS = join(resolve(dirname(fileURLToPath(import.meta.url)), '..', '..'), '.test-artefacts', 'household');
export const PV_CARPORT = '1e6d3b2f-8b5c-4a8f-8c4f-2b3c4d5e6f02';
export const THERMOSTAT = '3a8f5d4b-ad7e-4cab-8e6b-4d5e6f7a8b03';
export const CHARGER = '4b9a6e5c-be8f-4dbc-9f7c-5e6f7a8b9c01';
export const CARPORT_CHARGER = '4b9a6e5c-be8f-4dbc-9f7c-5e6f7a8b9c02';

export async function startHub(t: TestContext) {
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
  // Points of the last half hour, as the sampler leaves them (balanced: PV + grid = battery + car + house), so that the curves have something to draw.
  for (let i = 6; i >= 1; i--) {
    store.householdSeries.add(DEMO_USER, { startMs: Math.floor(clock.now() / POINT_MS) * POINT_MS - i * POINT_MS, pvKw: 6 - i * 0.5, homeKw: 2 + i * 0.1, gridKw: -1 + i * 0.3, batteryKw: 1, carKw: Math.round((2 - i * 0.3) * 10) / 10, batterySoc: 60 + i, price: 0.28 });
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

export function newPage(browser: Browser, t: TestContext, options: { width: number; height: number; colorScheme: 'light' | 'dark'; locale?: string }) {
  return recordingPage(browser, t, { viewport: { width: options.width, height: options.height }, colorScheme: options.colorScheme, locale: options.locale ?? 'en-GB' });
}

export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(`${url}/home`);
  await page.locator('#key-input').fill(key);
  await page.locator('#key-form button').click();
  await page.locator('#flows').waitFor({ state: 'visible' });
}

export const kwText = (kw: number) => `${kw.toFixed(2)} kW`;
export const METER = '2f7e4c3a-9c6d-4b9a-9d5a-3c4d5e6f7a01';
export const TARIFF = '6dbc8a7e-da8b-4fde-9b9e-7a8b9cadbe01';
export const HOUR = 3_600_000;

/** A tariff's prices for the last hours and the next, and the grid meter's hourly counters: what the ledger records. */
export function seedLedger(store: Store, nowMs: number): void {
  const hour = Math.floor(nowMs / HOUR) * HOUR;
  for (let h = -6; h <= 8; h++) store.tariffLedger.recordPrice(TARIFF, hour + h * HOUR, Math.round((0.22 + 0.015 * ((h * 5 + 13) % 9)) * 10000) / 10000, 0);
  for (let h = -6, counter = 4321.5; h <= 0; h++, counter += 0.7 + (h % 3) * 0.45) store.tariffLedger.recordHour(METER, hour + h * HOUR, Math.round(counter * 1000) / 1000, 0);
}


/**
 * What the page says of the cheapest hours ahead, worked out from the API's prices: the 3 cheapest
 * starting after `nowMs` (by time), each formatted by the page's own browser (its language and time
 * zone), after `heading` (the page's words for it).
 */
export async function cheapestText(page: Page, prices: readonly { startDate: string; totalPrice: number }[], nowMs: number, heading: string, currency = 'EUR'): Promise<string> {
  const cheapest = prices.filter((p) => Date.parse(p.startDate) > nowMs).sort((a, b) => a.totalPrice - b.totalPrice).slice(0, 3)
    .sort((a, b) => Date.parse(a.startDate) - Date.parse(b.startDate));
  assert.ok(cheapest.length > 0, 'the API has prices ahead');
  // Evaluated in the page (as its script formats: src/api/household/script.ts, hhmm and money).
  return page.evaluate(`(() => {
    const lang = document.documentElement.lang === navigator.language.split('-')[0] ? navigator.language : document.documentElement.lang;
    const money = new Intl.NumberFormat(lang, { style: 'currency', currency: ${JSON.stringify(currency)}, minimumFractionDigits: 3, maximumFractionDigits: 3 });
    const list = ${JSON.stringify(cheapest)};
    return ${JSON.stringify(heading)} + ': ' + list.map((p) => new Date(p.startDate).toLocaleTimeString(lang, { hour: '2-digit', minute: '2-digit' }) + ' ' + money.format(p.totalPrice)).join(', ');
  })()`) as Promise<string>;
}
