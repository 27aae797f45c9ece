// The household page (/home) end to end in headless Chromium (playwright-core, Debian's
// /usr/bin/chromium): the demo household on a loopback socket; the page asks for the key once, shows
// the flows that the API's values add up to, updates them by itself from the live stream, shows an
// offline device as such (never with an invented time), today's figures equal to the API's, curves
// that follow the stream, and a command created through the API with its outcome, in words. The
// page in three languages and two widths, with its screenshots: household-page-words.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { prepareImport } from '../../src/domain/import.ts';
import { DEMO_USER } from '../../src/demo/site.ts';
import { skipWithout } from '../support/peers.ts';
import { launchChromium as launch } from '../support/browser.ts';
import { ARTEFACTS, CARPORT_CHARGER, CHARGER, HOUR, METER, PV_CARPORT, TARIFF, THERMOSTAT, kwText, newPage, seedLedger, signIn, startHub, cheapestText } from '../support/household-hub.ts';

const skip = skipWithout('chromium');

test('the household page in Chromium: the key once, flows and today\'s figures that are the API\'s, devices and commands in words, curves that follow the stream', { skip, timeout: 120_000 }, async (t) => {
  const hub = await startHub(t);
  seedLedger(hub.store, hub.clock.now());
  // The grid meter reports: the flows' grid is the API's. The demo's imported values (PV 6.94 kW,
  // batteries charging 1.55 kW, the go-e charging the car at 7.2 kW) with this import leave the
  // house 0.96 kW: the figures of a household that obeys physics.
  const meterState = { lastUpdated: new Date().toISOString(), power: 2.77, meterValue: 4325.1 };
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
  // PV + grid = battery + car + house (the house without the car).
  assert.ok(flows['homeKw']! > 0, `the house draws: ${JSON.stringify(flows)}`);
  assert.ok(Math.abs(flows['pvKw']! + flows['gridKw']! - flows['batteryKw']! - (flows['carKw'] ?? 0) - flows['homeKw']!) < 0.002, `the flows balance: ${JSON.stringify(flows)}`);
  assert.equal(await page.locator('#kw-home').textContent(), kwText(pv + grid - charge - (flows['carKw'] ?? 0)));

  // Today: the cost is the sum of the consumption endpoint's hours of today, the price the prices' one in force.
  const todayApi = await (await fetch(`${hub.url}/home/today?user=${DEMO_USER}`, { headers: { 'x-api-key': hub.key } })).json() as { since: string; energy: Record<string, number> };
  const since = Date.parse(todayApi.since);
  const hours = (await hub.api(`/tariffs/${TARIFF}/consumption?size=48`)).content as { startDate: string; cost?: number }[];
  const cost = Math.round(hours.filter((h) => Date.parse(h.startDate) >= since).reduce((s, h) => s + (h.cost ?? 0), 0) * 10000) / 10000;
  assert.ok(since > hub.clock.now() - 6 * HOUR || cost > 0, 'some of the seeded hours are today\'s');
  assert.equal(Number(await page.locator('#cost-today').getAttribute('data-value')), cost);
  assert.equal(await page.locator('#cost-today').textContent(), new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'EUR', minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(cost));
  const prices = (await hub.api(`/tariffs/${TARIFF}/prices`)) as { startDate: string; totalPrice: number }[];
  const priceNow = prices.filter((p) => Date.parse(p.startDate) <= hub.clock.now()).at(-1)!.totalPrice;
  assert.equal(Number(await page.locator('#price-now').getAttribute('data-value')), priceNow);
  assert.match((await page.locator('#cheapest').textContent())!, /^Cheapest ahead: \d\d:\d\d /);
  assert.equal(await page.locator('#cheapest').textContent(), await cheapestText(page, prices, hub.clock.now(), 'Cheapest ahead'),
    'the 3 cheapest prices the API has after now, by time');
  // Today's energy is the series' points since midnight, 5 minutes each.
  const todays = ((await hub.api(`/users/${DEMO_USER}/household/series`)).points as Record<string, number>[]).filter((p) => Date.parse(String(p['startDate'])) >= since);
  const kwh = (f: (p: Record<string, number>) => number) => Math.round(todays.reduce((s, p) => s + Math.max(0, f(p)) / 12, 0) * 100) / 100;
  if (todays.length > 0) {
    assert.equal(Number(await page.locator('#e-pv').getAttribute('data-value')), kwh((p) => p['pvPower']!));
    assert.equal(Number(await page.locator('#e-gridExport').getAttribute('data-value')), kwh((p) => -p['gridPower']!));
    assert.equal(Number(await page.locator('#e-home').getAttribute('data-value')), kwh((p) => p['consumptionPower']!));
    // The car's energy today, in words: what /home/today says and the series' car power adds up to.
    const car = page.locator('#e-car');
    assert.ok(kwh((p) => p['carPower']!) > 0, 'the seeded points charge the car');
    assert.equal(Number(await car.getAttribute('data-value')), kwh((p) => p['carPower']!));
    assert.equal(Number(await car.getAttribute('data-value')), todayApi.energy['carKwh']);
    assert.equal(await car.textContent(), `${new Intl.NumberFormat('en-GB', { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(todayApi.energy['carKwh']!)} kWh`);
    assert.equal(await page.locator('#energy-today dt:has(+ #e-car)').textContent(), 'Into the car');
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
