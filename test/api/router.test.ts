// The hub's routes must all fit Hono's RegExpRouter: when one does not (a static segment beside a
// parameter, such as /connect/callback next to /connect/:token), Hono's SmartRouter falls back to
// its TrieRouter for every request of the hub, the API's reads included, at a cost measured in
// `BENCH_ONLY=lists npm run bench` (the router was 2 % of a detail read's CPU).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon } from '../../src/daemon.ts';
import { ConfigSchema } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';

const KEY = 'router-test-key-0123456789abcdef';

test('the whole app, as the daemon serves it, routes with the RegExpRouter', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-router-'));
  const daemon = new Daemon({ config: ConfigSchema.parse({ dataDir, http: { port: 0 }, apiKey: KEY }), log: silentLogger() });
  await daemon.start();
  t.after(async () => {
    await daemon.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  // The SmartRouter picks its router at the first request.
  const res = await fetch(`${daemon.url}/v1.0.0/batteries`, { headers: { 'x-api-key': KEY } });
  assert.equal(res.status, 200);
  assert.equal(daemon.app.app.router.name, 'SmartRouter + RegExpRouter');
});
