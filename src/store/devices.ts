// The devices table: static data, latest state and how each device is reached.
//
// Telemetry is held in memory (live) and written to the table on an interval, not at every poll: a
// gateway's SD card wears out with writes, and a hub polling every second would write all day. What
// a reader sees is always the latest (get() and list() merge it in); what is on disk is at most one
// interval behind. A change of reachability or of charging state is written at once (lists filter
// on those columns), and so is a device's first state. persistLive() writes the rest: the daemon
// calls it on its interval, at a clean stop and when a device goes offline or comes back.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.ts';
import { CHARGER_BINDING, fold, type DeviceRecord, type DriverBinding } from '../domain/device.ts';
import { OCPP_BINDING } from '../domain/ocpp-binding.ts';
import type { IdentityOf } from '../domain/binding-identity.ts';
import type { DeviceKind, HvacType, SortField, SortOrder } from '../domain/vocabulary.ts';

export interface DeviceFilter {
  kind: DeviceKind;
  /** User lists: exactly this owner. */
  ownerId?: string;
  uuid?: string;
  /** Substring filters, matched case-insensitively with `%` and `_` taken literally. */
  userId?: string;
  name?: string;
  model?: string;
  isOnline?: boolean;
  vendor?: string;
  lastUpdatedFromMs?: number;
  lastUpdatedToMs?: number;
  chargingState?: string;
  hvacType?: HvacType;
  /** Vehicles: a substring of the VIN (the installer's, else the one its binding reaches the car by). */
  vin?: string;
}

export interface PageRequest {
  sortField: SortField;
  sortOrder: SortOrder;
  page: number;
  size: number;
}

/** The first 50, for the hub's own look at a household's few devices of a kind (its chargers, its cars). */
export const FIRST_PAGE: PageRequest = { page: 0, size: 50, sortField: 'VENDOR', sortOrder: 'ASC' };

export interface Page<T> {
  items: T[];
  total: number;
}

const SORT_COLUMN: Record<SortField, string> = {
  USER_ID: 'user_id',
  VENDOR: 'vendor',
  IS_ONLINE: 'is_online',
  LAST_UPDATED: 'last_updated',
};

/**
 * A whole device as read, in RECORD_COLUMNS order. Such reads come as arrays (better-sqlite3's raw
 * mode): building an object of many named columns for each row was a tenth of a detail read's CPU.
 */
type RecordRow = [
  id: string, kind: DeviceKind, user_id: string, vendor: string, name: string | null, model: string | null,
  is_online: number, last_updated: number | null, location_id: string | null, hvac_type: HvacType | null,
  static_json: string, state_json: string | null, driver_json: string | null, created_at: number,
];
const RECORD_COLUMNS = 'id, kind, user_id, vendor, name, model, is_online, last_updated, location_id, hvac_type, '
  + 'static_json, state_json, driver_json, created_at';

/** A device's lastUpdated, live or as written. */
const LIVE_STAMP = 'coalesce((SELECT s.last_updated FROM temp.live_stamp s WHERE s.id = devices.id), last_updated)';

const MAX_CACHED_QUERIES = 512;
const MAX_REMEMBERED_COUNTS = 512;
/** Records kept by get(): a household has a few dozen devices, a large site a few hundred. */
const MAX_REMEMBERED_RECORDS = 256;

/** Telemetry newer than the table's row: what get() and list() show instead. */
interface LiveState {
  state: Record<string, unknown> | null;
  isOnline: boolean;
  lastUpdatedMs: number | null;
  /** Only the stamp moved (a read confirmed the values): shown, never written for itself (decisions §4). */
  confirmedOnly?: true;
}

/** What the table holds of a device's telemetry, compared with to decide what must be written now. */
type PersistedRow = [is_online: number, charging_state: string | null, has_state: number];

