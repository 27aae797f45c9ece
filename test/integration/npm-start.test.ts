// `npm start` as a new user runs it: the demo banner, a second start on the same port that fails
// without touching the running hub, and a SIGTERM to npm's own pid that stops the hub (no orphan).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Store } from '../../src/store/store.ts';
import { freePort } from '../support/broker.ts';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** `npm start` with `env` over this process's; a variable given as undefined is left out. */
function npmStart(env: Record<string, string | undefined>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const merged: Record<string, string | undefined> = { ...process.env, HUB_LOG_LEVEL: 'info', ...env };
  for (const [name, value] of Object.entries(merged)) if (value === undefined) delete merged[name];
  // detached: the test signals npm's pid alone, as `kill -TERM <pid>` does, not a process group.
  const child = spawn(npm, ['start'], { env: merged, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let text = '';
  child.stdout!.on('data', (d) => (text += d));
  child.stderr!.on('data', (d) => (text += d));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { child, output: () => text, exited };
}

/** The demo's key, once the banner is printed. */
function banner(child: ChildProcess, output: () => string, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within ${timeoutMs} ms:\n${output()}`)), timeoutMs);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const key = /API key \(shown once\):\s+(\S+)/.exec(line)?.[1];
      if (key) {
        clearTimeout(timer);
        resolve(key);
      }
    });
    child.once('exit', () => reject(new Error(`npm start exited before its banner:\n${output()}`)));
  });
}

function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function bindings(dataDir: string): string {
  const store = Store.open(join(dataDir, 'hub.db'));
  try {
    return JSON.stringify(store.devices.driven().map((d) => [d.id, d.driver]).sort());
  } finally {
    store.close();
  }
}

test('a second npm start fails on the port without touching the running hub; SIGTERM to npm stops the hub', { timeout: 180_000 }, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-npm-start-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const env = { HUB_DATA_DIR: dataDir, HUB_HTTP_PORT: String(port) };
  const first = npmStart(env);
  t.after(() => {
    // Only if the test failed half-way: end the whole group this test started.
    if (first.child.exitCode === null) try { process.kill(-first.child.pid!, 'SIGKILL'); } catch { /* gone */ }
  });
  const key = await banner(first.child, first.output);
  const batteries = () => fetch(`http://127.0.0.1:${port}/v1.0.0/batteries`, { headers: { 'X-API-KEY': key } });
  assert.equal((await batteries()).status, 200);
  assert.match(first.output(), new RegExp(`the household page: http://127\\.0\\.0\\.1:${port}/home`));
  // The banner's command reaches this hub's data directory, not an empty data/ of the checkout.
  const listCommand = /the demo's devices and their ids:\s+(.+)$/m.exec(first.output())?.[1] ?? '';
  assert.equal(listCommand, `HUB_DATA_DIR=${dataDir} npm run hub -- devices list`);
  const listed = execSync(listCommand, { encoding: 'utf8', env: { ...process.env, HUB_DATA_DIR: undefined, HUB_CONFIG: undefined }, stdio: ['ignore', 'pipe', 'pipe'] });
  assert.match(listed, /\bbattery\b/, listed);
  // Advice that does not apply to the demo is not given, even at level info.
  assert.doesNotMatch(first.output(), /mqtt\.deviceUrl|refused MQTT 5/);
  const before = bindings(dataDir);

  const second = npmStart(env);
  const code = await second.exited;
  assert.notEqual(code, 0);
  assert.match(second.output(), new RegExp(`127\\.0\\.0\\.1:${port} is already in use`));
  assert.doesNotMatch(second.output(), /demo household loaded/);
  assert.equal((await batteries()).status, 200, 'the running hub\'s demo key still works');
  assert.equal(bindings(dataDir), before, 'the demo devices still point at the running hub\'s simulators');

  process.kill(first.child.pid!, 'SIGTERM');
  assert.equal(await first.exited, 0);
  assert.match(first.output(), /"msg":"hub stopped"/);
  assert.equal(await portIsFree(port), true, 'no hub left running after npm exited');
});

test('the demo starts quietly: nothing before its banner, warnings only after it unless HUB_LOG_LEVEL says otherwise', { timeout: 120_000 }, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-npm-quiet-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const demo = npmStart({ HUB_DATA_DIR: dataDir, HUB_HTTP_PORT: String(port), HUB_LOG_LEVEL: undefined, HUB_CONFIG: undefined });
  t.after(() => {
    if (demo.child.exitCode === null) try { process.kill(-demo.child.pid!, 'SIGKILL'); } catch { /* gone */ }
  });
  await banner(demo.child, demo.output);
  const before = demo.output().slice(0, demo.output().indexOf('home-energy-hub is running at'));
  // npm's own two lines (the script it runs) come first; not one log line of the hub.
  assert.doesNotMatch(before, /"level"/, before);
  assert.match(demo.output(), /logs: warnings only \(HUB_LOG_LEVEL=info npm start shows every event\)/);
  process.kill(demo.child.pid!, 'SIGTERM');
  assert.equal(await demo.exited, 0);
});

test('the demo with a configuration file that names no log level (Home Assistant\'s recipe) starts quietly too', { timeout: 120_000 }, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-npm-quiet-config-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = join(dataDir, 'ha-demo.yaml');
  writeFileSync(config, 'homeAssistant:\n  enabled: true\n');
  const port = await freePort();
  const demo = npmStart({ HUB_DATA_DIR: dataDir, HUB_HTTP_PORT: String(port), HUB_LOG_LEVEL: undefined, HUB_CONFIG: config });
  t.after(() => {
    if (demo.child.exitCode === null) try { process.kill(-demo.child.pid!, 'SIGKILL'); } catch { /* gone */ }
  });
  await banner(demo.child, demo.output);
  const before = demo.output().slice(0, demo.output().indexOf('home-energy-hub is running at'));
  assert.doesNotMatch(before, /"level":30/, before);
  assert.match(demo.output(), /logs: warnings only/);
  process.kill(demo.child.pid!, 'SIGTERM');
  assert.equal(await demo.exited, 0);
});
