// Pairing an OCPP charger in headless Chromium (playwright-core, Debian's /usr/bin/chromium), in every
// language and theme, alternating Zaptec and Easee: the page shows the OCPP address and a generated
// password (its field patterns compile in Chromium and agree with the hub), a charge point simulator
// connects with them, the user enters the charge point id and lands on the partner with the outcome.
// Without Chromium it is skipped, and under CI=true it fails (test/support/peers.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { chromium } from 'playwright-core';
import { startOcppHub } from '../support/ocpp-hub.ts';
import { json } from '../support/hub.ts';
import { skipWithout } from '../support/peers.ts';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const skip = skipWithout('chromium');
const DARK_BG = 'rgb(15, 20, 25)';
const LIGHT_BG = 'rgb(244, 246, 248)';

const LANGUAGES = {
  ENGLISH: { lang: 'en', heading: (v: string) => `Connect your ${v} charger`, id: 'Charge point id', password: 'Password', submit: 'Connect' },
  GERMAN: { lang: 'de', heading: (v: string) => `${v} Ladestation verbinden`, id: 'Ladepunkt-ID', password: 'Passwort', submit: 'Verbinden' },
  FRENCH: { lang: 'fr', heading: (v: string) => `Connecter votre borne ${v}`, id: 'Identifiant de point de charge', password: 'Mot de passe', submit: 'Connecter' },
} as const;

test('pairing an OCPP charger in Chromium, in every language and theme', { skip, timeout: 120_000 }, async (t) => {
  const partner = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>partner</title>'));
  partner.listen(0, '127.0.0.1');
  await once(partner, 'listening');
  const partnerOrigin = `http://127.0.0.1:${(partner.address() as { port: number }).port}`;
  t.after(() => new Promise((resolve) => {
    partner.closeAllConnections();
    partner.close(resolve);
  }));
  const hub = await startOcppHub(t, [], { config: { http: { port: 0, publicUrl: 'http://hub.test:8080' } } });
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install Debian's chromium (listed in .ci/apt-packages)`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 15_000 });
  t.after(() => browser.close());

  let n = 0;
  for (const language of Object.keys(LANGUAGES) as (keyof typeof LANGUAGES)[]) {
    for (const theme of ['DARK', 'LIGHT'] as const) {
      const vendor = n % 2 === 0 ? 'ZAPTEC' : 'EASEE';
      const chargePointId = `CP-${++n}`;
      await t.test(`${vendor} ${language} ${theme}`, async (st) => {
        const words = LANGUAGES[language];
        const res = await hub.api(`/connections/chargers?language=${language}&theme=${theme}`, {
          method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ redirectUrl: `${partnerOrigin}/paired`, vendor, userId: 'browser-user' }),
        });
        assert.equal(res.status, 201);
        const url = (await json(res)).url.replace(/^https?:\/\/[^/]+/, hub.daemon.url);
        const context = await browser.newContext();
        st.after(() => context.close());
        const page = await context.newPage();
        page.setDefaultTimeout(15_000);
        const errors: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico')) errors.push(m.text());
        });
        assert.equal((await page.goto(url))?.status(), 200);
        assert.equal(await page.getAttribute('html', 'lang'), words.lang);
        assert.equal((await page.locator('h1').textContent())?.trim(), words.heading(vendor === 'ZAPTEC' ? 'Zaptec' : 'Easee'));
        assert.equal(await page.evaluate('getComputedStyle(document.body).backgroundColor'), theme === 'DARK' ? DARK_BG : LIGHT_BG);
        assert.match((await page.locator('main').textContent()) ?? '', /ws:\/\/hub\.test:8080\/ocpp/);
        const password = await page.getByLabel(words.password).inputValue();
        assert.match(password, /^[0-9a-f]{32}$/);

        // The HTML patterns compile in Chromium and agree with the hub's rules.
        const idField = page.getByLabel(words.id);
        const mismatch = () => idField.evaluate((input: { validity: { patternMismatch: boolean } }) => input.validity.patternMismatch);
        await idField.fill('has space');
        assert.equal(await mismatch(), true);
        await idField.fill(chargePointId);
        assert.equal(await mismatch(), false);

        const sim = hub.sim(chargePointId, { password, vendor: vendor === 'ZAPTEC' ? 'Zaptec' : 'Easee' });
        await sim.connect();
        await Promise.all([
          page.waitForURL((u) => u.origin === partnerOrigin),
          page.getByRole('button', { name: words.submit, exact: true }).click(),
        ]);
        const landed = new URL(page.url());
        assert.equal(landed.searchParams.get('status'), 'SUCCESS');
        const device = hub.daemon.db.devices.get(landed.searchParams.get('chargerId')!);
        assert.equal(device?.vendor, vendor);
        assert.deepEqual(device?.driver, { type: 'ocpp', chargePointId });
        assert.deepEqual(errors, [], 'no console errors (no CSP violation) on the way');
      });
    }
  }
});
