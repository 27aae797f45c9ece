// The demo hub as a process, its data on a 6 MB tmpfs, commands every 40 ms, the tmpfs filled with dd
// mid-run and freed again: the hub never exits, refuses with 503 STORAGE_UNAVAILABLE (never a 500)
// while full, says so on /health and /metrics, takes writes again within seconds of the space being
// freed, and every acknowledged command is stored once and carried out or failed: none stranded.
// Killed while the card is full, it keeps decisions.md §4 after a restart; on a card the kernel turned
// read-only it still serves reads and stops cleanly on SIGTERM. Started on a full card, it waits for
// space (listening, /health and the log saying why) instead of exiting into systemd's restart loop;
// started on a read-only one, it exits 3, which the unit does not restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startHubProcess, until } from '../support/process.ts';
import { fill, mountExt4, mountTmpfs } from '../support/mounts.ts';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { commandCounts, fillFreeCycle, vehicleCommandIds } from '../support/storage-cycle.ts';
import { DEMO_USER } from '../../src/demo/site.ts';
import { Store } from '../../src/store/store.ts';
import { ids } from '../support/hub.ts';
import { runHub } from '../../src/cli/hub.ts';

const KEY = 'storage-full-test-key-0123456789ab';

test('a card that fills up mid-run and is freed: nothing acknowledged is lost or stranded, and the hub never exits', async (t) => {
  const mount = mountTmpfs(t, 6 * 1024 * 1024);
  if (!mount) return;
  const dataDir = join(mount, 'data');
  const hub = await startHubProcess({ HUB_DATA_DIR: dataDir, HUB_API_KEY: KEY }, ['--demo'], 60_000);
  t.after(() => hub.kill());
  let exited: number | null | undefined;
  hub.child.once('exit', (code) => (exited = code));
  // The demo starts with a past (the Tesla's evening charging commands): not this test's.
  const before = await vehicleCommandIds(hub.url, KEY, DEMO_USER, ids.vehicle);

  const cycle = await fillFreeCycle({ url: hub.url, key: KEY, mount, commandPath: `/v1.0.0/vehicles/${ids.vehicle}/commands/charging-stop` });
  assert.equal(exited, undefined, 'the hub did not exit');
  assert.deepEqual(cycle.unexpected, [], 'only 200 or 503 STORAGE_UNAVAILABLE, never a 500');
  assert.ok(cycle.refused > 0, 'writes were refused while the card was full');
  assert.ok(Number(cycle.refusal?.retryAfter) >= 1, 'with Retry-After');
  assert.match(cycle.refusal?.message ?? '', /storage is full/);
  assert.equal(cycle.healthWhileFull?.status, 503);
  assert.match(JSON.stringify(cycle.healthWhileFull?.body), /storage not writable \(full\), \d+ kB free of 6\.0 MB/);
  assert.match(cycle.metricsWhileFull ?? '', /^hub_storage_writable 0$/m);
  assert.ok(cycle.recoveredMs >= 0 && cycle.recoveredMs < 5_000, `writes taken again ${cycle.recoveredMs} ms after the space was freed`);

  // Every command acknowledged before, during and after is carried out or failed with a reason.
  await until('no command left PENDING', async () => ((await commandCounts(hub.url, KEY))['PENDING'] === 0 ? true : undefined), 30_000);
  assert.equal(await hub.kill('SIGTERM'), 0, 'a clean stop');

  const store = Store.open(join(dataDir, 'hub.db'));
  t.after(() => store.close());
  const stored = new Map(store.commands.ofDeviceId(ids.vehicle, 'ALL').filter((c) => !before.has(c.id)).map((c) => [c.id, c]));
  const lost = cycle.acknowledged.filter((id) => !stored.has(id));
  const stranded = cycle.acknowledged.filter((id) => stored.get(id)?.state === 'PENDING');
  assert.deepEqual(lost, [], 'every acknowledged command is stored');
  assert.deepEqual(stranded, [], 'none stays PENDING');
  assert.equal(stored.size, cycle.acknowledged.length, 'nothing stored that was not acknowledged');
});

const charge = (url: string) => fetch(`${url}/v1.0.0/vehicles/${ids.vehicle}/commands/charging-stop`, { method: 'POST', headers: { 'x-api-key': KEY } });

