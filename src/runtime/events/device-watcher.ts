// Notices devices that appear or disappear without the API seeing it (an import or `hub devices
// add|remove` from another process, pairing) and tells them as `connect` and `delete` events. The
// set of ids is compared every few seconds, but only when something may have changed it: another
// process wrote to the database, or the number of devices moved. A quiet hub allocates nothing here
// (a snapshot of 10,000 identities every few seconds was most of an idle hub's garbage).
import type { DeviceRecord } from '../../domain/device.ts';
import type { Clock } from '../../domain/time.ts';
import type { Store } from '../../store/store.ts';
import type { HubEvents } from './hub-events.ts';

export class DeviceWatcher {
  private known = new Map<string, { kind: DeviceRecord['kind']; userId: string }>();
  private timer: NodeJS.Timeout | undefined;
  private seenExternalWrites = 0;

  constructor(private readonly store: Store, private readonly events: HubEvents, private readonly clock: Clock, private readonly intervalMs = 5000) {}

  start(): void {
    this.store.sync();
    this.seenExternalWrites = this.store.externalWriteCount;
    this.known = this.snapshot();
    this.timer = setInterval(() => this.check(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A device added in this process: told at once. */
  added(device: DeviceRecord): void {
    if (this.known.has(device.id)) return;
    this.known.set(device.id, { kind: device.kind, userId: device.userId });
    this.events.emit({ type: 'connect', device, atMs: this.clock.now() });
  }

  /** A device deleted in this process (the record as it was): told at once. */
  deleted(device: DeviceRecord): void {
    this.known.delete(device.id);
    this.events.emit({ type: 'delete', device, atMs: this.clock.now() });
  }

  check(): void {
    this.store.sync();
    if (this.store.externalWriteCount === this.seenExternalWrites && this.store.devices.count() === this.known.size) return;
    this.seenExternalWrites = this.store.externalWriteCount;
    const now = this.snapshot();
    const atMs = this.clock.now();
    for (const id of now.keys()) {
      if (this.known.has(id)) continue;
      const device = this.store.devices.get(id);
      if (device) this.events.emit({ type: 'connect', device, atMs });
    }
    for (const [id, who] of this.known) {
      if (now.has(id)) continue;
      // Deleted elsewhere: who it was is all that is left to tell.
      this.events.emit({ type: 'delete', device: { id, kind: who.kind, userId: who.userId } as DeviceRecord, atMs });
    }
    this.known = now;
  }

  private snapshot(): Map<string, { kind: DeviceRecord['kind']; userId: string }> {
    return new Map(this.store.devices.identities().map((d) => [d.id, { kind: d.kind, userId: d.userId }]));
  }
}