export class DeviceRepository {
  /** False: every state change is written at once (the telemetry interval is 0). */
  holdTelemetry = false;
  private readonly live = new Map<string, LiveState>();
  private readonly persisted: Statement<[string]>;
  private readonly setStamp: Statement;
  private readonly clearStamp: Statement<[string]>;
  private readonly byId: Statement<[string]>;
  private readonly upsert: Statement;
  private readonly remove: Statement<[string]>;
  private readonly tombstone: Statement;
  private readonly untombstone: Statement<[string]>;
  private readonly isTombstoned: Statement<[string]>;
  private readonly tombstonedAddress: Statement<[string]>;
  private readonly tombstonedOfKind: Statement<[string], string>;
  private readonly writeState: Statement;
  private readonly writeOnline: Statement;
  private readonly writeStatic: Statement;
  private readonly writeDriver: Statement;
  private readonly listDriven: Statement<[]>;
  private readonly listIds: Statement<[]>;
  private readonly listAll: Statement<[]>;
  private readonly countAll: Statement<[]>;
  private readonly countKinds: Statement<[]>;
  private readonly onlineUnreached: Statement<[string]>;
  private readonly queries = new Map<string, { page: Statement; count: Statement }>();
  /** List totals (see total()): those filtered on state columns apart, as a state write changes only them. */
  private readonly counts = new Map<string, number>();
  private readonly stateCounts = new Map<string, number>();
  /** Records as get() last read them, frozen; forgotten by every write to the device (see get()). */
  private readonly records = new Map<string, DeviceRecord>();

  constructor(private readonly db: Db) {
    this.byId = db.prepare(`SELECT ${RECORD_COLUMNS} FROM devices WHERE id = ?`).raw();
    this.upsert = db.prepare(`
      INSERT INTO devices (id, kind, user_id, vendor, name, model, is_online, last_updated, location_id, hvac_type,
        charging_state, user_id_fold, name_fold, model_fold, static_json, state_json, driver_json, created_at)
      VALUES (@id, @kind, @user_id, @vendor, @name, @model, @is_online, @last_updated, @location_id, @hvac_type,
        @charging_state, @user_id_fold, @name_fold, @model_fold, @static_json, @state_json, @driver_json, @created_at)
      ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, user_id = excluded.user_id, vendor = excluded.vendor,
        name = excluded.name, model = excluded.model, is_online = excluded.is_online, last_updated = excluded.last_updated,
        location_id = excluded.location_id, hvac_type = excluded.hvac_type, charging_state = excluded.charging_state,
        user_id_fold = excluded.user_id_fold, name_fold = excluded.name_fold, model_fold = excluded.model_fold,
        static_json = excluded.static_json, state_json = excluded.state_json, driver_json = excluded.driver_json`);
    this.remove = db.prepare('DELETE FROM devices WHERE id = ?');
    this.tombstone = db.prepare(
      'INSERT OR REPLACE INTO deleted_devices (id, kind, address, deleted_at) VALUES (?, ?, ?, ?)');
    this.untombstone = db.prepare('DELETE FROM deleted_devices WHERE id = ?');
    this.isTombstoned = db.prepare('SELECT 1 FROM deleted_devices WHERE id = ?');
    this.tombstonedAddress = db.prepare('SELECT 1 FROM deleted_devices WHERE address = ?');
    this.tombstonedOfKind = db.prepare<[string], string>('SELECT address FROM deleted_devices WHERE kind = ? AND address IS NOT NULL').pluck();
    this.writeState = db.prepare(`UPDATE devices SET state_json = @state_json, charging_state = @charging_state,
      is_online = @is_online, last_updated = @last_updated WHERE id = @id`);
    this.writeOnline = db.prepare('UPDATE devices SET is_online = ? WHERE id = ? AND is_online <> ?');
    this.writeStatic = db.prepare('UPDATE devices SET model = @model, model_fold = @model_fold, static_json = @static_json WHERE id = @id');
    this.writeDriver = db.prepare('UPDATE devices SET driver_json = @driver_json WHERE id = @id');
    this.listAll = db.prepare(`SELECT ${RECORD_COLUMNS} FROM devices ORDER BY kind, created_at, id`).raw();
    this.listDriven = db.prepare(`SELECT ${RECORD_COLUMNS} FROM devices WHERE driver_json IS NOT NULL ORDER BY created_at, id`).raw();
    this.listIds = db.prepare('SELECT id, kind, user_id AS userId FROM devices');
    this.countAll = db.prepare('SELECT COUNT(*) AS n FROM devices');
    this.onlineUnreached = db.prepare(`SELECT id FROM devices WHERE is_online = 1
      AND (driver_json IS NULL OR json_extract(driver_json, '$.type') = ?)`).pluck();
    this.countKinds = db.prepare('SELECT kind, is_online, COUNT(*) AS n FROM devices GROUP BY kind, is_online');
    this.persisted = db.prepare('SELECT is_online, charging_state, state_json IS NOT NULL FROM devices WHERE id = ?').raw();
    // The stamps of live telemetry, for lists filtered or sorted by lastUpdated: a TEMP table, which
    // lives in memory (temp_store = MEMORY, db.ts) and never reaches the disk.
    db.exec('CREATE TEMP TABLE IF NOT EXISTS live_stamp (id TEXT PRIMARY KEY, last_updated INTEGER)');
    this.setStamp = db.prepare('INSERT OR REPLACE INTO temp.live_stamp (id, last_updated) VALUES (?, ?)');
    this.clearStamp = db.prepare('DELETE FROM temp.live_stamp WHERE id = ?');
  }