test('killed (SIGKILL) while the card is full: after a restart every acknowledged command is there, and none runs twice', async (t) => {
  const mount = mountTmpfs(t, 6 * 1024 * 1024);
  if (!mount) return;
  const dataDir = join(mount, 'data');
  const first = await startHubProcess({ HUB_DATA_DIR: dataDir, HUB_API_KEY: KEY }, ['--demo'], 60_000);
  t.after(() => first.kill());
  const testStartMs = Date.now();
  const acknowledged: string[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await charge(first.url);
    assert.equal(res.status, 200);
    acknowledged.push(((await res.json()) as { id: string }).id);
  }
  const filler = fill(mount);
  // Submitted until one is refused: those acknowledged before are carried out while the card is
  // full, their outcomes held in memory.
  await until('a write refused', async () => {
    const res = await charge(first.url);
    if (res.status === 200) acknowledged.push(((await res.json()) as { id: string }).id);
    return res.status === 503 ? true : undefined;
  });
  await first.kill('SIGKILL');
  rmSync(filler);

  const second = await startHubProcess({ HUB_DATA_DIR: dataDir, HUB_API_KEY: KEY }, ['--demo'], 60_000);
  t.after(() => second.kill());
  await until('no command left PENDING', async () => ((await commandCounts(second.url, KEY))['PENDING'] === 0 ? true : undefined), 30_000);
  assert.equal(await second.kill('SIGTERM'), 0);
  const store = Store.open(join(dataDir, 'hub.db'));
  t.after(() => store.close());
  // The demo's past aside: the commands of its evenings, written at each start dated in the past.
  const stored = store.commands.ofDeviceId(ids.vehicle, 'ALL').filter((c) => c.createdAtMs >= testStartMs);
  assert.deepEqual(stored.map((c) => c.id), acknowledged, 'every acknowledged command, in order, once');
  for (const command of stored) {
    // Sent before the kill (its attempt is on disk): never sent again, it fails saying so.
    if (command.state === 'FAILED' && command.startedAtMs !== null) assert.match(command.failedReason ?? '', /not sent again|Expired|confirm/);
  }
});

test('a card the kernel turns read-only mid-run: writes refused with 503, reads served, and SIGTERM stops the hub cleanly', async (t) => {
  const card = mountExt4(t, 20);
  if (!card) return;
  const hub = await startHubProcess({ HUB_DATA_DIR: join(card.dir, 'data'), HUB_API_KEY: KEY }, ['--demo'], 60_000);
  t.after(() => hub.kill());
  // Fully up (its OCPP charger charging, its signal handlers in place) once the banner is out.
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no banner within 30 s')), 30_000);
    hub.child.stdout!.on('data', (chunk: Buffer) => {
      if (!chunk.toString().includes('home-energy-hub is running at')) return;
      clearTimeout(timer);
      resolve();
    });
  });
  assert.equal((await charge(hub.url)).status, 200);
  card.triggerError();
  const refused = await until('a write refused', async () => {
    const res = await charge(hub.url);
    return res.status === 200 ? undefined : res;
  });
  assert.equal(refused.status, 503);
  assert.match(((await refused.json()) as { message: string }).message, /storage is read-only/);
  const health = await fetch(`${hub.url}/health`);
  assert.equal(health.status, 503);
  assert.match(JSON.stringify(await health.json()), /storage not writable \(read-only\)/);
  // The installer's command says the same.
  const said: string[] = [];
  assert.equal(await runHub(['status'], { out: (l) => said.push(l), err: (l) => said.push(l) }, { HUB_DATA_DIR: join(card.dir, 'data') }), 1);
  assert.match(said.join('\n'), /: down\n {2}problem: storage not writable \(read-only\)/);
  assert.equal((await fetch(`${hub.url}/v1.0.0/batteries`, { headers: { 'x-api-key': KEY } })).status, 200);
  // The stop flushes telemetry and the OCPP charger's last state into a card that refuses them.
  assert.equal(await hub.kill('SIGTERM'), 0);
});

/** The hub as a process, with its log lines as they come: one that waits at start never says "hub listening". */
function spawnHub(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, HUB_HTTP_PORT: '0', HUB_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: { msg?: string; url?: string; level?: number }[] = [];
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      lines.push(JSON.parse(line) as (typeof lines)[number]);
    } catch {
      // not a log line
    }
  });
  const exited = once(child, 'exit') as Promise<[number | null]>;
  return {
    child, lines, exited,
    stderr: () => stderr,
    line: (msg: RegExp) => until(`a log line ${msg}`, () => lines.find((l) => msg.test(l.msg ?? '')) ?? (child.exitCode !== null ? assert.fail(`exited ${child.exitCode}: ${stderr}`) : undefined), 30_000),
    kill: async (signal: NodeJS.Signals = 'SIGKILL') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return (await exited)[0];
    },
  };
}

