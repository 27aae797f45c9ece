// The household page's weight and the hub's time to serve it (issue 25: first paint under 1 s from a
// Raspberry Pi): the bytes of /home, /home/app.js, /home/devices and /home/today for the demo household, gzip-free
// (the hub does not compress), the series with 48 hours of points, and the server's time per request over the built app in process.
// Then, where Debian's Chromium is installed, the page itself over a loopback socket: first
// contentful paint and the time until the flows and today's cost are drawn, as the browser measures
// them (performance entries and performance.now() in the page), also with the CPU slowed 4× (a Pi).
// `npx tsx bench/household-page.ts`.
import { performance } from 'node:perf_hooks';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/support/browser.ts';
import { createApp } from '../src/api/app.ts';
import { DEFAULT_API_SETTINGS } from '../src/api/deps.ts';
import { Store } from '../src/store/store.ts';
import { VendorCatalog } from '../src/domain/vendors.ts';
import { prepareImport } from '../src/domain/import.ts';
import { storedStateRuntime } from '../src/runtime/devices/live.ts';
import { HubEvents } from '../src/runtime/events/hub-events.ts';
import { HouseholdSeries } from '../src/runtime/household/household-series.ts';
import { demoRecords } from '../src/demo/site.ts';
import { silentLogger } from '../src/log.ts';
import { builtInBindingDefaults } from '../src/binding-defaults.ts';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 2000);

export interface PageFigure {
  path: string;
  bytes: number;
  meanUs: number;
}

/**
 * The demo household with a full 48 hours of points (576), as the curves read them at the end of the
 * second day, and its tariff's hourly prices over those hours and the next day.
 */
function demoHub(publicUrl: string) {
  const store = Store.open(':memory:');
  const now = Date.now();
  const key = store.apiKeys.create('bench', now).key;
  const prepared = prepareImport(demoRecords(now), now, (id) => store.devices.get(id)?.kind, () => undefined);
  store.importDevices(prepared.devices, prepared.images, now, prepared.ocppCredentials);
  for (let i = 576; i >= 1; i--) {
    store.householdSeries.add('demo-household', { startMs: now - i * 300_000, pvKw: 4.123, homeKw: 1.234, gridKw: -2.345, batteryKw: 0.5, carKw: 0.044, batterySoc: 55.5, price: 0.2874 });
  }
  const tariff = store.devices.all().find((d) => d.kind === 'tariff')!;
  const hour = Math.floor(now / 3_600_000) * 3_600_000;
  for (let h = -48; h <= 24; h++) store.tariffLedger.recordPrice(tariff.id, hour + h * 3_600_000, 0.2 + 0.01 * (h % 7 + 7), 0);
  const events = new HubEvents();
  const series = new HouseholdSeries({ store, events, clock: { now: () => Date.now() }, log: silentLogger() });
  series.start();
  const { app } = createApp({
    store, log: silentLogger(), clock: { now: () => Date.now() }, vendors: new VendorCatalog(), runtime: storedStateRuntime, bindingDefaults: builtInBindingDefaults(),
    settings: { ...DEFAULT_API_SETTINGS, publicUrl }, household: { events, flowsOf: (u) => series.flowsOf(u) },
  });
  return { app, key, stop: () => { series.stop(); store.close(); } };
}

export async function benchHouseholdPage(): Promise<PageFigure[]> {
  const { app, key, stop } = demoHub('http://hub.test');
  const figures: PageFigure[] = [];
  for (const path of ['/home', '/home/app.js', '/home/devices', '/home/today?user=demo-household', '/v1.0.0/users/demo-household/household/series']) {
    const headers = { 'x-api-key': key, 'accept-language': 'de' };
    const bytes = (await (await app.request(path, { headers })).arrayBuffer()).byteLength;
    for (let i = 0; i < 200; i++) await (await app.request(path, { headers })).arrayBuffer(); // warm-up
    const start = performance.now();
    for (let i = 0; i < ROUNDS; i++) await (await app.request(path, { headers })).arrayBuffer();
    figures.push({ path, bytes, meanUs: Math.round(((performance.now() - start) / ROUNDS) * 1000) });
  }
  stop();
  return figures;
}

export interface PaintFigure {
  cpuSlowdown: number;
  firstContentfulPaintMs: number;
  /** From navigation start until the flows' numbers and today's cost are on the page. */
  figuresShownMs: number;
}

/** The page in Chromium, the key already in the tab (as after a reload): median of `rounds` loads. */
export async function benchFirstPaint(rounds = 7): Promise<PaintFigure[]> {
  if (!existsSync(CHROMIUM)) return [];
  const { app, key, stop } = demoHub('http://127.0.0.1');
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }) as Server;
  if (!server.listening) await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/home`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const figures: PaintFigure[] = [];
  try {
    for (const cpuSlowdown of [1, 4]) {
      const runs: { fcp: number; shown: number }[] = [];
      for (let i = 0; i < rounds; i++) {
        // bypassCSP: the waits below are evaluated strings, which the page's CSP (rightly) refuses.
        const context = await browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true });
        await context.addInitScript(`sessionStorage.setItem('hubApiKey', ${JSON.stringify(key)});
          // The moment the figures are drawn, noted by the page itself (a poll from outside would add its own delay).
          new MutationObserver((_, observer) => {
            const pv = document.getElementById('kw-pv'), price = document.getElementById('price-now');
            if (pv && price && pv.textContent !== '–' && price.textContent !== '–') { window.shownAt = performance.now(); observer.disconnect(); }
          }).observe(document, { subtree: true, childList: true, characterData: true });`);
        const page = await context.newPage();
        const cdp = await context.newCDPSession(page);
        await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpuSlowdown });
        await page.goto(url);
        await page.waitForFunction('window.shownAt !== undefined');
        const shown = await page.evaluate('window.shownAt') as number;
        const fcp = await page.evaluate(`performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1`) as number;
        runs.push({ fcp, shown });
        await context.close();
      }
      const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
      figures.push({ cpuSlowdown, firstContentfulPaintMs: Math.round(median(runs.map((r) => r.fcp))), figuresShownMs: Math.round(median(runs.map((r) => r.shown))) });
    }
  } finally {
    await browser.close();
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
    stop();
  }
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const figure of await benchHouseholdPage()) console.log(JSON.stringify(figure));
  for (const figure of await benchFirstPaint()) console.log(JSON.stringify(figure));
}
