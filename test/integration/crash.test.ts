// Nothing lost: a command acknowledged with 200 is in the database even when the hub is killed
// (SIGKILL, no chance to flush) right after answering.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHubProcess } from '../support/process.ts';
import { Store } from '../../src/store/store.ts';
import { demoRecords, DEMO_USER } from '../../src/demo/site.ts';
import { prepareImport } from '../../src/domain/import.ts';
import { ids } from '../support/hub.ts';

const KEY = 'crash-test-key-0123456789abcdef';

test('acknowledged commands survive the hub being killed', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-crash-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const seed = Store.open(join(dataDir, 'hub.db'));
  const prepared = prepareImport(demoRecords(Date.now()), Date.now(), () => undefined);
  seed.importDevices(prepared.devices, prepared.images, Date.now());
  seed.close();

  const hub = await startHubProcess({ HUB_DATA_DIR: dataDir, HUB_API_KEY: KEY });
  t.after(() => hub.kill());
  const acknowledged: string[] = [];
  for (let i = 0; i < 20; i++) {
    const res = await fetch(`${hub.url}/v1.0.0/vehicles/${ids.vehicle}/commands/charging-stop`, { method: 'POST', headers: { 'x-api-key': KEY } });
    assert.equal(res.status, 200);
    acknowledged.push(((await res.json()) as { id: string }).id);
  }
  await hub.kill('SIGKILL');

  const store = Store.open(join(dataDir, 'hub.db'));
  t.after(() => store.close());
  // The worker may already have carried some out (or failed them: the demo vehicle has no driver).
  const stored = store.commands.ofDeviceId(ids.vehicle, 'ALL').map((c) => c.id);
  assert.deepEqual(stored, acknowledged, 'every acknowledged command, in order');
  assert.ok(store.commands.ofDeviceId(ids.vehicle, 'ALL').every((c) => c.userId === DEMO_USER));
});
