// GET /health (no key, up or down only) and GET /metrics (Prometheus text, behind a key).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon } from '../../src/daemon.ts';
import { ConfigSchema } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { seedDemo } from '../../src/demo/site.ts';
import { HealthMonitor } from '../../src/runtime/observability/health.ts';
import { Store } from '../../src/store/store.ts';

const KEY = 'ops-test-key-0123456789abcdefgh';

async function startDaemon(t: { after: (fn: () => Promise<void>) => void }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-ops-'));
  const daemon = new Daemon({
    config: ConfigSchema.parse({ dataDir, http: { port: 0 }, apiKey: KEY }),
    log: silentLogger(),
    beforeListen: (store) => seedDemo(store, Date.now()),
  });
  await daemon.start();
  t.after(async () => {
    await daemon.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return Object.assign(daemon, { dataDir });
}

test('/health says up without a key and reveals nothing else', async (t) => {
  const daemon = await startDaemon(t);
  const res = await fetch(`${daemon.url}/health`);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { status: 'up' });
  assert.equal(res.headers.get('cache-control'), 'no-store');
});

test('/metrics is hub-wide: a key scoped to one household gets 403 FORBIDDEN, the partner\'s key the metrics', async (t) => {
  const daemon = await startDaemon(t);
  // Made as `hub keys create` makes them, beside the running daemon.
  const cli = Store.open(join(daemon.dataDir, 'hub.db'));
  const scoped = cli.apiKeys.create('kitchen-tablet', Date.now(), { userId: 'demo-household', readOnly: false }).key;
  const readOnly = cli.apiKeys.create('wall-display', Date.now(), { userId: 'demo-household', readOnly: true }).key;
  cli.close();
  for (const key of [scoped, readOnly]) {
    const res = await fetch(`${daemon.url}/metrics`, { headers: { 'x-api-key': key } });
    assert.equal(res.status, 403);
    const body = await res.json() as { errorCode: string; message: string; id: string };
    assert.equal(body.errorCode, 'FORBIDDEN');
    assert.match(body.message, /scoped to one household/);
    assert.match(body.id, /^[0-9a-f-]{36}$/);
    // The contract stays readable to it: it holds no household's data.
    assert.equal((await fetch(`${daemon.url}/v1.0.0/openapi.json`, { headers: { 'x-api-key': key } })).status, 200);
  }
  assert.equal((await fetch(`${daemon.url}/metrics`, { headers: { 'x-api-key': KEY } })).status, 200);
});

test('health is down when the database cannot take a write lock or a poller stalls', (t) => {
  const store = Store.open(':memory:');
  t.after(() => store.close());
  const health = new HealthMonitor(store.db);
  assert.deepEqual(health.check(0), { healthy: true, problems: [], restartWorthy: [], warnings: [] });
  let stalled: string | null = 'poller stalled for 90 s';
  health.watch({ stalled: () => stalled });
  assert.deepEqual(health.check(0), { healthy: false, problems: ['poller stalled for 90 s'], restartWorthy: ['poller stalled for 90 s'], warnings: [] });
  stalled = null;
  store.db.exec('BEGIN IMMEDIATE');
  store.db.pragma('busy_timeout = 0');
  const other = Store.open(':memory:');
  other.close();
  // A transaction left open on the same connection makes BEGIN fail: the check must notice.
  const report = health.check(0);
  store.db.exec('ROLLBACK');
  assert.equal(report.healthy, false);
  assert.match(report.problems[0]!, /database not writable/);
});

test('/metrics needs a key and reports commands, devices, memory and requests', async (t) => {
  const daemon = await startDaemon(t);
  assert.equal((await fetch(`${daemon.url}/metrics`)).status, 401);
  await fetch(`${daemon.url}/v1.0.0/vehicles/5cab7f6d-cf9a-4ecd-8a8d-6f7a8b9cad01/commands/charging-stop`, { method: 'POST', headers: { 'x-api-key': KEY } });
  const res = await fetch(`${daemon.url}/metrics`, { headers: { 'x-api-key': KEY } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  assert.match(text, /^# TYPE hub_commands gauge$/m);
  // The demo vehicle has no driver: the worker fails the command at once, with a reason.
  assert.match(text, /^hub_commands\{state="FAILED"\} 1$/m);
  assert.match(text, /^# TYPE hub_poll_duration_seconds histogram$/m);
  assert.match(text, /^hub_polled_devices \d+$/m);
  assert.match(text, /^hub_commands_in_progress 0$/m);
  // The demo records are imported without drivers here: a running hub does not count them online.
  assert.match(text, /^hub_devices\{kind="battery",online="false"\} 2$/m);
  assert.match(text, /^hub_process_resident_memory_bytes \d+$/m);
  // Wear of the SD card, as the kernel counts it for this process (Linux).
  assert.match(text, /^hub_disk_written_bytes \d+$/m);
  assert.match(text, /^hub_disk_written_bytes_per_hour \d+$/m);
  assert.match(text, /^hub_telemetry_unsaved_devices \d+$/m);
  assert.match(text, /^hub_event_loop_lag_seconds [\d.e-]+$/m);
  assert.match(text, /^hub_http_requests_total\{method="POST",status="2xx"\} 1$/m);
  assert.match(text, /^hub_http_requests_total\{method="GET",status="4xx"\} 1$/m);
});
