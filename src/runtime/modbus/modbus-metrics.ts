// What Modbus polling tells /metrics and the health check: poll latency and errors, the devices
// polled, and whether polling makes progress.
import type { HealthMonitor } from '../observability/health.ts';
import type { MetricsRegistry } from '../observability/metrics.ts';
import type { ModbusRuntime } from './modbus-runtime.ts';
import type { PollResult } from './modbus-poller.ts';

/** Polling that completed nothing (answer or failure) for this long is stalled. */
const POLL_STALL_MS = 120_000;

/** `monoNow` reads the monotonic clock: progress is a duration, and the wall clock steps. */
export function watchModbus(modbus: ModbusRuntime, metrics: MetricsRegistry, health: HealthMonitor, monoNow: () => number): void {
  const latency = metrics.histogram('hub_poll_duration_seconds', 'Modbus poll duration, by outcome', [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]);
  const errors = metrics.counter('hub_poll_errors_total', 'Modbus polls that failed');
  let lastPollAt = monoNow();
  modbus.scheduler.on('polled', (result: PollResult) => {
    lastPollAt = monoNow();
    if (result.ms !== undefined) latency.observe(result.ms / 1000, { result: result.ok ? 'ok' : 'error' });
    if (!result.ok) errors.inc();
  });
  metrics.gauge('hub_polled_devices', 'Devices the Modbus poller drives', () => modbus.scheduler.deviceCount);
  health.watch({
    stalled: (monoMs) => modbus.scheduler.deviceCount > 0 && monoMs - lastPollAt > POLL_STALL_MS
      ? `no Modbus poll completed for ${Math.round((monoMs - lastPollAt) / 1000)} s` : null,
  });
}
