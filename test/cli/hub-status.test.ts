// `hub status` finds the hub of a data directory by its lock and says what its /health says: up with
// the free space of the data file system; not running (exit 1) once it has stopped. What /health
// reports for a full or read-only card is tested in test/store/storage-faults.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHubProcess } from '../support/process.ts';
import { runHub } from '../../src/cli/hub.ts';

async function status(dataDir: string): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await runHub(['status'], { out: (l) => lines.push(l), err: (l) => lines.push(l) }, { HUB_DATA_DIR: dataDir });
  return { code, out: lines.join('\n') };
}

test('hub status: the running hub of the data directory, asked where it listens; not running once it stopped', { timeout: 120_000 }, async (t) => {
  const dataDir = realpathSync(mkdtempSync(join(tmpdir(), 'hub-status-')));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const hub = await startHubProcess({ HUB_DATA_DIR: dataDir, HUB_API_KEY: 'status-test-key-0123456789abcdef' });
  t.after(() => hub.kill());

  const running = await status(dataDir);
  assert.equal(running.code, 0, running.out);
  assert.match(running.out, new RegExp(`hub PID ${hub.child.pid} at ${new URL(hub.url).origin.replaceAll('.', '\\.')}: up`));
  assert.match(running.out, /data file system: [\d.]+ MB free of [\d.]+ MB/);

  assert.equal(await hub.kill('SIGTERM'), 0);
  const stopped = await status(dataDir);
  assert.equal(stopped.code, 1);
  assert.match(stopped.out, new RegExp(`no hub runs on ${dataDir}`));
});

test('hub status takes no options', async () => {
  const lines: string[] = [];
  assert.equal(await runHub(['status', '--verbose'], { out: (l) => lines.push(l), err: (l) => lines.push(l) }, { HUB_DATA_DIR: tmpdir() }), 2);
  assert.match(lines.join('\n'), /usage: npm run hub -- status/);
});