  /**
   * The device, as a frozen record. The same record object comes back until the device changes, so
   * a reader may remember what it derived from it (the API keeps the rendered JSON, rendered.ts):
   * reading and parsing the row was most of a detail read's cost, and apps read a device far more
   * often than its poller writes it. Every write through this repository forgets the device's
   * record; writes by another process are caught up with by Store.sync().
   */
  get(id: string): DeviceRecord | undefined {
    const remembered = this.records.get(id);
    if (remembered) return remembered;
    const row = this.byId.get(id) as RecordRow | undefined;
    if (!row) return undefined;
    const record = freezeRecord(this.withLive(toRecord(row)));
    if (this.records.size >= MAX_REMEMBERED_RECORDS) this.records.delete(this.records.keys().next().value!);
    this.records.set(id, record);
    return record;
  }

  /** A device of the given kind, and of the given owner when one is named; otherwise undefined. */
  find(kind: DeviceKind, id: string, ownerId?: string): DeviceRecord | undefined {
    const device = this.get(id);
    if (!device || device.kind !== kind) return undefined;
    if (ownerId !== undefined && device.userId !== ownerId) return undefined;
    return device;
  }

  count(): number {
    return (this.countAll.get() as { n: number }).n;
  }

  /** Device counts by kind and reachability (for metrics). */
  countByKind(): { kind: DeviceKind; isOnline: boolean; count: number }[] {
    return (this.countKinds.all() as { kind: DeviceKind; is_online: number; n: number }[])
      .map((r) => ({ kind: r.kind, isOnline: r.is_online === 1, count: r.n }));
  }

  /** Every device, by kind (for export). */
  all(): DeviceRecord[] {
    return (this.listAll.all() as RecordRow[]).map((row) => this.withLive(toRecord(row)));
  }

  /** Who every device is (the hub command resolves id prefixes with it). */
  identities(): { id: string; kind: DeviceKind; userId: string }[] {
    return this.listIds.all() as { id: string; kind: DeviceKind; userId: string }[];
  }

  /** Every device the hub drives (it has a driver binding), oldest first. */
  driven(): DeviceRecord[] {
    return (this.listDriven.all() as RecordRow[]).map((row) => this.withLive(toRecord(row)));
  }

  /** Inserts or replaces devices in one transaction; a re-added id leaves the deleted list. */
  save(devices: readonly DeviceRecord[]): void {
    this.forgetCounts();
    this.db.transaction(() => {
      for (const device of devices) {
        this.records.delete(device.id);
        this.dropLive(device.id);
        this.upsert.run(toRow(device));
        this.untombstone.run(device.id);
      }
    })();
  }

