// The demo hub as a process, its data on a 6 MB tmpfs, commands every 40 ms, the tmpfs filled with dd
// mid-run and freed again: the hub never exits, refuses with 503 STORAGE_UNAVAILABLE (never a 500)
// while full, says so on /health and /metrics, takes writes again within seconds of the space being
// freed, and every acknowledged command is stored once and carried out or failed: none stranded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startHubProcess, until } from '../support/process.ts';
import { mountTmpfs } from '../support/mounts.ts';
import { commandCounts, fillFreeCycle } from '../support/storage-cycle.ts';
import { Store } from '../../src/store/store.ts';
import { ids } from '../support/hub.ts';

const KEY = 'storage-full-test-key-0123456789ab';

test('a card that fills up mid-run and is freed: nothing acknowledged is lost or stranded, and the hub never exits', async (t) => {
  const mount = mountTmpfs(t, 6 * 1024 * 1024);
  if (!mount) return;
  const dataDir = join(mount, 'data');
  const hub = await startHubProcess({ HUB_DATA_DIR: dataDir, HUB_API_KEY: KEY }, ['--demo'], 60_000);
  t.after(() => hub.kill());
  let exited: number | null | undefined;
  hub.child.once('exit', (code) => (exited = code));

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
  const stored = new Map(store.commands.ofDeviceId(ids.vehicle, 'ALL').map((c) => [c.id, c]));
  const lost = cycle.acknowledged.filter((id) => !stored.has(id));
  const stranded = cycle.acknowledged.filter((id) => stored.get(id)?.state === 'PENDING');
  assert.deepEqual(lost, [], 'every acknowledged command is stored');
  assert.deepEqual(stranded, [], 'none stays PENDING');
  assert.equal(stored.size, cycle.acknowledged.length, 'nothing stored that was not acknowledged');
});
