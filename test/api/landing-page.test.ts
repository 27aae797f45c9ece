// The hub's address in a browser: a page saying what this is and where to go, not a JSON 404.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestHub } from '../support/hub.ts';

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
