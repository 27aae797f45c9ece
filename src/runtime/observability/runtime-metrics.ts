// What the runtime tells /metrics and the health check: poll latency and errors, whether polling
// makes progress, the broker connection and the events sent. Wired by the daemon.
import type { HealthMonitor } from './health.ts';
import type { MetricsRegistry } from './metrics.ts';
import type { ModbusRuntime } from '../modbus/modbus-runtime.ts';
import type { PollResult } from '../modbus/modbus-poller.ts';
import type { BrokerLink } from '../../transport/broker-link.ts';
import type { EventPublisher } from '../events/event-publisher.ts';
import type { CommandWorker } from '../commands/command-worker.ts';
import type { HttpRuntime } from '../http/http-runtime.ts';

/** Polling that completed nothing (answer or failure) for this long is stalled. */
const POLL_STALL_MS = 120_000;

export function watchModbus(modbus: ModbusRuntime, metrics: MetricsRegistry, health: HealthMonitor, now: () => number): void {
  const latency = metrics.histogram('hub_poll_duration_seconds', 'Modbus poll duration, by outcome', [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]);
  const errors = metrics.counter('hub_poll_errors_total', 'Modbus polls that failed');
  let lastPollAt = now();
  modbus.scheduler.on('polled', (result: PollResult) => {
    lastPollAt = now();
    if (result.ms !== undefined) latency.observe(result.ms / 1000, { result: result.ok ? 'ok' : 'error' });
    if (!result.ok) errors.inc();
  });
  metrics.gauge('hub_polled_devices', 'Devices the Modbus poller drives', () => modbus.scheduler.deviceCount);
  health.watch({
    stalled: (nowMs) => modbus.scheduler.deviceCount > 0 && nowMs - lastPollAt > POLL_STALL_MS
      ? `no Modbus poll completed for ${Math.round((nowMs - lastPollAt) / 1000)} s` : null,
  });
}

export function watchHttp(http: HttpRuntime, metrics: MetricsRegistry): void {
  metrics.gauge('hub_http_devices', 'Devices the HTTP driver polls', () => http.deviceCount);
  metrics.gauge('hub_http_polls', 'HTTP polls that read the device, since start', () => http.polls);
  metrics.gauge('hub_http_poll_errors', 'HTTP polls that failed (no answer, refused credentials, rate limits), since start', () => http.pollErrors);
}

export function watchMqtt(broker: BrokerLink, publisher: EventPublisher | undefined, metrics: MetricsRegistry): void {
  metrics.gauge('hub_mqtt_connected', 'Whether the hub is connected to its MQTT broker (1) or not (0)', () => (broker.connected ? 1 : 0));
  if (publisher) {
    metrics.gauge('hub_events_published', 'Events published on the broker since start', () => publisher.published);
    metrics.gauge('hub_events_dropped', 'Events not published because the broker was away, since start', () => publisher.dropped);
  }
}

export function watchCommands(worker: CommandWorker, metrics: MetricsRegistry): void {
  metrics.gauge('hub_commands_in_progress', 'Commands waiting for or being carried out by the worker', () => worker.busy);
}
