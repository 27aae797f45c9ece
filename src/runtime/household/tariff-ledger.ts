// Keeps what tariff prices and hourly consumption need, from the devices' updates: each price a
// tariff's source publishes (from the quarter hour it was published in, kept 48 hours), the prices it
// publishes for later (its `forecast` telemetry, each from its slot's start, replaced by each newer
// curve; drivers/mqtt/tariff-topic.ts), and a grid
// meter's import counter at each hour's start (one row per meter and hour: the flash budget of the
// telemetry is kept). Then it works out a tariff's consumption: the household's grid import per hour
// times the price in force (decisions §5).
//
// Dates (issue 33): nothing is recorded while the wall clock is known to be wrong (1970 on a fresh
// image): a price would be in force from 1970 and shown as the current one after the sync. Once the
// clock is set, each tariff's current price is recorded from then. The first counter of a meter after
// a step of the clock is marked (clock_step): the hour ending there spans time the clock did not
// measure, and is left out of the consumption rather than booked multiplied or on the wrong day.
import type { DeviceRecord } from '../../domain/device.ts';
import { formatTimestamp, systemClock, type Clock } from '../../domain/time.ts';
import type { Store } from '../../store/store.ts';
import type { MeterHour, PriceRow } from '../../store/tariff-ledger.ts';
import type { HubEvents } from '../events/hub-events.ts';
import type { ClockWatch } from '../clock/clock-watch.ts';

const QUARTER_MS = 15 * 60_000;
const HOUR_MS = 60 * 60_000;
/** Prices are kept for the last 48 hours (and every later one the source published). */
export const PRICE_WINDOW_MS = 48 * HOUR_MS;
/** Prices published further ahead than this are not taken: no source publishes them (a day-ahead
 * curve reaches at most the end of tomorrow), and a wrong clock or a wrong feed would keep them. */
const AHEAD_MS = 4 * 24 * HOUR_MS;
/** The most slots of a curve taken (4 days of quarter hours; tariff-topic keeps as many). */
const AHEAD_SLOTS = 384;
/** Hourly counters are kept for 400 days: a year of consumption, at 2000 hours a page. */
const HOURS_KEPT_MS = 400 * 24 * HOUR_MS;

export class TariffLedger {
  private off: (() => void) | undefined;
  /** Meters whose next counter is the first since a step of the clock. */
  private readonly stepped = new Set<string>();

  constructor(private readonly store: Store, private readonly events: HubEvents, private readonly clockWatch?: ClockWatch, private readonly clock: Clock = systemClock) {}

  start(): void {
    this.off = this.events.on((event) => {
      if (event.type !== 'update') return;
      if (this.clockWatch && !this.clockWatch.trusted) return;
      if (event.device.kind === 'tariff') this.pricesSeen(event.device, event.atMs);
      else if (event.device.kind === 'meter') this.counterSeen(event.device, event.atMs);
    });
    this.clockWatch?.on('step', this.onStep);
    this.clockWatch?.on('trusted', this.onTrusted);
  }

  stop(): void {
    this.off?.();
    this.off = undefined;
    this.clockWatch?.off('step', this.onStep);
    this.clockWatch?.off('trusted', this.onTrusted);
  }

  private readonly onStep = (): void => {
    for (const meter of this.store.devices.all()) if (meter.kind === 'meter') this.stepped.add(meter.id);
  };

  /** The clock is set: each tariff's price now is in force from now (none was recorded before). */
  private readonly onTrusted = (): void => {
    const nowMs = this.clock.now();
    for (const tariff of this.store.devices.all()) if (tariff.kind === 'tariff') this.pricesSeen(tariff, nowMs);
  };

  /** A tariff's update: the price in force and those published for later; told when either changed. */
  pricesSeen(tariff: DeviceRecord, atMs: number): void {
    const inForce = this.priceSeen(tariff, atMs);
    const ahead = this.forecastSeen(tariff, atMs);
    if (inForce || ahead) this.events.emit({ type: 'price.update', device: tariff, prices: tariffPrices(this.store, tariff.id, atMs), atMs });
  }

  /**
   * A price differing from the one in force is in force from the quarter hour it came in. Compared
   * with the one in force, not the latest row: rows published ahead come later than it.
   */
  private priceSeen(tariff: DeviceRecord, atMs: number): boolean {
    const price = tariff.state?.['pricePerKwh'];
    if (typeof price !== 'number' || !Number.isFinite(price)) return false;
    if (this.store.tariffLedger.priceAt(tariff.id, atMs)?.totalPrice === price) return false;
    this.store.tariffLedger.recordPrice(tariff.id, Math.floor(atMs / QUARTER_MS) * QUARTER_MS, price, atMs - PRICE_WINDOW_MS);
    return true;
  }

  /**
   * The curve the source published (`forecast`: slots of startMs, endMs, pricePerKwh) replaces the
   * prices ahead of now when it differs from them: a slot no longer published disappears, those
   * already begun stay as recorded (the price in force is the source's current price, priceSeen).
   * No `forecast` at all (a feed without a curve, or not heard yet) leaves them as they are.
   */
  private forecastSeen(tariff: DeviceRecord, atMs: number): boolean {
    const forecast = tariff.state?.['forecast'];
    if (!Array.isArray(forecast)) return false;
    const ahead = slotsAhead(forecast, atMs);
    const known = this.store.tariffLedger.ahead(tariff.id, atMs);
    if (known.length === ahead.length && known.every((row, i) => row.startMs === ahead[i]!.startMs && row.totalPrice === ahead[i]!.totalPrice)) return false;
    this.store.tariffLedger.replaceAhead(tariff.id, atMs, ahead);
    return true;
  }

