// A hub whose standard output breaks keeps serving and still stops: the reader gone (`hub | head -1`,
// EPIPE on every write) or alive but not reading (a stalled journal stream, the pipe full). Before,
// the first crashed the demo on its banner and the second blocked the whole process in write(2),
// SIGTERM handler included, until someone read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHubProcess, type RunningHub } from '../support/process.ts';

const KEY = 'stdout-test-key-0123456789abcdef';
/** Each refused request is one log line of about 200 bytes: this is several times a pipe's 64 KiB. */
const REQUESTS = 1500;

async function startWithStdout(t: import('node:test').TestContext, args: string[] = []): Promise<RunningHub> {
  const dir = mkdtempSync(join(tmpdir(), 'hub-stdout-'));
  const hub = await startHubProcess({ HUB_DATA_DIR: dir, HUB_API_KEY: KEY }, args);
  t.after(async () => {
    await hub.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  return hub;
}

/** Requests that each write a log line; every one must be answered while stdout is broken. */
async function logLoudly(url: string): Promise<void> {
  for (let i = 0; i < REQUESTS; i++) {
    const res = await fetch(`${url}/v1.0.0/no-such-route-${i}`, { headers: { 'x-api-key': KEY }, signal: AbortSignal.timeout(5_000) });
    assert.equal(res.status, 404);
    await res.arrayBuffer();
  }
}

async function stopsOnSigterm(hub: RunningHub): Promise<void> {
  const exited = new Promise<number | null>((resolve) => hub.child.once('exit', (code) => resolve(code)));
  hub.child.kill('SIGTERM');
  const code = await Promise.race([exited, new Promise<'hung'>((resolve) => setTimeout(resolve, 10_000, 'hung').unref())]);
  assert.equal(code, 0, 'the hub exits cleanly within 10 s of SIGTERM');
}

test('stdout closed by its reader (EPIPE): the hub serves, logs on, and stops on SIGTERM', async (t) => {
  const hub = await startWithStdout(t, ['--demo']);
  hub.child.stdout!.destroy();
  await logLoudly(hub.url);
  await stopsOnSigterm(hub);
});

test('stdout never read (the pipe full): the hub serves, drops what it cannot write, and stops on SIGTERM', async (t) => {
  const hub = await startWithStdout(t);
  hub.child.stdout!.removeAllListeners('data');
  hub.child.stdout!.pause();
  await logLoudly(hub.url);
  await stopsOnSigterm(hub);
});
