// Connecting HVAC units, home-power devices and tariffs in headless Chromium (playwright-core,
// Debian's /usr/bin/chromium), as a household does from a partner's app: the app (a server on another
// port) opens the hub's page, the user fills in how to reach the device, the hub finds it on the real
// simulators (ebusd, open3e, ESPAltherma and a tariff on the project's own mosquitto; a Daikin
// adapter, an Enphase and a Powerwall gateway over HTTP(S); SunSpec and Huawei units over Modbus TCP)
// and the browser lands on the partner with the device's id. Every way in every language and theme
// (the page's words and colours), without a console error (a CSP violation would be one).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { skipWithout } from '../support/peers.ts';
import { launchChromium, recordingPage, startPartner } from '../support/browser.ts';
import { startMqttHub, type MqttHub } from '../support/mqtt-hub.ts';
import { deviceCertificate, started } from '../support/http-hub.ts';
import { simOn } from '../runtime/support.ts';
import { EbusdVaillantSim } from '../../src/sim/mqtt/ebusd-vaillant-sim.ts';
import { Open3eSim } from '../../src/sim/mqtt/open3e-sim.ts';
import { EspAlthermaSim } from '../../src/sim/mqtt/espaltherma-sim.ts';
import { TariffTopicSim } from '../../src/sim/mqtt/tariff-topic-sim.ts';
import { DaikinSim } from '../../src/sim/http/daikin-sim.ts';
import { EnphaseSim } from '../../src/sim/http/enphase-sim.ts';
import { PowerwallSim } from '../../src/sim/http/powerwall-sim.ts';
import { SiteModel } from '../../src/sim/site-model.ts';
import { sunspecInverter, sunspecMeter } from '../../src/sim/sunspec-sims.ts';
import { huaweiSun2000 } from '../../src/sim/huawei-sim.ts';

const skip = skipWithout('chromium', 'mosquitto');
const DARK_BG = 'rgb(15, 20, 25)';
const LIGHT_BG = 'rgb(244, 246, 248)';
const ENPHASE_TOKEN = 'eyJhbGciOiJFUzI1NiJ9.eyJ1c2VybmFtZSI6Im93bmVyIn0.c2lnbmF0dXJl';
const POWERWALL = { email: 'owner@home.example', password: 'S3CR3' };

type Language = 'ENGLISH' | 'GERMAN' | 'FRENCH';
const LANG: Record<Language, string> = { ENGLISH: 'en', GERMAN: 'de', FRENCH: 'fr' };

interface Way {
  name: string;
  path: 'hvacs' | 'home-powers' | 'tariffs';
  vendor: string;
  /** The page's heading in each language. */
  headings: Record<Language, string>;
  /** What the user types, by field id. */
  fill(): Record<string, string>;
  /** The scan's choice the user picks, when the page asks. */
  choose?: string;
  /** The redirect's id parameter and the device's kind. */
  id: string;
  kind: string;
}

async function session(hub: MqttHub, way: Way, redirectUrl: string, query: string): Promise<string> {
  const res = await hub.api(`/connections/${way.path}${query}`, { method: 'POST', json: { redirectUrl, vendor: way.vendor, userId: 'browser-household' } });
  assert.equal(res.status, 201);
  return ((await res.json()) as { url: string }).url;
}

const backgroundOf = (page: Page) => page.evaluate('getComputedStyle(document.body).backgroundColor') as Promise<string>;