  /** Removes a device for good and remembers that it was deleted. */
  delete(device: DeviceRecord, nowMs: number): void {
    this.forgetCounts();
    this.records.delete(device.id);
    this.dropLive(device.id);
    this.remove.run(device.id);
    this.tombstone.run(device.id, device.kind, addressOf(device.driver), nowMs);
  }

  wasDeleted(id: string): boolean {
    return this.isTombstoned.get(id) !== undefined;
  }

  wasDeletedAt(driver: DriverBinding): boolean {
    const address = addressOf(driver);
    return address !== null && this.tombstonedAddress.get(address) !== undefined;
  }

  /**
   * Whether a device of this kind deleted before is the one this binding reaches: bound as written,
   * or to the same device by `identityOf` (the drivers' defaults applied: binding-identity.ts).
   */
  wasDeletedAs(kind: DeviceKind, driver: DriverBinding, identityOf: IdentityOf): boolean {
    if (this.wasDeletedAt(driver)) return true;
    const identity = identityOf(kind, driver);
    if (identity === null) return false;
    return this.tombstonedOfKind.all(kind).some((address) => {
      const deleted = bindingOf(address);
      return deleted !== null && identityOf(kind, deleted) === identity;
    });
  }

  /**
   * Fresh state reported by a driver: held live, or written now when it changes what lists filter on
   * (reachability, charging state), is the device's first, or telemetry is not held. Returns false
   * when the device is gone.
   */
  updateState(id: string, state: Record<string, unknown> | null, isOnline: boolean, lastUpdatedMs: number | null): boolean {
    if (this.holdTelemetry) {
      const row = this.persisted.get(id) as PersistedRow | undefined;
      if (!row) {
        this.dropLive(id);
        return false;
      }
      const [persistedOnline, persistedCharging, hasState] = row;
      if (hasState === 1 && persistedOnline === (isOnline ? 1 : 0) && persistedCharging === chargingStateOf(state)) {
        this.live.set(id, { state, isOnline, lastUpdatedMs });
        this.setStamp.run(id, lastUpdatedMs);
        this.records.delete(id);
        this.stateCounts.clear();
        return true;
      }
    }
    return this.writeStateNow(id, state, isOnline, lastUpdatedMs);
  }

  /** How many devices have telemetry newer than the table. */
  get liveCount(): number {
    let count = 0;
    for (const live of this.live.values()) if (!live.confirmedOnly) count++;
    return count;
  }

  /**
   * A read confirmed a device's values at `lastUpdatedMs`: readers see the newer stamp at once (a
   * meter read every 2 s does not show a time from before a clock step), and it reaches the table
   * with the device's next change or at a clean stop (persistLive), never on its own.
   */
  confirmLive(id: string, state: Record<string, unknown> | null, isOnline: boolean, lastUpdatedMs: number): void {
    const held = this.live.get(id);
    this.live.set(id, { state, isOnline, lastUpdatedMs, ...(held && !held.confirmedOnly ? {} : { confirmedOnly: true as const }) });
    this.setStamp.run(id, lastUpdatedMs);
    this.records.delete(id);
  }

  /**
   * Writes all live telemetry to the table, in one transaction; returns how many devices. `atStop`
   * (a clean stop) writes confirmed stamps too: the restarted hub shows when the values were last
   * measured, at the cost of one row per device once, not one per read.
   */
  persistLive(atStop = false): number {
    const batch = [...this.live].filter(([, live]) => atStop || !live.confirmedOnly);
    if (batch.length === 0) return 0;
    this.db.transaction(() => {
      for (const [id, live] of batch) this.writeState.run(stateRow(id, live.state, live.isOnline, live.lastUpdatedMs));
    })();
    // Only once written: a failed transaction keeps them for the next try.
    for (const [id, live] of batch) if (this.live.get(id) === live) this.dropLive(id);
    return batch.length;
  }

