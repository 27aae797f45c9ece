// Publishes the hub's events on its broker as JSON, one topic per device kind and event type:
// `<prefix>/<kind>/<type>`, e.g. `home-energy-hub/events/charger/update`. Nothing is retained (a
// retained event would be replayed to every new subscriber as if it had just happened), and nothing
// is queued while the broker is away: events are news, and old news is counted, not sent late.
import type { DeviceRecord } from '../../domain/device.ts';
import { formatTimestamp } from '../../domain/time.ts';
import * as present from '../values/present.ts';
import type { HubEvent, HubEvents } from './hub-events.ts';

export interface EventSink {
  publish(topic: string, payload: string, qos: 0 | 1, retain?: boolean): boolean;
}

export class EventPublisher {
  published = 0;
  dropped = 0;
  private off: (() => void) | undefined;

  /** `offersOf` tells what a device's driver can do (an HVAC unit's modes in its detail). */
  constructor(private readonly events: HubEvents, private readonly sink: EventSink, readonly topicPrefix: string, private readonly offersOf?: present.OffersOf) {}

  start(): void {
    this.off = this.events.on((event) => this.send(event));
  }

  stop(): void {
    this.off?.();
    this.off = undefined;
  }

  topicOf(event: HubEvent): string {
    const kind = event.type === 'command' ? event.command.deviceKind : event.device.kind;
    return `${this.topicPrefix}/${kind}/${event.type}`;
  }

  private send(event: HubEvent): void {
    this.publish(this.topicOf(event), eventBody(event, this.offersOf));
    // A schedule the unit read back is its new schedule: told as the origin's schedules.update.
    if (event.type === 'command' && event.command.type === 'SET_SCHEDULE' && event.command.state === 'EXECUTED') {
      const command = event.command;
      const data = { id: command.deviceId, userId: command.userId, timeZone: 'UTC', schedules: (command.payload as { schedules?: unknown[] } | null)?.schedules ?? [] };
      this.publish(`${this.topicPrefix}/${command.deviceKind}/schedules.update`, {
        event: 'schedules.update', kind: command.deviceKind, deviceId: command.deviceId, userId: command.userId, timestamp: formatTimestamp(event.atMs), data,
      });
    }
  }

  private publish(topic: string, body: Record<string, unknown>): void {
    const ok = this.sink.publish(topic, JSON.stringify(body), 1, false);
    if (ok) this.published++;
    else this.dropped++;
  }
}

/** The JSON of an event: what happened, when, to what, and the resource as the API shows it. */
export function eventBody(event: HubEvent, offersOf?: present.OffersOf): Record<string, unknown> {
  const timestamp = formatTimestamp(event.atMs);
  if (event.type === 'command') {
    const command = event.command;
    return { event: 'command', kind: command.deviceKind, deviceId: command.deviceId, userId: command.userId, timestamp, data: present.command(command) };
  }
  const device = event.device;
  const head = { event: event.type, kind: device.kind, deviceId: device.id, userId: device.userId, timestamp };
  if (event.type === 'price.update') return { ...head, data: priceData(device, event.prices) };
  // Every message carries the device as its detail shows it (the origin's "full device data model").
  return { ...head, data: event.type === 'delete' ? { id: device.id } : present.detail(device, offersOf) };
}

/** The origin's TariffPriceResponse: `{id, userId, locationId?, prices}`. */
function priceData(tariff: DeviceRecord, prices: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = { id: tariff.id, userId: tariff.userId };
  if (tariff.locationId !== null) out['locationId'] = tariff.locationId;
  out['prices'] = prices;
  return out;
}
