// The household page as a household reads it, in headless Chromium, in English, German and French at
// phone (390 px) and desktop (1280 px) width: no field name or enum value of the API's schemas is a
// visible word, the first phone screen holds the flows, today's cost and the price, the desktop puts
// the picture and today side by side. Screenshots go to .test-artefacts/household/ (gitignored).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { DEMO_USER } from '../../src/demo/site.ts';
import { VENDORS_BY_KIND } from '../../src/domain/vocabulary.ts';
import { skipWithout } from '../support/peers.ts';
import { launchChromium as launch } from '../support/browser.ts';
import { ARTEFACTS, CHARGER, TARIFF, cheapestText, newPage, seedLedger, signIn, startHub } from '../support/household-hub.ts';

const skip = skipWithout('chromium');

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
      // The cheapest hours ahead, in the page's words, are the API's 3 cheapest prices after now.
      const heading = { en: 'Cheapest ahead', de: 'Am günstigsten', fr: 'Les moins chères' }[lang];
      assert.equal(await page.locator('#cheapest').textContent(), await cheapestText(page, await hub.api(`/tariffs/${TARIFF}/prices`), hub.clock.now(), heading));
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

