// What the household page shows, from the hub's own records: the devices with their binding, and
// the live stream. Both need the key in the X-API-KEY header, as the API does: the page reads the
// stream with fetch (not EventSource, which cannot send a header), so the key never travels in a URL
// that could land in a log.
import type { DeviceRecord } from '../../domain/device.ts';
import { describeBinding } from '../../domain/binding-identity.ts';
import type { HubEvent, HubEvents } from '../../runtime/events/hub-events.ts';
import type { HouseholdFlows } from '../../runtime/household/household-flows.ts';
import { command, detailJson } from '../../runtime/values/present.ts';
import type { Store } from '../../store/store.ts';
import type { LiveStream } from './live-stream.ts';
import type { LiveSlots } from './live-slots.ts';

/** What the page's stream listens to; the daemon passes its events and the series' flows. */
export interface HouseholdSource {
  events: HubEvents;
  flowsOf(userId: string): HouseholdFlows;
  /** The places for live streams and their limits; else the defaults (live-slots.ts). Tests and the bench pass their own to look at the streams. */
  slots?: LiveSlots;
  /** When this hub last had an answer from the device (DeviceSightings); undefined when none since it started. */
  seenAtOf?(deviceId: string): number | undefined;
}

/** The most recent commands shown per device. */
const RECENT_COMMANDS = 5;
/** Flows are sent at most this often, however often devices report. */
const FLOWS_EVERY_MS = 1000;
/** A comment line keeps proxies and phones from closing an idle stream. */
const KEEPALIVE_MS = 25_000;

/** A device as the page lists it: the API's detail, its kind, where the hub reaches it, its latest commands. */
export function pageDevice(store: Store, device: DeviceRecord, reasonOf: ReasonOf = () => undefined): Record<string, unknown> {
  const reason = device.isOnline ? undefined : reasonOf(device);
  const commands = store.commands.ofDeviceId(device.id, 'ALL').slice(-RECENT_COMMANDS).reverse().map(command);
  // A car bound to the charger it charges at (through it alone, or besides its own driver): the page shows the two together.
  const chargerId = device.kind === 'vehicle' ? device.driver?.['chargerId'] : undefined;
  return {
    kind: device.kind,
    ...(typeof chargerId === 'string' ? { chargerId } : {}),
    binding: device.driver ? describeBinding(device.driver) : null,
    detail: JSON.parse(detailJson(device)) as unknown,
    commands,
    ...(reason ? { reason } : {}),
  };
}

/**
 * Why an offline device is offline, as the page words it: its driver's own words (Runtime.offlineReason),
 * no driver at all, or no answer (since a time only when this hub saw one: DeviceSightings).
 */
export type PageReason = { code: 'driver'; text: string } | { code: 'noDriver' } | { code: 'noAnswer'; since?: string };
export type ReasonOf = (device: DeviceRecord) => PageReason | undefined;

/** Every device of the user, grouped as the page shows them (by kind, then name). */
export function pageDevices(store: Store, userId: string, reasonOf?: ReasonOf): Record<string, unknown>[] {
  return store.devices.all().filter((d) => d.userId === userId)
    .sort((a, b) => a.kind.localeCompare(b.kind) || (a.name ?? '').localeCompare(b.name ?? ''))
    .map((d) => pageDevice(store, d, reasonOf));
}

/**
 * Fills `stream` (a text/event-stream) with the user's household: `flows` at once and after each
 * change (at most once a second), `device` with a device's new detail, `command` with a command's new
 * state. A client that reads slowly gets the latest of each (live-stream.ts), not every event.
 */
export function followHousehold(store: Store, source: HouseholdSource, userId: string, stream: LiveStream, reasonOf?: ReasonOf): void {
  let flowsTimer: NodeJS.Timeout | undefined;
  const sendFlows = () => {
    flowsTimer = undefined;
    stream.send('flows', 'flows', source.flowsOf(userId));
  };
  const off = source.events.on((event: HubEvent) => {
    if (event.type === 'command') {
      const device = store.devices.get(event.command.deviceId);
      if (device?.userId === userId) stream.send(`command:${event.command.id}`, 'command', { deviceId: device.id, command: command(event.command) });
      return;
    }
    if (event.type === 'price.update' || event.device.userId !== userId) return;
    const id = event.device.id;
    stream.send(`device:${id}`, 'device', event.type === 'delete' ? { id, deleted: true } : pageDevice(store, event.device, reasonOf));
    flowsTimer ??= setTimeout(sendFlows, FLOWS_EVERY_MS);
  });
  const keepalive = setInterval(() => stream.keepalive(), KEEPALIVE_MS);
  stream.whenEnded(() => {
    off();
    clearInterval(keepalive);
    clearTimeout(flowsTimer);
  });
  sendFlows();
}
