// Batches what the drivers report into few SQLite writes. The hub lives on an SD card, so a row is
// written only when something really changed: the state's values (then lastUpdated moves too) or
// the device's reachability. What was last written is kept in memory to compare against, and all
// pending changes go to the store in one transaction per flush. A flush the storage refuses (full,
// read-only) keeps its batch, and readers keep seeing it (devices.ts keepLive); the next flush after
// the card takes writes again writes it. It never throws for a storage fault: it runs from timers
// and event handlers.
import { stampedStaticData, type DeviceRecord } from '../../domain/device.ts';
import { ownMakerModel } from '../../domain/maker.ts';
import { formatTimestamp } from '../../domain/time.ts';
import type { DeviceRepository } from '../../store/devices.ts';
import type { Db } from '../../store/db.ts';
import type { StorageHealth } from '../../store/storage-health.ts';
import type { HubEvents } from '../events/hub-events.ts';

interface Written {
  /** JSON of the state without its lastUpdated stamp: what "changed" is compared on. */
  valuesJson: string;
  state: Record<string, unknown> | null;
  isOnline: boolean;
  lastUpdatedMs: number | null;
}

type Pending = { kind: 'state'; state: Record<string, unknown>; isOnline: boolean; lastUpdatedMs: number } | { kind: 'online'; isOnline: boolean };

export class StateWriter {
  /** Rows written since start; tests and the bench read it. */
  rowsWritten = 0;
  transactions = 0;
  private readonly written = new Map<string, Written>();
  private readonly pending = new Map<string, Pending>();

  /** With `events`, every flushed change is told as an `update` (or `offline`) event. */
  constructor(
    private readonly db: Db,
    private readonly devices: DeviceRepository,
    private readonly events?: HubEvents,
    private readonly storage?: Pick<StorageHealth, 'report'>,
  ) {}

  /** Remembers what the store holds for a device, so the first report is compared with it. */
  track(device: DeviceRecord): void {
    if (this.written.has(device.id)) return;
    this.written.set(device.id, {
      valuesJson: valuesJson(device.state),
      state: device.state,
      isOnline: device.isOnline,
      lastUpdatedMs: device.lastUpdatedMs,
    });
  }

  forget(id: string): void {
    this.written.delete(id);
    this.pending.delete(id);
  }