test('started on a full card, the hub waits for space, listening and saying so, and starts once space is freed: no exit, no restart loop', async (t) => {
  const mount = mountTmpfs(t, 6 * 1024 * 1024);
  if (!mount) return;
  const dataDir = join(mount, 'data');
  // A hub's database, closed cleanly (its WAL and shared-memory index gone, as after a clean stop).
  Store.open(join(dataDir, 'hub.db')).close();
  const filler = fill(mount);

  const hub = spawnHub({ HUB_DATA_DIR: dataDir, HUB_API_KEY: KEY });
  t.after(() => hub.kill());
  const waiting = await hub.line(/^the data file system is full: the hub waits for 256 kB of free space before it opens its database/);
  assert.equal(waiting.level, 50, 'said at error level');
  const url = waiting.url!;
  const health = await fetch(`${url}/health`);
  assert.equal(health.status, 503);
  assert.deepEqual(((await health.json()) as { problems: string[] }).problems, [
    'storage not writable (full), 0 kB free of 6.0 MB',
    `not started: the hub opens its database once 256 kB are free on ${dataDir}`,
  ]);
  const read = await fetch(`${url}/v1.0.0/batteries`, { headers: { 'x-api-key': KEY } });
  assert.equal(read.status, 503);
  assert.equal(read.headers.get('retry-after'), '5');
  const body = (await read.json()) as { errorCode: string; message: string };
  assert.equal(body.errorCode, 'STORAGE_UNAVAILABLE');
  assert.match(body.message, /storage is full, so the hub has not opened its database yet/);
  // Nothing was left on the card by the attempt (the lock's temporary file), and the installer's
  // command, which finds no lock, says why.
  assert.deepEqual(readdirSync(dataDir).filter((f) => f.startsWith('hub.lock')), []);
  const said: string[] = [];
  assert.equal(await runHub(['status'], { out: (l) => said.push(l), err: (l) => said.push(l) }, { HUB_DATA_DIR: dataDir }), 1);
  assert.match(said.join('\n'), /the data file system is full: a hub started on it waits/);
  // Still waiting, still there, and not saying it at every look.
  assert.equal((await fetch(`${url}/health`)).status, 503);
  assert.equal(hub.child.exitCode, null);
  assert.equal(hub.lines.filter((l) => /waits for 256 kB/.test(l.msg ?? '')).length, 1);

  const freedAt = Date.now();
  rmSync(filler);
  await hub.line(/^hub listening$/);
  assert.ok(Date.now() - freedAt < 5_000, `started ${Date.now() - freedAt} ms after the space was freed`);
  assert.ok(hub.lines.some((l) => l.msg === 'the data file system has room again: starting'));
  assert.deepEqual(await (await fetch(`${url}/health`)).json(), { status: 'up' });
  assert.equal((await fetch(`${url}/v1.0.0/batteries`, { headers: { 'x-api-key': KEY } })).status, 200);
  assert.equal(await hub.kill('SIGTERM'), 0);
});

test('stopped (SIGTERM) while it waits for space on a full card, the hub exits 0 at once, leaving nothing on the card', async (t) => {
  const mount = mountTmpfs(t, 6 * 1024 * 1024);
  if (!mount) return;
  const dataDir = join(mount, 'data');
  Store.open(join(dataDir, 'hub.db')).close();
  fill(mount);
  const before = readdirSync(dataDir).sort();
  const hub = spawnHub({ HUB_DATA_DIR: dataDir, HUB_API_KEY: KEY });
  t.after(() => hub.kill());
  await hub.line(/waits for 256 kB of free space/);
  assert.equal(await hub.kill('SIGTERM'), 0, 'a clean stop, not a failed start');
  assert.doesNotMatch(hub.stderr(), /failed to start/);
  assert.deepEqual(readdirSync(dataDir).sort(), before);
});

test('started on a card the kernel made read-only, the hub exits with status 3, which the unit does not restart', async (t) => {
  const card = mountExt4(t, 20);
  if (!card) return;
  const dataDir = join(card.dir, 'data');
  Store.open(join(dataDir, 'hub.db')).close();
  assert.equal(spawnSync('mount', ['-o', 'remount,ro', card.dir]).status, 0);
  const hub = spawnHub({ HUB_DATA_DIR: dataDir, HUB_API_KEY: KEY });
  t.after(() => hub.kill());
  const [code] = await hub.exited;
  assert.equal(code, 3);
  assert.match(hub.stderr(), new RegExp(`^home-energy-hub failed to start: the data directory ${dataDir} is read-only`));
  const unit = readFileSync('systemd/home-energy-hub.service', 'utf8');
  assert.match(unit, /^RestartPreventExitStatus=2 3$/m);
});