  private writeStateNow(id: string, state: Record<string, unknown> | null, isOnline: boolean, lastUpdatedMs: number | null): boolean {
    // Written first: a write the card refuses leaves the live values (and what readers see) as they were.
    const result = this.writeState.run(stateRow(id, state, isOnline, lastUpdatedMs));
    this.records.delete(id);
    this.dropLive(id);
    this.stateCounts.clear();
    return result.changes > 0;
  }

  /**
   * Holds a device's state in memory without writing it: the transaction that wrote it was refused
   * by the storage (full, read-only), so readers see it from here and persistLive() writes it later.
   */
  keepLive(id: string, state: Record<string, unknown> | null, isOnline: boolean, lastUpdatedMs: number | null): void {
    if (lastUpdatedMs === null) return;
    this.live.set(id, { state, isOnline, lastUpdatedMs });
    this.setStamp.run(id, lastUpdatedMs);
    this.records.delete(id);
    this.stateCounts.clear();
  }

  /** Marks a device reachable or not; true when that changed anything. */
  /** A device's model and other static data, as read from the device (its name and vendor stay). */
  updateStatic(id: string, model: string | null, staticData: Record<string, unknown>): boolean {
    this.records.delete(id);
    const result = this.writeStatic.run({ id, model, model_fold: model === null ? null : fold(model), static_json: JSON.stringify(staticData) });
    return result.changes > 0;
  }

  /** A new binding for a device (the installer accepted a device's new certificate); the runtime picks it up on its next resync. */
  updateDriver(id: string, driver: DriverBinding): boolean {
    this.records.delete(id);
    return this.writeDriver.run({ id, driver_json: JSON.stringify(driver) }).changes > 0;
  }

  /**
   * Devices shown online that no driver of the hub reaches (no binding, or a vehicle's binding to the
   * charger it charges at): their isOnline is an import's word, which a running hub does not repeat.
   */
  onlineWithoutDriver(): string[] {
    return this.onlineUnreached.all(CHARGER_BINDING) as string[];
  }

  /** Marks devices offline in one transaction whatever their number (10,000 commits took 4 s at start). */
  setOffline(ids: readonly string[]): void {
    this.db.transaction(() => {
      for (const id of ids) this.setOnline(id, false);
    })();
  }

  setOnline(id: string, isOnline: boolean): boolean {
    // Going offline or coming back writes the device's latest telemetry with it.
    const live = this.live.get(id);
    if (live) return this.writeStateNow(id, live.state, isOnline, live.lastUpdatedMs);
    const flag = isOnline ? 1 : 0;
    const changed = this.writeOnline.run(flag, id, flag).changes > 0;
    if (changed) {
      this.records.delete(id);
      this.stateCounts.clear();
    }
    return changed;
  }

