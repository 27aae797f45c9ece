// Connecting a car in headless Chromium (playwright-core, Debian's /usr/bin/chromium), as its owner
// does: the partner's app (a server on another port) opens the hub's page; BMW: the client id, the
// code page that reloads itself until the code is confirmed, the car and its charger; Volvo: the
// application's key, id and secret, the page that goes on to Volvo ID by itself, Volvo's redirect
// back to the hub's callback, the car. Each ends on the partner with the outcome, without a console
// error (a CSP violation would be one). Without Chromium it is skipped, and under CI=true it fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { skipWithout } from '../support/peers.ts';
import { launchChromium, recordingPage, startPartner } from '../support/browser.ts';
import { BMW, CHARGER, VOLVO, connect, startConnectHub } from '../support/connect-hub.ts';

const skip = skipWithout('chromium');

test('BMW in Chromium: client id, the code page reloading itself until the code is confirmed, car and charger, back on the partner', { skip, timeout: 120_000 }, async (t) => {
  const partner = await startPartner(t);
  const hub = await startConnectHub(t);
  const browser = await launchChromium(t);
  const { page, errors } = await recordingPage(browser, t);

  const url = await connect(hub, { vendor: 'BMW', redirectUrl: `${partner}/cars?x=1` }, '?language=GERMAN');
  await page.goto(url);
  assert.equal((await page.locator('h1').textContent())?.trim(), 'Ihren BMW verbinden');
  await page.getByLabel('CarData-Client-ID').fill(BMW.clientId);
  await page.getByRole('button', { name: 'Mit BMW anmelden' }).click();
  await page.locator('#user-code').waitFor();
  assert.equal(await page.locator('#user-code').textContent(), 'ABCD-EFGH');
  assert.match(await page.getByRole('link', { name: 'Seite von BMW öffnen' }).getAttribute('href') ?? '', /user_code=ABCD-EFGH/);

  // The owner confirms on BMW's page (elsewhere); this page moves on by itself.
  hub.bmw.approved = true;
  await page.getByRole('heading', { name: 'Ihr Auto hinzufügen' }).waitFor();
  assert.equal(await page.getByLabel('Lädt an').inputValue(), CHARGER, 'the one charger is preselected');
  await Promise.all([
    page.waitForURL((u) => u.origin === partner),
    page.getByRole('button', { name: 'Auto hinzufügen' }).click(),
  ]);
  const landed = new URL(page.url());
  assert.equal(landed.searchParams.get('x'), '1');
  assert.equal(landed.searchParams.get('status'), 'SUCCESS');
  const car = hub.daemon.db.devices.get(landed.searchParams.get('vehicleId')!);
  assert.deepEqual([car?.kind, car?.userId, car?.driver?.['chargerId']], ['vehicle', 'user-1', CHARGER]);
  assert.deepEqual(errors, [], 'no console errors (no CSP violation) on the way');
});

test('Volvo in Chromium: the application\'s details, on to Volvo ID and back through the hub\'s callback, the car, back on the partner', { skip, timeout: 120_000 }, async (t) => {
  const partner = await startPartner(t);
  const hub = await startConnectHub(t);
  const browser = await launchChromium(t);
  // Volvo's simulator has the test CA's certificate, which this browser does not know.
  const { page, errors } = await recordingPage(browser, t, { ignoreHTTPSErrors: true, colorScheme: 'dark' });

  const url = await connect(hub, { vendor: 'VOLVO', redirectUrl: `${partner}/cars` });
  await page.goto(url);
  assert.equal((await page.locator('h1').textContent())?.trim(), 'Connect your Volvo');
  assert.match(await page.locator('main').textContent() ?? '', new RegExp(`${hub.url}/connect/callback`.replace(/[.:/]/g, '\\$&')));
  await page.getByLabel('VCC API key').fill(VOLVO.vccApiKey);
  await page.getByLabel('Client id').fill(VOLVO.clientId);
  await page.getByLabel('Client secret').fill(VOLVO.clientSecret);
  // The hub's page goes on to Volvo ID, which (the owner logged in) sends the browser back.
  await page.getByRole('button', { name: 'Log in with Volvo' }).click();
  await page.getByRole('heading', { name: 'Add your car' }).waitFor();
  assert.equal(new URL(page.url()).href, url, 'back on the session\'s page');
  assert.match(await page.locator('main').textContent() ?? '', new RegExp(VOLVO.vin));
  await Promise.all([
    page.waitForURL((u) => u.origin === partner),
    page.getByRole('button', { name: 'Add the car' }).click(),
  ]);
  const landed = new URL(page.url());
  assert.equal(landed.searchParams.get('status'), 'SUCCESS');
  const vehicleId = landed.searchParams.get('vehicleId')!;
  assert.equal(hub.daemon.db.devices.get(vehicleId)?.vendor, 'VOLVO');
  await hub.until(vehicleId, (d) => d.isOnline);
  assert.deepEqual(errors, [], 'no console errors (no CSP violation) on the way');
});
