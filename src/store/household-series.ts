// The household_points table (migrations 008 and 014): each user's 5-minute points of the last 48 hours. They
// are read from memory: the table (pruned to 48 hours as it is written) is loaded once at start and only written, in batches (persist(),
// with the devices' telemetry), so the curves cost the card a few pages per telemetry interval and
// a restart keeps them. Points not yet written are lost at a power cut, as the telemetry is.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.ts';

/** One 5-minute point of a household: means over the 5 minutes (kW), levels at their end. */
export interface HouseholdPoint {
  startMs: number;
  pvKw: number | null;
  homeKw: number | null;
  gridKw: number | null;
  batteryKw: number | null;
  /** Into the cars (chargers, and cars no charger serves); null in points from before migration 014. */
  carKw: number | null;
  batterySoc: number | null;
  price: number | null;
}

export const POINT_MS = 5 * 60_000;
/** Points are kept for 48 hours. */
export const SERIES_WINDOW_MS = 48 * 60 * 60_000;

export class HouseholdSeriesRepository {
  /** When true, points wait in memory for persist(); else each is written when added. */
  hold = false;
  private readonly points = new Map<string, HouseholdPoint[]>();
  private pending: { userId: string; point: HouseholdPoint }[] = [];
  private readonly put: Statement;
  private readonly prune: Statement;
  /** Rows before this go at the next write: from a trusted clock only (add()). */
  private keepFromMs: number | undefined;

  constructor(private readonly db: Db) {
    this.put = db.prepare(`INSERT OR REPLACE INTO household_points (user_id, start_at, pv_kw, home_kw, grid_kw, battery_kw, car_kw, battery_soc, price)
      VALUES (@userId, @startMs, @pvKw, @homeKw, @gridKw, @batteryKw, @carKw, @batterySoc, @price)`);
    // Never a user's newest point: a step of the clock does not empty a curve.
    this.prune = db.prepare(`DELETE FROM household_points WHERE start_at < @keepFromMs
      AND start_at < (SELECT max(start_at) FROM household_points newest WHERE newest.user_id = household_points.user_id)`);
    const rows = db.prepare(`SELECT user_id AS userId, start_at AS startMs, pv_kw AS pvKw, home_kw AS homeKw, grid_kw AS gridKw,
      battery_kw AS batteryKw, car_kw AS carKw, battery_soc AS batterySoc, price FROM household_points ORDER BY start_at`)
      .all() as (HouseholdPoint & { userId: string })[];
    for (const { userId, ...point } of rows) this.listOf(userId).push(point);
  }

  /**
   * Adds (or replaces) a user's point, in order of time: a point later than it (stored before the
   * clock went back) does not keep it out, and the curve goes on. With `keepFromMs` (the trusted
   * clock's now minus 48 hours) older points are forgotten; never the newest one, and nothing at
   * all without it: a clock known to be wrong prunes nothing.
   */
  add(userId: string, point: HouseholdPoint, keepFromMs?: number): void {
    const list = this.listOf(userId);
    let at = list.length;
    while (at > 0 && list[at - 1]!.startMs > point.startMs) at--;
    if (at > 0 && list[at - 1]!.startMs === point.startMs) list[at - 1] = point;
    else list.splice(at, 0, point);
    if (keepFromMs !== undefined) {
      let drop = 0;
      while (drop < list.length - 1 && list[drop]!.startMs < keepFromMs) drop++;
      if (drop > 0) list.splice(0, drop);
      this.keepFromMs = Math.max(this.keepFromMs ?? keepFromMs, keepFromMs);
    }
    this.pending.push({ userId, point });
    if (!this.hold) this.persist();
  }

  /** A user's points from `fromMs` on, oldest first. */
  read(userId: string, fromMs: number): readonly HouseholdPoint[] {
    const list = this.points.get(userId) ?? [];
    let first = 0;
    while (first < list.length && list[first]!.startMs < fromMs) first++;
    return list.slice(first);
  }

  /** How many points wait to be written. */
  get pendingCount(): number {
    return this.pending.length;
  }

  /** Writes the waiting points and forgets rows past 48 hours (of a trusted clock), in one transaction; a refused write keeps them. */
  persist(): number {
    if (this.pending.length === 0) return 0;
    const batch = this.pending;
    const keepFromMs = this.keepFromMs;
    this.db.transaction(() => {
      for (const { userId, point } of batch) this.put.run({ userId, ...point });
      if (keepFromMs !== undefined) this.prune.run({ keepFromMs });
    })();
    this.pending = [];
    return batch.length;
  }

  private listOf(userId: string): HouseholdPoint[] {
    let list = this.points.get(userId);
    if (!list) this.points.set(userId, (list = []));
    return list;
  }
}
