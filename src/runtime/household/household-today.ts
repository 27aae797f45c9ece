// A household's day so far, for the household page: energy from the 5-minute points the series API
// serves (store.householdSeries, the same points), the cost from the hourly consumption the tariff API
// serves (tariffConsumption) and the price now and the cheapest hours ahead from its prices
// (tariffPrices). Read from the same functions as the API, so the page's figures are the API's.
import type { DeviceRecord } from '../../domain/device.ts';
import { formatTimestamp } from '../../domain/time.ts';
import type { Store } from '../../store/store.ts';
import { POINT_MS, type HouseholdPoint } from '../../store/household-series.ts';
import { tariffConsumption, tariffPrices, type PriceJson } from './tariff-ledger.ts';

const HOUR_MS = 3_600_000;
/** kWh in a 5-minute mean of 1 kW. */
const POINT_HOURS = POINT_MS / HOUR_MS;
/** The cheapest hours ahead the page names. */
const CHEAPEST = 3;
/** A day has at most 25 hours (the autumn clock change): one page of consumption covers it. */
const DAY_HOURS = 25;

export interface HouseholdToday {
  /** Where "today" starts: the hub's local midnight. */
  since: string;
  /** kWh since midnight from the 5-minute points (the 5 minutes under way are not in them). */
  energy: {
    pvKwh?: number;
    gridImportKwh?: number;
    gridExportKwh?: number;
    batteryChargeKwh?: number;
    batteryDischargeKwh?: number;
    /** Into the cars; unknown while today has only points from before the hub kept the car's power. */
    carKwh?: number;
    /** The house itself, the car left out (PV + grid = battery + car + house). */
    homeKwh?: number;
  };
  /** Share of the house's and the car's use not drawn from the grid, %; unknown without grid and house figures. */
  selfSufficiency?: number;
  tariff?: {
    id: string;
    name?: string;
    currency?: string;
    /** The price in force now, per kWh. */
    priceNow?: number;
    /** The cheapest whole hours ahead (hoursAhead), by time. */
    cheapest: PriceJson[];
    /** Sum of today's hours of the consumption endpoint (their `consumption` and `cost`). */
    importKwh: number;
    cost: number;
    /** Hours of today that have a cost. */
    hours: number;
  };
}