  /**
   * A page of devices and the total. The page query reads only ids, through the index that serves
   * the sort (turning ten rows of nine columns into JS values cost more than finding them), and the
   * records come from get(), which mostly remembers them.
   */
  list(filter: DeviceFilter, page: PageRequest): Page<DeviceRecord> {
    const where: string[] = ['kind = @kind'];
    const params: Record<string, unknown> = { kind: filter.kind };
    const add = (clause: string, name: string, value: unknown) => {
      where.push(clause);
      params[name] = value;
    };
    if (filter.ownerId !== undefined) add('user_id = @ownerId', 'ownerId', filter.ownerId);
    if (filter.uuid !== undefined) add('id = @uuid', 'uuid', filter.uuid);
    if (filter.userId !== undefined) add('instr(user_id_fold, @userId) > 0', 'userId', fold(filter.userId));
    if (filter.name !== undefined) add('instr(name_fold, @name) > 0', 'name', fold(filter.name));
    if (filter.model !== undefined) add('instr(model_fold, @model) > 0', 'model', fold(filter.model));
    if (filter.isOnline !== undefined) add('is_online = @isOnline', 'isOnline', filter.isOnline ? 1 : 0);
    if (filter.vendor !== undefined) add('vendor = @vendor', 'vendor', filter.vendor);
    // Live telemetry's stamps are newer than the column: lists on lastUpdated read them (only then,
    // since the expression cannot use the column's index).
    const stamp = this.live.size > 0 ? LIVE_STAMP : 'last_updated';
    if (filter.lastUpdatedFromMs !== undefined) add(`${stamp} >= @from`, 'from', filter.lastUpdatedFromMs);
    if (filter.lastUpdatedToMs !== undefined) add(`${stamp} <= @to`, 'to', filter.lastUpdatedToMs);
    if (filter.chargingState !== undefined) add('charging_state = @chargingState', 'chargingState', filter.chargingState);
    if (filter.hvacType !== undefined) add('hvac_type = @hvacType', 'hvacType', filter.hvacType);
    if (filter.vin !== undefined) {
      add("instr(lower(coalesce(json_extract(static_json, '$.vin'), json_extract(driver_json, '$.vin'))), @vin) > 0", 'vin', fold(filter.vin));
    }

    const clause = where.join(' AND ');
    const statements = this.statementsFor(clause, page.sortField, page.sortOrder, page.size, stamp);
    const onState = filter.isOnline !== undefined || filter.chargingState !== undefined
      || filter.lastUpdatedFromMs !== undefined || filter.lastUpdatedToMs !== undefined;
    const total = this.total(statements.count, `${clause}|${JSON.stringify(params)}`, params, onState);
    const ids = statements.page.all({ ...params, offset: page.page * page.size }) as string[];
    const items: DeviceRecord[] = [];
    for (const id of ids) {
      const device = this.get(id);
      if (device) items.push(device); // else deleted by another process since the page was read
    }
    return { total, items };
  }

  private withLive(record: DeviceRecord): DeviceRecord {
    const live = this.live.get(record.id);
    if (!live) return record;
    return { ...record, state: live.state, isOnline: live.isOnline, lastUpdatedMs: live.lastUpdatedMs };
  }

  private dropLive(id: string): void {
    if (this.live.delete(id)) this.clearStamp.run(id);
  }

  /** Forgets everything remembered: another process (the hub CLI) wrote to the database. */
  forgetAll(): void {
    this.records.clear();
    this.forgetCounts();
  }

  /**
   * A list's total, remembered until a write could change it: counting a kind's rows was half of a
   * list page's cost, and the total of an unfiltered list changes only when devices come or go.
   * Writes through this repository forget what they may change (a state write only the totals
   * filtered on state columns); writes by another process are caught up with by Store.sync().
   */
  private total(count: Statement, key: string, params: Record<string, unknown>, onState: boolean): number {
    const counts = onState ? this.stateCounts : this.counts;
    let total = counts.get(key);
    if (total === undefined) {
      total = (count.get(params) as { n: number }).n;
      if (counts.size >= MAX_REMEMBERED_COUNTS) counts.clear();
      counts.set(key, total);
    }
    return total;
  }

  private forgetCounts(): void {
    this.counts.clear();
    this.stateCounts.clear();
  }

  /**
   * The page size is written into the statement: SQLite's planner reads a bound LIMIT, so it would
   * prepare the statement anew on every run (a tenth of a list page's CPU); OFFSET it does not read.
   */
  private statementsFor(where: string, sortField: SortField, sortOrder: SortOrder, size: number, stamp: string) {
    const key = `${where}|${sortField}|${sortOrder}|${size}|${stamp}`;
    let cached = this.queries.get(key);
    if (!cached) {
      const column = sortField === 'LAST_UPDATED' ? stamp : SORT_COLUMN[sortField];
      const order = `${column} ${sortOrder}, id ${sortOrder}`;
      cached = {
        page: this.db.prepare(`SELECT id FROM devices WHERE ${where} ORDER BY ${order} LIMIT ${Math.trunc(size)} OFFSET @offset`).pluck(),
        count: this.db.prepare(`SELECT COUNT(*) AS n FROM devices WHERE ${where}`),
      };
      if (this.queries.size >= MAX_CACHED_QUERIES) this.queries.delete(this.queries.keys().next().value!);
      this.queries.set(key, cached);
    }
    return cached;
  }
}

