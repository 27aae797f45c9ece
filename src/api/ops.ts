// Operational endpoints beside the device API: GET /health (no key: up or down, and what is wrong) and
// GET /metrics (Prometheus text, behind a partner's key: a key scoped to one household gets 403).
import { DiskWriteMeter } from '../runtime/observability/disk-writes.ts';
import { Hono } from 'hono';
import { monotonicMs } from '../domain/time.ts';
import type { ApiDeps } from './deps.ts';
import { requirePartnerApiKey } from './auth.ts';
import type { HealthMonitor } from '../runtime/observability/health.ts';
import type { MetricsRegistry } from '../runtime/observability/metrics.ts';

export interface OpsDeps {
  health: HealthMonitor;
  metrics: MetricsRegistry;
}

export function opsRoutes(deps: ApiDeps, ops: OpsDeps): Hono {
  const app = new Hono();
  app.get('/health', (c) => {
    const report = ops.health.check(monotonicMs(deps.clock));
    if (report.restartWorthy.length > 0) deps.log.warn({ problems: report.restartWorthy }, 'health check failed');
    c.header('Cache-Control', 'no-store');
    // What is wrong, in words (storage not writable (full), the free space…); nothing secret.
    const body: Record<string, unknown> = { status: report.healthy ? 'up' : 'down' };
    if (report.problems.length > 0) body['problems'] = report.problems;
    if (report.warnings.length > 0) body['warnings'] = report.warnings;
    // A step of the wall clock is told, not a fault: durations are measured on the monotonic clock.
    if (report.clock) body['clock'] = report.clock;
    return c.json(body, report.healthy ? 200 : 503);
  });
  app.use('/metrics', requirePartnerApiKey(deps, 'the metrics'));
  app.get('/metrics', (c) => c.body(ops.metrics.render(), 200, {
    'Content-Type': 'text/plain; version=0.0.4; charset=utf-8',
    'Cache-Control': 'no-store',
  }));
  return app;
}

/** The hub-wide gauges: commands by state, devices by kind, memory, event-loop lag. */
export function registerHubMetrics(deps: ApiDeps, ops: OpsDeps): void {
  const { metrics } = ops;
  metrics.gauge('hub_commands', 'Commands by state', () =>
    Object.entries(deps.store.commands.countByState()).map(([state, value]) => ({ labels: { state }, value })));
  metrics.gauge('hub_devices', 'Devices by kind and reachability', () =>
    deps.store.devices.countByKind().map((r) => ({ labels: { kind: r.kind, online: String(r.isOnline) }, value: r.count })));
  metrics.gauge('hub_event_loop_lag_seconds', 'Worst event-loop delay since the last health check', () => ops.health.eventLoopLagMs() / 1000);
  metrics.gauge('hub_process_resident_memory_bytes', 'Resident set size', () => process.memoryUsage.rss());
  metrics.gauge('hub_process_heap_used_bytes', 'V8 heap in use', () => process.memoryUsage().heapUsed);
  // Wear of the gateway's SD card or eMMC: what the hub has written to storage (Linux).
  const disk = new DiskWriteMeter();
  if (disk.available) {
    metrics.gauge('hub_disk_written_bytes', 'Bytes the hub process has written to storage since start (/proc/self/io write_bytes)', () => disk.written());
    metrics.gauge('hub_disk_written_bytes_per_hour', 'Bytes written to storage per hour, averaged since start (0 in the first minute)', () => disk.perHour());
  }
  const { storage } = deps.store;
  metrics.gauge('hub_storage_writable', 'Whether the data file system takes writes (1) or is full or read-only (0)', () => (storage.writable ? 1 : 0));
  metrics.gauge('hub_storage_low_space', 'Whether free space on the data file system is below the warning threshold (1) or not (0)', () => (storage.lowOnSpace ? 1 : 0));
  metrics.gauge('hub_storage_free_bytes', 'Free bytes on the data file system', () => storage.space()?.freeBytes ?? 0);
  metrics.counterOf('hub_storage_write_errors_total', 'Writes the storage refused (full, read-only, I/O errors) since start', () => storage.writeErrors);
  metrics.counterOf('hub_storage_recoveries_total', 'Times the storage took writes again after a fault, since start', () => storage.recoveries);
  metrics.gauge('hub_telemetry_unsaved_devices', 'Devices whose latest values are in memory, not yet written to the database', () => deps.store.devices.liveCount);
}
