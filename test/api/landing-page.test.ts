// The hub's address in a browser: a page saying what this is and where to go, not a JSON 404.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { createTestHub } from '../support/hub.ts';
import { renderLandingPage } from '../../src/api/landing-page.ts';
import { skipWithout } from '../support/peers.ts';

test('GET / is a small page without a key: what the hub is, links to the docs and health, how to list devices', async (t) => {
  const hub = createTestHub();
  t.after(hub.close);
  const res = await hub.app.request('/');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  const html = await res.text();
  assert.match(html, /<h1>home-energy-hub<\/h1>/);
  for (const path of ['/docs', '/health']) assert.match(html, new RegExp(`href="${path}"`));
  assert.equal((await hub.app.request('/docs')).status, 200, 'the docs answer without a key');
  assert.match(html, /devices list/);
  assert.match(html, /X-API-KEY/);
  assert.doesNotMatch(html, new RegExp(hub.key), 'no key on the page');
  assert.doesNotMatch(html, /<script/i);
});

test('the page gives the commands of how the hub was started: the demo and a checkout npm run hub --, an installed hub sudo home-energy-hub', () => {
  const installed = renderLandingPage('http://hub.local:8080', 'installed');
  assert.match(installed, /<code>sudo home-energy-hub keys create NAME<\/code>/);
  assert.match(installed, /<code>sudo home-energy-hub devices list<\/code>/);
  assert.doesNotMatch(installed, /npm (start|run)/, 'no development command on an installed hub');
  const demo = renderLandingPage('http://127.0.0.1:8080', 'demo');
  assert.match(demo, /<code>npm start<\/code> printed one for the demo; <code>npm run hub -- keys create NAME<\/code>/);
  assert.match(demo, /<code>npm run hub -- devices list<\/code>/);
  const checkout = renderLandingPage('http://127.0.0.1:8080', 'checkout');
  assert.doesNotMatch(checkout, /npm start/, 'a hub run from a checkout without --demo printed no key');
  assert.match(checkout, /<code>npm run hub -- keys create NAME<\/code>/);
});

test('at phone width (375 px) nothing on the page is wider than its box: the curl lines wrap', { skip: skipWithout('chromium') }, async (t) => {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  t.after(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
  await page.setContent(renderLandingPage('http://192.168.178.20:8080', 'installed'));
  // Evaluated in the page, as strings: the project's TypeScript has no DOM library.
  const overflowing = await page.evaluate(`[...document.querySelectorAll('pre, code, p, li')]
    .filter((e) => e.scrollWidth > e.clientWidth + 1 || e.getBoundingClientRect().right > document.documentElement.clientWidth)
    .map((e) => e.outerHTML.slice(0, 80))`) as string[];
  assert.deepEqual(overflowing, []);
  assert.equal(await page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth'), true, 'no sideways scrolling');
});