  /**
   * A successful read. `mapped` are the fields the driver is the authority on: one of them missing
   * from `values` means the device reports it as not implemented, so it is dropped. Other stored
   * fields (imported ones the device has no register for, such as a battery's mode) stay.
   */
  reportValues(id: string, values: Record<string, unknown>, mapped: readonly string[], nowMs: number): void {
    const last = this.latest(id);
    if (!last) return;
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(last.state ?? {})) {
      if (key !== 'lastUpdated' && !mapped.includes(key)) kept[key] = value;
    }
    const next = { ...kept, ...values };
    // Whole seconds, the API's timestamp style; the stamp and the column always agree.
    const stampMs = Math.floor(nowMs / 1000) * 1000;
    // Unchanged values write nothing, except the first time a device is read: a sleeping inverter or
    // a battery at a constant charge must still show when it was measured. The read still confirms
    // them now: lastUpdated moves in memory (devices.confirmLive), and reaches the card with the
    // device's next change (decisions §4), so it never shows a time from before a step of the clock.
    if (valuesJson(next) === last.valuesJson && last.lastUpdatedMs !== null) {
      if (!last.isOnline) this.pending.set(id, { kind: 'online', isOnline: true });
      if (stampMs > (last.lastUpdatedMs ?? 0) || stampMs < last.lastUpdatedMs - 1000) this.confirm(id, last, stampMs);
      return;
    }
    this.pending.set(id, { kind: 'state', state: { lastUpdated: formatTimestamp(stampMs), ...next }, isOnline: true, lastUpdatedMs: stampMs });
  }

  /**
   * Static data read from the device (model, serial, capacity…), when it is first reached and when it
   * comes back: what the device says fills and updates the stored fields, while what the installer
   * wrote that the device cannot know better stays (the name; a model given at import or in the
   * configuration). `staticData.lastUpdated` moves only when something changed. Written at once: it
   * happens once per device and reconnection, not per poll.
   */
  reportStatic(id: string, read: Record<string, unknown>, nowMs: number): boolean {
    const device = this.devices.get(id);
    if (!device) return false;
    const { manufacturer, model: readModel, ...fields } = read;
    const deviceModel = ownMakerModel(manufacturer as string | undefined, readModel as string | undefined, device.vendor);
    const model = device.model ?? deviceModel ?? null;
    const { lastUpdated: _stamp, ...stored } = device.staticData;
    const merged: DeviceRecord = { ...device, model, staticData: { ...stored, ...fields } };
    const staticData = stampedStaticData(merged, device, nowMs);
    if (staticData === device.staticData) return false;
    try {
      return this.devices.updateStatic(id, model, staticData);
    } catch (err) {
      // A card that takes no writes: read again when the device is next reached.
      if (!this.storage?.report(err)) throw err;
      return false;
    }
  }

  /** Reachability alone (a failed read, or an answer with nothing new). */
  reportOnline(id: string, isOnline: boolean): void {
    const last = this.latest(id);
    if (!last || last.isOnline === isOnline) return;
    const pending = this.pending.get(id);
    if (pending?.kind === 'state') pending.isOnline = isOnline;
    else this.pending.set(id, { kind: 'online', isOnline });
  }

  get hasPending(): boolean {
    return this.pending.size > 0;
  }

  /** Writes everything pending in one transaction; returns the ids written. */
  flush(): string[] {
    if (this.pending.size === 0) return [];
    const batch = [...this.pending];
    this.pending.clear();
    const gone: string[] = [];
    try {
      this.db.transaction(() => {
        for (const [id, change] of batch) {
          const ok = change.kind === 'state'
            ? this.devices.updateState(id, change.state, change.isOnline, change.lastUpdatedMs)
            : this.devices.setOnline(id, change.isOnline) || this.devices.get(id) !== undefined;
          if (!ok) gone.push(id);
        }
      })();
    } catch (err) {
      if (!this.storage?.report(err)) throw err;
      this.keep(batch);
      return [];
    }
    this.transactions++;
    for (const [id, change] of batch) {
      if (gone.includes(id)) {
        this.written.delete(id);
        continue;
      }
      this.rowsWritten++;
      const last = this.written.get(id)!;
      if (change.kind === 'state') {
        this.written.set(id, { valuesJson: valuesJson(change.state), state: change.state, isOnline: change.isOnline, lastUpdatedMs: change.lastUpdatedMs });
      } else {
        last.isOnline = change.isOnline;
      }
    }
    const written = batch.filter(([id]) => !gone.includes(id));
    if (this.events) {
      const atMs = Date.now();
      for (const [id, change] of written) {
        const device = this.devices.get(id);
        if (device) this.events.emit({ type: change.isOnline ? 'update' : 'offline', device, atMs });
      }
    }
    return written.map(([id]) => id);
  }

  /** A batch the storage refused goes back to pending, under anything reported since (newer). */
  private keep(batch: [string, Pending][]): void {
    for (const [id, change] of batch) {
      const since = this.pending.get(id);
      if (!since) this.pending.set(id, change);
      else if (since.kind === 'online' && change.kind === 'state') this.pending.set(id, { ...change, isOnline: since.isOnline });
      const latest = this.latest(id);
      if (latest) this.devices.keepLive(id, latest.state, latest.isOnline, latest.lastUpdatedMs);
    }
  }

  /** Moves the stamp of unchanged values, in the batch waiting or in what readers see. */
  private confirm(id: string, last: Written, stampMs: number): void {
    const state = { ...last.state, lastUpdated: formatTimestamp(stampMs) };
    const pending = this.pending.get(id);
    if (pending?.kind === 'state') {
      pending.state = state;
      pending.lastUpdatedMs = stampMs;
      return;
    }
    last.state = state;
    last.lastUpdatedMs = stampMs;
    this.devices.confirmLive(id, state, true, stampMs); // a read answered: the device is reached
  }

  /** The state last written or about to be (what a command confirmation compares with). */
  current(id: string): { state: Record<string, unknown> | null; isOnline: boolean } | undefined {
    return this.latest(id);
  }

  /** What the device will look like once pending changes are written. */
  private latest(id: string): Written | undefined {
    const last = this.written.get(id);
    const pending = this.pending.get(id);
    if (!last || !pending) return last;
    if (pending.kind === 'online') return { ...last, isOnline: pending.isOnline };
    return { valuesJson: valuesJson(pending.state), state: pending.state, isOnline: pending.isOnline, lastUpdatedMs: pending.lastUpdatedMs };
  }
}

/**
 * The values as text to compare, keys in order. Not JSON.stringify's key list: that list is kept at
 * every depth, so a nested value (a tariff's forecast slots, an HVAC's targets) lost the keys that
 * are not also top-level fields, and a change in them was taken for no change.
 */
function valuesJson(state: Record<string, unknown> | null): string {
  if (!state) return '{}';
  const { lastUpdated: _stamp, ...values } = state;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(values).sort()) sorted[key] = values[key];
  return JSON.stringify(sorted);
}
