// Two hubs never share one database: a second daemon on the same data directory is refused, naming
// the directory and the PID that holds it, and changes nothing; the admin CLI still works beside the
// running daemon; a lock left by a killed hub does not block the next start; a clean stop gives it back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHubProcess } from '../support/process.ts';
import { runHub } from '../../src/cli/hub.ts';
import { LOCK_FILE } from '../../src/store/data-dir-lock.ts';

const KEY = 'lock-test-key-0123456789abcdef';

test('a second hub on the same data directory is refused; the CLI works beside the daemon; a killed hub\'s lock does not block', { timeout: 120_000 }, async (t) => {
  const dataDir = realpathSync(mkdtempSync(join(tmpdir(), 'hub-lock-')));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startHubProcess({ HUB_DATA_DIR: dataDir, HUB_API_KEY: KEY });
  t.after(() => first.kill());
  const port = new URL(first.url).port;

  // As the port-in-use message advised before: another port, the same data directory.
  await assert.rejects(startHubProcess({ HUB_DATA_DIR: dataDir, HUB_API_KEY: 'another-key-0123456789abcdef' }), (err: Error) => {
    assert.match(err.message, new RegExp(`the data directory ${dataDir} is in use by another hub \\(PID ${first.child.pid}\\)`));
    assert.match(err.message, /give this one its own directory with HUB_DATA_DIR/);
    return true;
  });
  // The same port: the message says a second hub needs its own data directory as well.
  await assert.rejects(startHubProcess({ HUB_DATA_DIR: dataDir, HUB_HTTP_PORT: port }), (err: Error) => {
    assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${port} is already in use .*its own port and its own data directory: HUB_HTTP_PORT=${Number(port) + 1} HUB_DATA_DIR=data-${Number(port) + 1}`));
    return true;
  });

  // Admin commands work whether or not the daemon runs: the lock is the daemons'.
  const out: string[] = [];
  const code = await runHub(['keys', 'create', 'installer'], { out: (l) => out.push(l), err: (l) => out.push(l) }, { HUB_DATA_DIR: dataDir });
  assert.equal(code, 0, out.join('\n'));
  const created = /heh_\S+/.exec(out.join('\n'))?.[0];
  assert.ok(created, out.join('\n'));
  const batteries = (key: string, url = first.url) => fetch(`${url}/v1.0.0/batteries`, { headers: { 'x-api-key': key } });
  assert.equal((await batteries(KEY)).status, 200, 'the running hub\'s key still works');
  assert.equal((await batteries(created)).status, 200, 'a key the CLI made while the hub runs works at once');

  await first.kill('SIGKILL');
  assert.ok(existsSync(join(dataDir, LOCK_FILE)), 'a killed hub leaves its lock behind');
  const next = await startHubProcess({ HUB_DATA_DIR: dataDir, HUB_API_KEY: KEY });
  t.after(() => next.kill());
  assert.equal((await batteries(KEY, next.url)).status, 200);
  assert.equal(await next.kill('SIGTERM'), 0);
  assert.equal(existsSync(join(dataDir, LOCK_FILE)), false, 'a clean stop gives the directory back');
});
