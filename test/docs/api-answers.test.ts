// The answers docs/api.md quotes are the hub's own: a not-found message, the reason a command not
// offered fails with, the end of a 503's message, a missing picture's 404, each made by the code that
// makes the real answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createTestHub, ids, json } from '../support/hub.ts';
import { demoRecords, DEMO_USER } from '../../src/demo/site.ts';
import { disconnected, notFound } from '../../src/api/errors.ts';
import { refusal } from '../../src/runtime/commands/command-check.ts';

const page = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');

test('docs/api.md quotes the not-found message, a command\'s failedReason and a 503\'s reason as the hub makes them', () => {
  assert.ok(page.includes(`\`${notFound('battery', '<id>').message}\``), 'the not-found message');
  const notOffered = refusal(new Map([['SET_SCHEDULE', {}]]) as never, 'SET_TEMPERATURE', { temperature: 21 })!.message;
  assert.ok(page.includes(`\`${notOffered}.\``), `the failedReason: ${notOffered}.`);
  const reason = 'the token expired on 2026-01-01T00:00:00.000Z';
  const quoted = `…is disconnected: ${reason}`;
  assert.ok(page.includes(`\`${quoted}\``));
  assert.ok(disconnected('battery', ids.battery, reason).message.endsWith(quoted.slice(1)), 'a 503\'s message ends with the reason');
});

test('docs/api.md names both pictures the hub serves, and their 404 is DEVICE_IMAGE_NOT_FOUND', async (t) => {
  const hub = createTestHub();
  t.after(hub.close);
  hub.seed(demoRecords(hub.clock.now()));
  for (const [segment, id] of [['vehicles', ids.vehicle], ['hvacs', ids.hvac]] as const) {
    assert.ok(page.includes(`\`GET /users/{u}/${segment}/{id}/image.png\``), `${segment} image in docs/api.md`);
    assert.equal((await hub.request(`/users/${DEMO_USER}/${segment}/${id}/image.png`)).status, 200);
    hub.store.deviceImages.delete(id);
    assert.equal((await json(await hub.request(`/users/${DEMO_USER}/${segment}/${id}/image.png`))).errorCode, 'DEVICE_IMAGE_NOT_FOUND');
  }
  assert.ok(page.includes('404 `DEVICE_IMAGE_NOT_FOUND`'));
});

test('the connect sessions docs/api.md lists are the ones the hub serves, so its first paragraph, which points at that list, stays true', (t) => {
  const hub = createTestHub();
  t.after(hub.close);
  const served = hub.operations.filter((op) => op.method === 'post' && op.path.startsWith('/connections/')).map((op) => op.path).sort();
  // A row may name several: `POST /connections/hvacs`, `/connections/home-powers`, …
  const rows = [...page.matchAll(/\| `POST \/connections\/[^|]*/g)].map((m) => m[0]);
  const listed = [...new Set(rows.flatMap((row) => [...row.matchAll(/`(?:POST )?(\/connections\/[a-z-]+)/g)].map((m) => m[1]!)))].sort();
  assert.ok(served.length >= 2);
  assert.deepEqual(listed, served);
});
