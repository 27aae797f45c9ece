// What the shared runtime tells /metrics: the broker connection, the events sent, the commands in
// progress, the steps of the wall clock. Wired by the daemon; each family reports its own (modbus/modbus-metrics.ts,
// http/http-metrics.ts) through its RunningFamily.
import type { MetricsRegistry } from './metrics.ts';
import type { BrokerLink } from '../../transport/broker-link.ts';
import type { EventPublisher } from '../events/event-publisher.ts';
import type { CommandWorker } from '../commands/command-worker.ts';
import type { ClockWatch } from '../clock/clock-watch.ts';

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

export function watchClock(clockWatch: Pick<ClockWatch, 'stepsTotal'>, metrics: MetricsRegistry): void {
  metrics.counterOf('hub_clock_steps_total', 'Steps of the wall clock (NTP setting it, forward or back) the hub noticed since start', () => clockWatch.stepsTotal);
}