test('every way to an HVAC unit, a home-power device and a tariff, in Chromium, in every language and theme', { skip, timeout: 240_000 }, async (t) => {
  const partner = await startPartner(t);
  const hub = await startMqttHub(t, { mqttSettings: { probeTimeoutMs: 1500 } });
  const mqttSims = [new EbusdVaillantSim(hub.broker.url, { preread: true }), new Open3eSim(hub.broker.url, { intervalMs: 1000, json: true }),
    new EspAlthermaSim(hub.broker.url, { intervalMs: 1000 }), new TariffTopicSim(hub.broker.url)];
  for (const sim of mqttSims) {
    t.after(() => sim.stop());
    await sim.start();
  }
  const site = new SiteModel({ now: () => Date.parse('2026-06-21T12:00:00Z') });
  const daikin = await started(t, new DaikinSim({ name: 'Bedroom' }));
  const enphase = await started(t, new EnphaseSim(site, { token: ENPHASE_TOKEN }), deviceCertificate(t, 'envoy.local'));
  const powerwall = await started(t, new PowerwallSim(site, POWERWALL), deviceCertificate(t, 'powerwall'));
  const sunspec = await simOn(t, { 1: sunspecInverter(site), 200: sunspecMeter(site) });
  const huawei = await simOn(t, { 1: huaweiSun2000(site, 'SUN2000-5KTL-L1', { meter: false }) });
  const host = '127.0.0.1';

  const ways: Way[] = [
    { name: 'Vaillant through ebusd', path: 'hvacs', vendor: 'VAILLANT', id: 'hvacId', kind: 'hvac', fill: () => ({ 'f-circuit': '700' }),
      headings: { ENGLISH: 'Connect your Vaillant heating or air conditioning', GERMAN: 'Vaillant-Heizung oder -Klimagerät verbinden', FRENCH: 'Connecter votre chauffage ou climatisation Vaillant' } },
    { name: 'Viessmann through open3e', path: 'hvacs', vendor: 'VIESSMANN', id: 'hvacId', kind: 'hvac', fill: () => ({ 'f-ecu': '680' }),
      headings: { ENGLISH: 'Connect your Viessmann heating or air conditioning', GERMAN: 'Viessmann-Heizung oder -Klimagerät verbinden', FRENCH: 'Connecter votre chauffage ou climatisation Viessmann' } },
    { name: 'Daikin Altherma through ESPAltherma', path: 'hvacs', vendor: 'DAIKIN', id: 'hvacId', kind: 'hvac', fill: () => ({ 'f-espalthermaPrefix': 'espaltherma' }),
      headings: { ENGLISH: 'Connect your Daikin heating or air conditioning', GERMAN: 'Daikin-Heizung oder -Klimagerät verbinden', FRENCH: 'Connecter votre chauffage ou climatisation Daikin' } },
    { name: 'Daikin adapter over HTTP', path: 'hvacs', vendor: 'DAIKIN', id: 'hvacId', kind: 'hvac', fill: () => ({ 'f-host': host, 'f-port': String(daikin.port) }),
      headings: { ENGLISH: 'Connect your Daikin heating or air conditioning', GERMAN: 'Daikin-Heizung oder -Klimagerät verbinden', FRENCH: 'Connecter votre chauffage ou climatisation Daikin' } },
    { name: 'Enphase gateway with its token', path: 'home-powers', vendor: 'ENPHASE', id: 'pvInverterId', kind: 'pvInverter',
      fill: () => ({ 'f-host': host, 'f-port': String(enphase.port), 'f-token': ENPHASE_TOKEN }),
      headings: { ENGLISH: 'Connect your Enphase device', GERMAN: 'Enphase-Gerät verbinden', FRENCH: 'Connecter votre appareil Enphase' } },
    { name: 'Powerwall with its customer login', path: 'home-powers', vendor: 'TESLA', id: 'batteryId', kind: 'battery',
      fill: () => ({ 'f-host': host, 'f-port': String(powerwall.port), 'f-email': POWERWALL.email, 'f-password': POWERWALL.password }),
      headings: { ENGLISH: 'Connect your Tesla device', GERMAN: 'Tesla-Gerät verbinden', FRENCH: 'Connecter votre appareil Tesla' } },
    { name: 'Fronius over Modbus, the meter chosen from the scan', path: 'home-powers', vendor: 'FRONIUS', id: 'meterId', kind: 'meter', choose: '200:meter',
      fill: () => ({ 'f-host': host, 'f-port': String(sunspec.port) }),
      headings: { ENGLISH: 'Connect your Fronius device', GERMAN: 'Fronius-Gerät verbinden', FRENCH: 'Connecter votre appareil Fronius' } },
    { name: 'Huawei over Modbus, the inverter chosen beside its battery', path: 'home-powers', vendor: 'HUAWEI', id: 'pvInverterId', kind: 'pvInverter', choose: '1:pvInverter',
      fill: () => ({ 'f-host': host, 'f-port': String(huawei.port) }),
      headings: { ENGLISH: 'Connect your Huawei device', GERMAN: 'Huawei-Gerät verbinden', FRENCH: 'Connecter votre appareil Huawei' } },
    { name: 'a tariff on evcc\'s topic', path: 'tariffs', vendor: 'OCTOPUS_ENERGY', id: 'tariffId', kind: 'tariff', fill: () => ({ 'f-currency': 'EUR' }),
      headings: { ENGLISH: 'Connect your Octopus Energy tariff', GERMAN: 'Octopus Energy-Tarif verbinden', FRENCH: 'Connecter votre tarif Octopus Energy' } },
  ];

  const browser = await launchChromium(t);
  const combos = (['ENGLISH', 'GERMAN', 'FRENCH'] as const).flatMap((language) => (['DARK', 'LIGHT'] as const).map((theme) => ({ language, theme })));
  for (const [i, way] of ways.entries()) {
    await t.test(way.name, async (st) => {
      // Each language and theme shows the page in its words and colours; one of them goes all the way.
      const through = combos[i % combos.length]!;
      for (const { language, theme } of combos) {
        const { page, errors } = await recordingPage(browser, st);
        const url = await session(hub, way, `${partner}/done?x=1`, `?language=${language}&theme=${theme}`);
        assert.equal((await page.goto(url))?.status(), 200);
        assert.equal(await page.getAttribute('html', 'lang'), LANG[language]);
        assert.equal((await page.locator('h1').textContent())?.trim(), way.headings[language]);
        assert.equal(await backgroundOf(page), theme === 'DARK' ? DARK_BG : LIGHT_BG);
        if (language !== through.language || theme !== through.theme) {
          assert.deepEqual(errors, []);
          continue;
        }
        for (const [id, value] of Object.entries(way.fill())) await page.locator(`#${id}`).fill(value);
        if (way.choose) {
          await page.locator('button[value=pair]').click();
          await page.locator(`input[name=device][value="${way.choose}"]`).check();
          // A secret would have to be typed again here; these forms have none.
        }
        await Promise.all([page.waitForURL((u) => u.origin === partner, { timeout: 20_000 }), page.locator('button[value=pair]').click()]);
        const landed = new URL(page.url());
        assert.equal(landed.searchParams.get('x'), '1');
        assert.equal(landed.searchParams.get('status'), 'SUCCESS');
        const device = hub.device(landed.searchParams.get(way.id)!);
        assert.equal(device?.kind, way.kind);
        assert.equal(device?.vendor, way.vendor);
        assert.equal(device?.userId, 'browser-household');
        assert.deepEqual(errors, [], 'no console errors (no CSP violation) on the way');
      }
    });
  }
});
