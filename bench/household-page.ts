// The household page's weight and the hub's time to serve it (issue 25: first paint under 1 s from a
// Raspberry Pi): the bytes of /home, /home/app.js and /home/devices for the demo household, gzip-free
// (the hub does not compress), the series with 48 hours of points, and the server's time per request over the built app in process.
// `npx tsx bench/household-page.ts`.
import { performance } from 'node:perf_hooks';
import { createApp } from '../src/api/app.ts';
import { DEFAULT_API_SETTINGS } from '../src/api/deps.ts';
import { Store } from '../src/store/store.ts';
import { VendorCatalog } from '../src/domain/vendors.ts';
import { prepareImport } from '../src/domain/import.ts';
import { storedStateRuntime } from '../src/runtime/live.ts';
import { HubEvents } from '../src/runtime/events/hub-events.ts';
import { HouseholdSeries } from '../src/runtime/household-series.ts';
import { demoRecords } from '../src/demo/site.ts';
import { silentLogger } from '../src/log.ts';
import { builtInBindingDefaults } from '../src/binding-defaults.ts';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 2000);

export interface PageFigure {
  path: string;
  bytes: number;
  meanUs: number;
}

export async function benchHouseholdPage(): Promise<PageFigure[]> {
  const store = Store.open(':memory:');
  const now = Date.now();
  const key = store.apiKeys.create('bench', now).key;
  const prepared = prepareImport(demoRecords(now), now, (id) => store.devices.get(id)?.kind, () => undefined);
  store.importDevices(prepared.devices, prepared.images, now, prepared.ocppCredentials);
  // A full 48 hours of points (576), as the curves read them at the end of the second day.
  for (let i = 576; i >= 1; i--) {
    store.householdSeries.add('demo-household', { startMs: now - i * 300_000, pvKw: 4.123, homeKw: 1.234, gridKw: -2.345, batteryKw: 0.5, batterySoc: 55.5, price: 0.2874 });
  }
  const events = new HubEvents();
  const series = new HouseholdSeries({ store, events, clock: { now: () => Date.now() }, log: silentLogger() });
  series.start();
  const { app } = createApp({
    store, log: silentLogger(), clock: { now: () => Date.now() }, vendors: new VendorCatalog(), runtime: storedStateRuntime, bindingDefaults: builtInBindingDefaults(),
    settings: { ...DEFAULT_API_SETTINGS, publicUrl: 'http://hub.test' }, household: { events, flowsOf: (u) => series.flowsOf(u) },
  });
  const figures: PageFigure[] = [];
  for (const path of ['/home', '/home/app.js', '/home/devices', '/v1.0.0/users/demo-household/household/series']) {
    const headers = { 'x-api-key': key, 'accept-language': 'de' };
    const bytes = (await (await app.request(path, { headers })).arrayBuffer()).byteLength;
    for (let i = 0; i < 200; i++) await (await app.request(path, { headers })).arrayBuffer(); // warm-up
    const start = performance.now();
    for (let i = 0; i < ROUNDS; i++) await (await app.request(path, { headers })).arrayBuffer();
    figures.push({ path, bytes, meanUs: Math.round(((performance.now() - start) / ROUNDS) * 1000) });
  }
  series.stop();
  store.close();
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const figure of await benchHouseholdPage()) console.log(JSON.stringify(figure));
}