  /** The import counter's first reading in an hour stands for the hour's start. */
  counterSeen(meter: DeviceRecord, atMs: number): void {
    const counter = meter.state?.['energyImported'];
    if (typeof counter !== 'number' || !Number.isFinite(counter)) return;
    const added = this.store.tariffLedger.recordHour(meter.id, Math.floor(atMs / HOUR_MS) * HOUR_MS, counter, atMs - HOURS_KEPT_MS, this.stepped.has(meter.id));
    if (added) this.stepped.delete(meter.id);
  }
}

/**
 * The slots of a published curve that begin after `atMs` (and within AHEAD_MS), each from its
 * start, oldest first; a slot that is not a start before its end with a finite price is left out,
 * and of two with the same start the first stands. The curve is the device's telemetry: untrusted.
 */
export function slotsAhead(forecast: readonly unknown[], atMs: number): PriceRow[] {
  const byStart = new Map<number, number>();
  for (const slot of forecast.slice(0, AHEAD_SLOTS)) {
    if (slot === null || typeof slot !== 'object') continue;
    const { startMs, endMs, pricePerKwh } = slot as Record<string, unknown>;
    if (typeof startMs !== 'number' || typeof endMs !== 'number' || typeof pricePerKwh !== 'number') continue;
    if (!Number.isSafeInteger(startMs) || !(endMs > startMs) || !Number.isFinite(pricePerKwh)) continue;
    if (startMs <= atMs || startMs > atMs + AHEAD_MS || byStart.has(startMs)) continue;
    byStart.set(startMs, pricePerKwh);
  }
  return [...byStart].sort(([a], [b]) => a - b).map(([startMs, totalPrice]) => ({ startMs, totalPrice }));
}

export interface PriceJson {
  startDate: string;
  totalPrice: number;
}

/** A tariff's prices of the last 48 hours and those ahead, oldest first. */
export function tariffPrices(store: Store, tariffId: string, nowMs: number): PriceJson[] {
  return priceList(store.tariffLedger.prices(tariffId, nowMs - PRICE_WINDOW_MS));
}

/** Price rows as the API shows them (the OpenAPI examples render theirs through this too). */
export function priceList(rows: readonly PriceRow[]): PriceJson[] {
  return rows.map((row) => ({ startDate: formatTimestamp(row.startMs), totalPrice: row.totalPrice }));
}

/**
 * The household's grid meter (decisions §5): the meter of the tariff's user whose binding says
 * `role: grid`, else the user's only meter; none otherwise.
 */
export function gridMeterOf(store: Store, userId: string): DeviceRecord | undefined {
  const meters = store.devices.list({ kind: 'meter', ownerId: userId }, { page: 0, size: 100, sortField: 'VENDOR', sortOrder: 'ASC' }).items;
  return meters.find((meter) => meter.driver?.['role'] === 'grid') ?? (meters.length === 1 ? meters[0] : undefined);
}

export interface ConsumptionPage {
  content: { startDate: string; endDate: string; consumption: number; cost?: number }[];
  totalElements: number;
  totalPages: number;
}

/**
 * A page of hourly consumption, newest first: an hour whose start and end counters are both known
 * gives energy = end − start (a counter that went back is a meter swap, one read first after a step
 * of the clock spans time the clock did not measure: that hour is left out) and
 * cost = energy × the time-weighted price of the hour's quarters (consumption taken as even within
 * the hour; the counter is read once an hour). An hour without a known price has no cost.
 */
export function tariffConsumption(store: Store, tariff: DeviceRecord, page: number, size: number): ConsumptionPage {
  const meter = gridMeterOf(store, tariff.userId);
  if (!meter) return { content: [], totalElements: 0, totalPages: 0 };
  // Hours are counted by pairs of consecutive counters; the pages are read over the counters.
  const hours = store.tariffLedger.hours(meter.id, size + 1, page * size);
  const prices = hours.length > 1 ? store.tariffLedger.prices(tariff.id, hours.at(-1)!.hourMs) : [];
  return consumptionPage(hours, prices, store.tariffLedger.hourCount(meter.id), size);
}

/**
 * The page over a meter's hourly counters (newest first, one more than the page's hours), the
 * tariff's prices from the oldest of them on, and the meter's count of counters.
 */
export function consumptionPage(hours: readonly MeterHour[], prices: readonly PriceRow[], counters: number, size: number): ConsumptionPage {
  const content: ConsumptionPage['content'] = [];
  for (let i = 0; i + 1 < hours.length; i++) {
    const end = hours[i]!;
    const start = hours[i + 1]!;
    // Not an hour the counters measure: a gap, a meter swap, or a step of the clock between them.
    if (end.hourMs - start.hourMs !== HOUR_MS || end.importKwh < start.importKwh || end.clockStep) continue;
    const energy = round(end.importKwh - start.importKwh, 3);
    const entry: ConsumptionPage['content'][number] = { startDate: formatTimestamp(start.hourMs), endDate: formatTimestamp(end.hourMs), consumption: energy };
    const price = meanPrice(prices, start.hourMs);
    if (price !== undefined) entry.cost = round(energy * price, 4);
    content.push(entry);
  }
  const total = Math.max(0, counters - 1);
  return { content, totalElements: total, totalPages: Math.ceil(total / size) };
}

/** The mean of the prices in force over the hour's four quarters; undefined when one is unknown. */
function meanPrice(prices: readonly PriceRow[], hourMs: number): number | undefined {
  let sum = 0;
  for (let quarter = 0; quarter < 4; quarter++) {
    const at = hourMs + quarter * QUARTER_MS;
    const inForce = prices.filter((p) => p.startMs <= at).at(-1);
    if (!inForce) return undefined;
    sum += inForce.totalPrice;
  }
  return sum / 4;
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
