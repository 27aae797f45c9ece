// When this hub last had an answer from each device, as it saw it: the time of the last update a
// driver wrote (the state writer's `update` events). A device's stored lastUpdated may be imported
// or written by another process, so the household page's "no answer since" uses this time alone,
// and says nothing of a time for a device it has not heard from since it started.
import type { HubEvents } from '../events/hub-events.ts';

export class DeviceSightings {
  private readonly seen = new Map<string, number>();
  private off: (() => void) | undefined;

  constructor(private readonly events: HubEvents) {}

  start(): void {
    this.off = this.events.on((event) => {
      if (event.type === 'update') this.seen.set(event.device.id, event.atMs);
      else if (event.type === 'delete') this.seen.delete(event.device.id);
    });
  }

  stop(): void {
    this.off?.();
    this.off = undefined;
  }

  /** Epoch ms of the last answer this process saw from the device; undefined when none. */
  seenAtMs(deviceId: string): number | undefined {
    return this.seen.get(deviceId);
  }
}
