// The tariff_prices and meter_hours tables (migration 006): prices as a tariff's source published
// them, and a grid meter's import counter at each hour's start. Both are small: a price row per
// change (at most one a quarter hour, 48 hours kept) and those published ahead (replaced by each
// newer curve, at most the source's slots), a counter row per meter and hour.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.ts';

export interface PriceRow {
  startMs: number;
  totalPrice: number;
}

export interface MeterHour {
  hourMs: number;
  importKwh: number;
  /** Read after a step of the wall clock: the hour ending here is not known (left out). */
  clockStep?: boolean;
}

export class TariffLedgerRepository {
  private readonly putPrice: Statement;
  private readonly priceAtTime: Statement<[string, number]>;
  private readonly pricesAfter: Statement<[string, number]>;
  private readonly dropAhead: Statement<[string, number]>;
  private readonly replaceAheadRows: (tariffId: string, afterMs: number, rows: readonly PriceRow[]) => void;
  private readonly pricesFrom: Statement;
  private readonly prunePrices: Statement;
  private readonly putHour: Statement;
  private readonly hoursOf: Statement;
  private readonly countHours: Statement<[string]>;
  private readonly pruneHours: Statement;
  private readonly forgetPrices: Statement<[string]>;
  private readonly forgetHours: Statement<[string]>;

  constructor(db: Db) {
    this.putPrice = db.prepare('INSERT OR REPLACE INTO tariff_prices (tariff_id, start_at, total_price) VALUES (?, ?, ?)');
    this.priceAtTime = db.prepare('SELECT start_at AS startMs, total_price AS totalPrice FROM tariff_prices WHERE tariff_id = ? AND start_at <= ? ORDER BY start_at DESC LIMIT 1');
    this.pricesAfter = db.prepare('SELECT start_at AS startMs, total_price AS totalPrice FROM tariff_prices WHERE tariff_id = ? AND start_at > ? ORDER BY start_at');
    this.dropAhead = db.prepare('DELETE FROM tariff_prices WHERE tariff_id = ? AND start_at > ?');
    this.replaceAheadRows = db.transaction((tariffId: string, afterMs: number, rows: readonly PriceRow[]) => {
      this.dropAhead.run(tariffId, afterMs);
      for (const row of rows) this.putPrice.run(tariffId, row.startMs, row.totalPrice);
    });
    // The price in force at `from` (the last one starting before it) and every later one.
    this.pricesFrom = db.prepare(`SELECT start_at AS startMs, total_price AS totalPrice FROM tariff_prices
      WHERE tariff_id = @id AND start_at >= coalesce((SELECT max(start_at) FROM tariff_prices WHERE tariff_id = @id AND start_at <= @from), @from)
      ORDER BY start_at`);
    this.prunePrices = db.prepare(`DELETE FROM tariff_prices WHERE tariff_id = @id
      AND start_at < (SELECT max(start_at) FROM tariff_prices WHERE tariff_id = @id AND start_at <= @before)`);
    // A row added before the meter's newest one is one the clock came back to: marked as after a step.
    this.putHour = db.prepare(`INSERT OR IGNORE INTO meter_hours (meter_id, hour_at, import_kwh, clock_step)
      VALUES (@id, @hourMs, @importKwh, @clockStep OR EXISTS (SELECT 1 FROM meter_hours WHERE meter_id = @id AND hour_at > @hourMs))`);
    this.hoursOf = db.prepare(`SELECT hour_at AS hourMs, import_kwh AS importKwh, clock_step AS clockStep FROM meter_hours WHERE meter_id = @id
      ORDER BY hour_at DESC LIMIT @limit OFFSET @offset`);
    this.countHours = db.prepare('SELECT count(*) AS n FROM meter_hours WHERE meter_id = ?');
    this.pruneHours = db.prepare('DELETE FROM meter_hours WHERE meter_id = ? AND hour_at < ?');
    this.forgetPrices = db.prepare('DELETE FROM tariff_prices WHERE tariff_id = ?');
    this.forgetHours = db.prepare('DELETE FROM meter_hours WHERE meter_id = ?');
  }

  /** The price in force at `atMs`: the last one starting then or before. */
  priceAt(tariffId: string, atMs: number): PriceRow | undefined {
    return this.priceAtTime.get(tariffId, atMs) as PriceRow | undefined;
  }

  /** The prices starting after `afterMs`, oldest first. */
  ahead(tariffId: string, afterMs: number): PriceRow[] {
    return this.pricesAfter.all(tariffId, afterMs) as PriceRow[];
  }

  /** The prices starting after `afterMs` become `rows` (each starting after it), in one transaction. */
  replaceAhead(tariffId: string, afterMs: number, rows: readonly PriceRow[]): void {
    this.replaceAheadRows(tariffId, afterMs, rows);
  }

  /** Records a price in force from `startMs`, and forgets those no longer in force before `keepFromMs`. */
  recordPrice(tariffId: string, startMs: number, totalPrice: number, keepFromMs: number): void {
    this.putPrice.run(tariffId, startMs, totalPrice);
    this.prunePrices.run({ id: tariffId, before: keepFromMs });
  }

  /** The price in force at `fromMs` and every later one, oldest first. */
  prices(tariffId: string, fromMs: number): PriceRow[] {
    return this.pricesFrom.all({ id: tariffId, from: fromMs }) as PriceRow[];
  }

  /**
   * A meter's counter at an hour's start: the first reading in that hour stands. True when new.
   * `clockStep`: the first reading since the wall clock stepped (the hour before it is not known).
   */
  recordHour(meterId: string, hourMs: number, importKwh: number, keepFromMs: number, clockStep = false): boolean {
    const added = this.putHour.run({ id: meterId, hourMs, importKwh, clockStep: clockStep ? 1 : 0 }).changes > 0;
    if (added) this.pruneHours.run(meterId, keepFromMs);
    return added;
  }

  /** A meter's hourly counters, newest first. */
  hours(meterId: string, limit: number, offset: number): MeterHour[] {
    return (this.hoursOf.all({ id: meterId, limit, offset }) as (Omit<MeterHour, 'clockStep'> & { clockStep: number })[])
      .map(({ clockStep, ...hour }) => (clockStep ? { ...hour, clockStep: true } : hour));
  }

  hourCount(meterId: string): number {
    return (this.countHours.get(meterId) as { n: number }).n;
  }

  /** A deleted device's rows. */
  forget(deviceId: string): void {
    this.forgetPrices.run(deviceId);
    this.forgetHours.run(deviceId);
  }
}
