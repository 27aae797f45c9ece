// Telemetry held in memory reaches the database on its interval, at a clean stop, and when a device
// goes offline or comes back: a restart shows the last values with their own lastUpdated, and a
// SIGKILL (a power cut, as far as the process can tell) loses at most one interval of it and leaves
// the database intact. The real daemon, as a child process, polls a SunSpec battery simulator over
// TCP every second.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startHubProcess, until, type RunningHub } from '../support/process.ts';
import { Store } from '../../src/store/store.ts';
import { prepareImport } from '../../src/domain/import.ts';
import { ModbusSimServer } from '../../src/sim/modbus-sim-server.ts';
import { SiteModel } from '../../src/sim/site-model.ts';
import { sunspecBattery } from '../../src/sim/sunspec-sims.ts';

const KEY = 'telemetry-test-key-0123456789abcdef';
const BATTERY = '5e1f0c00-0000-4000-8000-00000000b001';
const INTERVAL_S = 2;

async function setup(t: import('node:test').TestContext) {
  // The battery's values change at every poll: a fast day, and a battery so small (200 Wh) that its
  // charge moves 0.7 % a second at 5 kW, past the 0.1 % its register resolves. (A 10 kWh battery moves
  // 0.1 % only every 7 s: unchanged values write nothing, so the disk would lag by design.)
  const sim = await ModbusSimServer.tcp(new Map([[1, sunspecBattery(new SiteModel({ dayLengthMs: 60_000, startHour: 10, batteryCapacityWh: 200 }))]]));
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-telemetry-'));
  t.after(async () => {
    await sim.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const seed = Store.open(join(dataDir, 'hub.db'));
  const prepared = prepareImport([{
    id: BATTERY, kind: 'battery', userId: 'household-1', staticData: { vendor: 'FRONIUS', model: 'Sim battery' },
    driver: { type: 'fronius', host: '127.0.0.1', port: sim.port, unitId: 1, pollIntervalMs: 1000 },
  }], Date.now(), () => undefined);
  seed.importDevices(prepared.devices, prepared.images, Date.now());
  seed.close();
  const config = join(dataDir, 'hub.yaml');
  writeFileSync(config, `telemetry:\n  persistIntervalSeconds: ${INTERVAL_S}\n`);
  const env = { HUB_DATA_DIR: dataDir, HUB_API_KEY: KEY, HUB_CONFIG: config };
  return { sim, dataDir, env };
}

/** The battery as the API shows it: its chargeState's lastUpdated (ms) and values. */
async function shown(hub: RunningHub): Promise<{ stampMs: number; state: Record<string, unknown>; isOnline: boolean }> {
  const body = (await (await fetch(`${hub.url}/v1.0.0/batteries/${BATTERY}`, { headers: { 'X-API-KEY': KEY } })).json()) as Record<string, any>;
  return { stampMs: Date.parse(body.chargeState?.lastUpdated ?? ''), state: body.chargeState ?? {}, isOnline: body.isOnline };
}

/** Waits until the API shows values newer than `afterMs`. */
const freshAfter = (hub: RunningHub, afterMs: number) =>
  until('values newer than the last', async () => {
    const now = await shown(hub);
    return now.stampMs > afterMs && now.state['stateOfCharge'] !== undefined ? now : undefined;
  });

function onDisk(dataDir: string): { stampMs: number | null; state: Record<string, unknown> | null; integrity: string } {
  const db = new Database(join(dataDir, 'hub.db'), { readonly: true });
  try {
    const row = db.prepare('SELECT last_updated, state_json FROM devices WHERE id = ?').get(BATTERY) as { last_updated: number | null; state_json: string | null };
    const integrity = db.pragma('integrity_check', { simple: true }) as string;
    return { stampMs: row.last_updated, state: row.state_json === null ? null : JSON.parse(row.state_json), integrity };
  } finally {
    db.close();
  }
}

test('a clean stop writes the latest values; the restarted hub shows them with their own lastUpdated', async (t) => {
  const { sim, dataDir, env } = await setup(t);
  const hub = await startHubProcess(env);
  t.after(() => hub.kill());
  const first = await freshAfter(hub, 0);
  const last = await freshAfter(hub, first.stampMs);
  const code = await hub.kill('SIGTERM');
  const disk = onDisk(dataDir);
  assert.equal(code, 0, 'the hub stopped cleanly');
  assert.equal(disk.integrity, 'ok');
  assert.ok(disk.stampMs! >= last.stampMs, 'the values shown last (or newer) are on disk');

  // Its values may not have changed since the first read (lastUpdated then moves in memory only):
  // the clean stop writes the time they were last measured all the same.
  // The device is gone when the hub comes back: what it shows is what was written, as measured.
  await sim.close();
  const again = await startHubProcess(env);
  t.after(() => again.kill());
  const after = await shown(again);
  assert.equal(after.stampMs, disk.stampMs, 'lastUpdated is the time the values were measured, not the restart');
  assert.deepEqual(after.state, { ...disk.state });
  await again.kill('SIGTERM');
});

test('a clean stop writes the household\'s 5 minutes under way; the restarted hub shows the point', async (t) => {
  const { sim, dataDir, env } = await setup(t);
  const hub = await startHubProcess(env);
  t.after(() => hub.kill());
  const shownLast = await freshAfter(hub, 0);
  await hub.kill('SIGTERM');
  const db = new Database(join(dataDir, 'hub.db'), { readonly: true });
  const rows = db.prepare('SELECT user_id AS userId, battery_soc AS soc FROM household_points').all() as { userId: string; soc: number | null }[];
  db.close();
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.userId, 'household-1');
  assert.equal(typeof rows[0]!.soc, 'number');

  await sim.close();
  const again = await startHubProcess(env);
  t.after(() => again.kill());
  const series = (await (await fetch(`${again.url}/v1.0.0/users/household-1/household/series`, { headers: { 'X-API-KEY': KEY } })).json()) as { points: { batteryStateOfCharge?: number }[] };
  assert.equal(series.points.length, 1);
  assert.equal(series.points[0]!.batteryStateOfCharge, rows[0]!.soc);
  assert.ok(shownLast.state['stateOfCharge'] !== undefined);
  await again.kill('SIGTERM');
});

test('a SIGKILL loses at most one interval of telemetry and leaves the database intact', async (t) => {
  const { dataDir, env } = await setup(t);
  const hub = await startHubProcess(env);
  t.after(() => hub.kill());
  // What the API showed, and when: polled for three intervals past the first value.
  const observed: { atMs: number; stampMs: number }[] = [];
  const first = await freshAfter(hub, 0);
  const endAt = Date.now() + 3 * INTERVAL_S * 1000 + 2000;
  while (Date.now() < endAt) {
    const now = await shown(hub);
    observed.push({ atMs: Date.now(), stampMs: now.stampMs });
    await new Promise((resolve) => setImmediate(resolve));
  }
  const killedAt = Date.now();
  await hub.kill('SIGKILL');
  const disk = onDisk(dataDir);
  assert.equal(disk.integrity, 'ok');
  // Lost may be what changed in the last interval, plus the poll being read and a writer flush (1 s
  // each): what the API showed before that is on disk.
  const due = observed.filter((o) => o.atMs <= killedAt - (INTERVAL_S + 2) * 1000).at(-1)!;
  assert.ok(due.stampMs > first.stampMs || due.stampMs === first.stampMs);
  assert.ok(disk.stampMs! >= due.stampMs, `the values shown ${killedAt - due.atMs} ms before the kill are not on disk`);
  assert.ok(disk.state !== null && disk.state['stateOfCharge'] !== undefined);
});
