// Notices devices that appear or disappear without the API seeing it (an import or `hub devices
// add|remove` from another process, pairing) and tells them as `connect` and `delete` events. Who is
// known lives in the store (device-membership.ts, a TEMP table), and the comparison runs only when
// something may have changed: another process wrote to the database, or the number of devices moved.
// A quiet hub allocates nothing here.
import type { DeviceRecord } from '../../domain/device.ts';
import type { Clock } from '../../domain/time.ts';
import type { Store } from '../../store/store.ts';
import type { HubEvents } from './hub-events.ts';

export class DeviceWatcher {
  private timer: NodeJS.Timeout | undefined;
  private seenExternalWrites = 0;

  constructor(private readonly store: Store, private readonly events: HubEvents, private readonly clock: Clock, private readonly intervalMs = 5000) {}

  start(): void {
    this.store.sync();
    this.seenExternalWrites = this.store.externalWriteCount;
    this.disclaimUnreached();
    this.store.membership.startFromStored();
    this.timer = setInterval(() => this.check(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A device added in this process: told at once. */
  added(device: DeviceRecord): void {
    if (!this.store.membership.note(device)) return;
    this.events.emit({ type: 'connect', device, atMs: this.clock.now() });
  }

  /** A device deleted in this process (the record as it was): told at once. */
  deleted(device: DeviceRecord): void {
    this.store.membership.forget(device.id);
    this.events.emit({ type: 'delete', device, atMs: this.clock.now() });
  }

  /**
   * A running hub shows online only what a driver of its own reached (decisions §1: isOnline is
   * "the driver reached the device on its last poll or command"). A device no driver reaches keeps
   * its imported state and lastUpdated (§3: imported state stands until a driver reports something
   * newer), but the import's isOnline: true is not repeated as the hub's word, forever.
   */
  private disclaimUnreached(): void {
    const atMs = this.clock.now();
    const { devices } = this.store;
    const unreached = devices.onlineWithoutDriver();
    if (unreached.length === 0) return;
    devices.setOffline(unreached);
    for (const id of unreached) {
      const device = devices.get(id);
      if (device) this.events.emit({ type: 'offline', device, atMs });
    }
  }

  check(): void {
    const { store } = this;
    store.sync();
    if (store.externalWriteCount === this.seenExternalWrites && store.devices.count() === store.membership.size) return;
    this.seenExternalWrites = store.externalWriteCount;
    this.disclaimUnreached();
    const { appeared, gone } = store.membership.changes();
    const atMs = this.clock.now();
    for (const id of appeared) {
      const device = store.devices.get(id);
      if (device) this.events.emit({ type: 'connect', device, atMs });
    }
    // Deleted elsewhere: who it was is all that is left to tell.
    for (const who of gone) this.events.emit({ type: 'delete', device: who as DeviceRecord, atMs });
  }
}
