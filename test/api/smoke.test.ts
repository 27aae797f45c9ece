import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestHub, json } from '../support/hub.ts';
import { demoRecords } from '../../src/demo/site.ts';

test('the demo household is served through the API', async (t) => {
  const hub = createTestHub();
  t.after(hub.close);
  hub.seed(demoRecords(hub.clock.now()));
  const res = await hub.request('/batteries');
  assert.equal(res.status, 200);
  const body = await json(res);
  assert.equal(body.totalElements, 2);
  assert.equal(body.totalPages, 1);
});