function addressOf(driver: DriverBinding | null): string | null {
  // A charger binding is no address of the vehicle: other cars charge at that charger too, and
  // deleting one must not keep the others out.
  if (!driver || driver.type === CHARGER_BINDING) return null;
  // An OCPP charger is where its identity is; its other settings (accepted idTags…) may change.
  if (driver.type === OCPP_BINDING) return `${OCPP_BINDING}:${String(driver['chargePointId'])}`;
  const { type, ...settings } = driver;
  const keys = Object.keys(settings).sort();
  return `${type}:${JSON.stringify(settings, keys)}`;
}

/** The binding a tombstone's address was written from (addressOf); null for one it cannot read. */
function bindingOf(address: string): DriverBinding | null {
  const colon = address.indexOf(':');
  if (colon <= 0) return null;
  const type = address.slice(0, colon);
  if (type === OCPP_BINDING) return { type, chargePointId: address.slice(colon + 1) };
  try {
    const settings = JSON.parse(address.slice(colon + 1)) as unknown;
    return typeof settings === 'object' && settings !== null && !Array.isArray(settings) ? { ...settings, type } : null;
  } catch {
    return null;
  }
}

function stateRow(id: string, state: Record<string, unknown> | null, isOnline: boolean, lastUpdatedMs: number | null) {
  return { id, state_json: state === null ? null : JSON.stringify(state), charging_state: chargingStateOf(state), is_online: isOnline ? 1 : 0, last_updated: lastUpdatedMs };
}

function chargingStateOf(state: Record<string, unknown> | null): string | null {
  const value = state?.['chargingState'];
  return typeof value === 'string' ? value : null;
}

function toRow(device: DeviceRecord) {
  return {
    id: device.id,
    kind: device.kind,
    user_id: device.userId,
    vendor: device.vendor,
    name: device.name,
    model: device.model,
    is_online: device.isOnline ? 1 : 0,
    last_updated: device.lastUpdatedMs,
    location_id: device.locationId,
    hvac_type: device.hvacType,
    charging_state: device.kind === 'battery' ? chargingStateOf(device.state) : null,
    user_id_fold: fold(device.userId),
    name_fold: device.name === null ? null : fold(device.name),
    model_fold: device.model === null ? null : fold(device.model),
    static_json: JSON.stringify(device.staticData),
    state_json: device.state === null ? null : JSON.stringify(device.state),
    driver_json: device.driver === null ? null : JSON.stringify(device.driver),
    created_at: device.createdAtMs,
  };
}

function toRecord(row: RecordRow): DeviceRecord {
  const [id, kind, userId, vendor, name, model, isOnline, lastUpdatedMs, locationId, hvacType, staticJson, stateJson, driverJson, createdAtMs] = row;
  return {
    id,
    kind,
    userId,
    vendor,
    name,
    model,
    isOnline: isOnline === 1,
    lastUpdatedMs,
    locationId,
    hvacType,
    staticData: JSON.parse(staticJson) as Record<string, unknown>,
    state: stateJson === null ? null : (JSON.parse(stateJson) as Record<string, unknown>),
    driver: driverJson === null ? null : (JSON.parse(driverJson) as DriverBinding),
    createdAtMs,
  };
}

/** Freezes a record and the objects in it, so that one handed out by get() cannot be changed. */
function freezeRecord(record: DeviceRecord): DeviceRecord {
  deepFreeze(record.staticData);
  if (record.state) deepFreeze(record.state);
  if (record.driver) deepFreeze(record.driver);
  return Object.freeze(record);
}

function deepFreeze(value: object): void {
  for (const inner of Object.values(value)) if (inner !== null && typeof inner === 'object') deepFreeze(inner as object);
  Object.freeze(value);
}
