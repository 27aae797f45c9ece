// What is known of a device no driver reaches. Its imported state and lastUpdated stand (decisions
// §3), but a running hub does not claim it online (§1: isOnline is "the driver reached the device");
// and `hub devices list` without a running hub says its STATE column is the last stored state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runHub } from '../../src/cli/hub.ts';
import { ConfigSchema } from '../../src/config.ts';
import { Daemon } from '../../src/daemon.ts';
import { silentLogger } from '../../src/log.ts';

const VEHICLE = '6f1c2a4e-0000-4000-8000-00000000e0d1';
const METER = '6f1c2a4e-0000-4000-8000-00000000a0d1';

const record = (kind: string, id: string, vendor: string, extra: Record<string, unknown> = {}) => ({
  kind, id, userId: 'household-1', isOnline: true, lastUpdated: '2026-11-01T10:00:00Z',
  staticData: { vendor, name: `${vendor} ${kind}`, model: 'imported' }, ...extra,
});

test('a device without a driver keeps its imported state, is not shown online by a running hub, and devices list says what STATE is', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-driverless-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const out: string[] = [];
  const hub = (...argv: string[]) => runHub(argv, { out: (l) => out.push(l), err: (l) => out.push(l) }, { HUB_DATA_DIR: dir });
  writeFileSync(join(dir, 'in.json'), JSON.stringify([
    record('vehicle', VEHICLE, 'MERCEDES'),
  ]));
  assert.equal(await hub('import', join(dir, 'in.json')), 0, out.join('\n'));

  out.length = 0;
  assert.equal(await hub('devices', 'list'), 0);
  assert.match(out.join('\n'), new RegExp(`^No hub is running on ${dir}: STATE is the last stored state, as of \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ, not a live reading\\.$`, 'm'));
  assert.match(out.join('\n'), new RegExp(`${VEHICLE}\\s+vehicle\\s+MERCEDES.*\\sonline\\s+\\(no driver\\)`), 'as imported, said to be stored');

  const daemon = new Daemon({ config: ConfigSchema.parse({ dataDir: dir, http: { port: 0 } }), log: silentLogger() });
  t.after(() => daemon.stop());
  await daemon.start();
  const shown = daemon.db.devices.get(VEHICLE)!;
  assert.equal(shown.isOnline, false, 'no driver of this hub reached it');
  assert.equal(shown.lastUpdatedMs, Date.parse('2026-11-01T10:00:00Z'), 'its imported state stands');
  assert.equal(shown.model, 'imported');

  out.length = 0;
  assert.equal(await hub('devices', 'list'), 0);
  assert.doesNotMatch(out.join('\n'), /No hub is running/, 'a hub runs here: STATE is its own');
  assert.match(out.join('\n'), new RegExp(`${VEHICLE}\\s+vehicle\\s+MERCEDES.*\\soffline\\s+\\(no driver\\)`));

  // Imported while the hub runs: not repeated as online either, and told as an offline event.
  writeFileSync(join(dir, 'more.json'), JSON.stringify([record('meter', METER, 'SMA')]));
  assert.equal(await hub('import', join(dir, 'more.json')), 0, out.join('\n'));
  const offline = daemon.events.next((e) => e.type === 'offline' && e.device.id === METER, 10_000);
  (daemon as unknown as { watcher: { check(): void } }).watcher.check();
  await offline;
  assert.equal(daemon.db.devices.get(METER)!.isOnline, false);
});

test('thousands of imported devices no driver reaches are all disclaimed at start, each told once as an offline event', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-driverless-many-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const ids = Array.from({ length: 2_000 }, (_, i) => `6f1c2a4e-0000-4000-8000-${String(i).padStart(12, '0')}`);
  writeFileSync(join(dir, 'in.json'), JSON.stringify(ids.map((id) => record('meter', id, 'SMA'))));
  assert.equal(await runHub(['import', join(dir, 'in.json')], { out: () => {}, err: () => {} }, { HUB_DATA_DIR: dir }), 0);
  const daemon = new Daemon({ config: ConfigSchema.parse({ dataDir: dir, http: { port: 0 } }), log: silentLogger() });
  t.after(() => daemon.stop());
  const told = new Set<string>();
  daemon.events.on((event) => { if (event.type === 'offline') told.add(event.device.id); });
  await daemon.start();
  assert.deepEqual(daemon.db.devices.onlineWithoutDriver(), []);
  assert.equal(told.size, ids.length);
});
