// Publishes the hub's events on its broker as JSON, one topic per device kind and event type:
// `<prefix>/<kind>/<type>`, e.g. `home-energy-hub/events/charger/update`. Nothing is retained (a
// retained event would be replayed to every new subscriber as if it had just happened), and nothing
// is queued while the broker is away: events are news, and old news is counted, not sent late.
import type { DeviceRecord } from '../../domain/device.ts';
import { formatTimestamp } from '../../domain/time.ts';
import * as present from '../present.ts';
import type { HubEvent, HubEvents } from './hub-events.ts';

export interface EventSink {
  publish(topic: string, payload: string, qos: 0 | 1, retain?: boolean): boolean;
}

export class EventPublisher {
  published = 0;
  dropped = 0;
  private off: (() => void) | undefined;

  constructor(private readonly events: HubEvents, private readonly sink: EventSink, readonly topicPrefix: string) {}

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
    const ok = this.sink.publish(this.topicOf(event), JSON.stringify(eventBody(event)), 1, false);
    if (ok) this.published++;
    else this.dropped++;
  }
}

/** The JSON of an event: what happened, when, to what, and the resource as the API shows it. */
export function eventBody(event: HubEvent): Record<string, unknown> {
  const timestamp = formatTimestamp(event.atMs);
  if (event.type === 'command') {
    const command = event.command;
    return { event: 'command', kind: command.deviceKind, deviceId: command.deviceId, userId: command.userId, timestamp, data: present.command(command) };
  }
  const device = event.device;
  return {
    event: event.type, kind: device.kind, deviceId: device.id, userId: device.userId, timestamp,
    data: event.type === 'delete' ? { id: device.id } : deviceData(device),
  };
}

/** The detail shape where the API has one; otherwise the list item's fields with the staticData. */
function deviceData(device: DeviceRecord): Record<string, unknown> {
  switch (device.kind) {
    case 'battery': return present.batteryDetail(device);
    case 'charger': return present.chargerDetail(device);
    case 'pvInverter': return present.pvInverterDetail(device);
    case 'tariff': return present.tariffDetail(device);
    default: {
      const out: Record<string, unknown> = {
        id: device.id, userId: device.userId, vendor: device.vendor, name: device.name ?? undefined, model: device.model ?? undefined,
        isOnline: device.isOnline, lastUpdated: device.lastUpdatedMs === null ? undefined : formatTimestamp(device.lastUpdatedMs),
      };
      if (device.kind === 'hvac' && device.hvacType) out['type'] = device.hvacType;
      return JSON.parse(JSON.stringify(out));
    }
  }
}