/** The hub's local midnight before `nowMs`. */
export function localMidnight(nowMs: number): number {
  const day = new Date(nowMs);
  day.setHours(0, 0, 0, 0);
  return day.getTime();
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Sums a field of the points into kWh, its positive part or its negative part. */
function energyOf(points: readonly HouseholdPoint[], field: 'pvKw' | 'homeKw' | 'gridKw' | 'batteryKw' | 'carKw', sign: 1 | -1): number | undefined {
  let sum = 0;
  let known = false;
  for (const point of points) {
    const value = point[field];
    if (value === null) continue;
    known = true;
    sum += Math.max(0, sign * value) * POINT_HOURS;
  }
  return known ? round(sum, 2) : undefined;
}

/** The hub's local hour that `ms` falls in. */
function localHour(ms: number): number {
  const hour = new Date(ms);
  hour.setMinutes(0, 0, 0);
  return hour.getTime();
}

/**
 * The whole hours ahead with their price: the time-weighted mean of the prices in force within the
 * hour (each until the next, the last until the hour's end). Day-ahead prices come hourly or, since
 * EPEX went to 15-minute products (October 2025; Tibber passes them on), by the quarter: "the
 * cheapest hours" are then hours, not three quarters of the same one. An hour counts once it begins
 * after now and a price starts in it.
 */
export function hoursAhead(prices: readonly PriceJson[], nowMs: number): PriceJson[] {
  const slots = prices.map((p) => ({ startMs: Date.parse(p.startDate), price: p.totalPrice })).filter((p) => p.startMs > nowMs);
  const hours = new Map<number, { weighted: number; ms: number }>();
  slots.forEach((slot, i) => {
    const hourMs = localHour(slot.startMs);
    if (hourMs <= nowMs) return;
    const hourEnd = localHour(hourMs + 90 * 60_000); // the next local hour, whatever the offset's minutes
    const endMs = Math.min(slots[i + 1]?.startMs ?? hourEnd, hourEnd);
    const hour = hours.get(hourMs) ?? { weighted: 0, ms: 0 };
    hour.weighted += slot.price * (endMs - slot.startMs);
    hour.ms += endMs - slot.startMs;
    hours.set(hourMs, hour);
  });
  return [...hours].filter(([, h]) => h.ms > 0)
    .map(([hourMs, h]) => ({ startDate: formatTimestamp(hourMs), totalPrice: round(h.weighted / h.ms, 5) }));
}

/** The user's tariff the page shows: the first online one by name, else the first. */
function tariffOf(store: Store, userId: string): DeviceRecord | undefined {
  const tariffs = store.devices.all().filter((d) => d.userId === userId && d.kind === 'tariff')
    .sort((a, b) => Number(b.isOnline) - Number(a.isOnline) || (a.name ?? '').localeCompare(b.name ?? ''));
  return tariffs[0];
}

export function householdToday(store: Store, userId: string, nowMs: number): HouseholdToday {
  const sinceMs = localMidnight(nowMs);
  const points = store.householdSeries.read(userId, sinceMs);
  const energy: HouseholdToday['energy'] = {};
  const put = (key: keyof HouseholdToday['energy'], value: number | undefined) => {
    if (value !== undefined) energy[key] = value;
  };
  put('pvKwh', energyOf(points, 'pvKw', 1));
  put('gridImportKwh', energyOf(points, 'gridKw', 1));
  put('gridExportKwh', energyOf(points, 'gridKw', -1));
  put('batteryChargeKwh', energyOf(points, 'batteryKw', 1));
  put('batteryDischargeKwh', energyOf(points, 'batteryKw', -1));
  put('carKwh', energyOf(points, 'carKw', 1));
  put('homeKwh', energyOf(points, 'homeKw', 1));
  const today: HouseholdToday = { since: formatTimestamp(sinceMs), energy };
  // The grid's import feeds the car as well as the house: the share is of both, else an evening's
  // charge from the grid would count against the house alone.
  const usedKwh = energy.homeKwh === undefined ? undefined : energy.homeKwh + (energy.carKwh ?? 0);
  if (usedKwh !== undefined && usedKwh > 0 && energy.gridImportKwh !== undefined) {
    today.selfSufficiency = Math.round(Math.min(100, Math.max(0, (1 - energy.gridImportKwh / usedKwh) * 100)));
  }
  const tariff = tariffOf(store, userId);
  if (tariff) {
    const prices = tariffPrices(store, tariff.id, nowMs);
    const now = prices.filter((p) => Date.parse(p.startDate) <= nowMs).at(-1);
    const cheapest = [...hoursAhead(prices, nowMs)].sort((a, b) => a.totalPrice - b.totalPrice).slice(0, CHEAPEST)
      .sort((a, b) => Date.parse(a.startDate) - Date.parse(b.startDate));
    // Today's hours of the consumption endpoint, summed as a partner would sum them.
    const hours = tariffConsumption(store, tariff, 0, DAY_HOURS).content.filter((h) => Date.parse(h.startDate) >= sinceMs);
    const costs = hours.filter((h) => h.cost !== undefined);
    const currency = tariff.staticData['currency'];
    today.tariff = {
      id: tariff.id,
      ...(tariff.name ? { name: tariff.name } : {}),
      ...(typeof currency === 'string' ? { currency } : {}),
      ...(now ? { priceNow: now.totalPrice } : {}),
      cheapest,
      importKwh: round(hours.reduce((sum, h) => sum + h.consumption, 0), 3),
      cost: round(costs.reduce((sum, h) => sum + h.cost!, 0), 4),
      hours: costs.length,
    };
  }
  return today;
}
