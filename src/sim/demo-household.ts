// The demo household as one physical whole (src/sim/household-model.ts): the roof's Fronius, the
// carport's SMA and the garden house's Enphase arrays, the garage's Fronius battery and the cellar's
// Huawei one, the house, and the two chargers (whose draw the MQTT and OCPP sides tell as they
// start). Also what the demo's past and its tariff follow: a day-ahead price curve as German dynamic
// tariffs have it (one price an hour; the simulated evcc republishes the curve of today, and of
// tomorrow from 13:00, and the price in force as each hour begins) and when the cars charged over the last two days.
import { HouseholdModel, type HouseholdReading } from './household-model.ts';

/** A simulated day of the live demo lasts 30 minutes, so the demo shows the sun rise and set. */
export const DEMO_DAY_MS = 30 * 60_000;
export const DEMO_TIME_ZONE = 'Europe/Berlin';
/** The chargers by the names the household knows them. */
export const DRIVEWAY = 'driveway';
export const CARPORT = 'carport';
/** What each charger gives a car: 16 A on three phases (the go-e at 230 V; the Zaptec's meter reads 15.7 A). */
const CHARGE_W = 16 * 230 * 3;

export function createDemoHousehold(now: () => number = Date.now): HouseholdModel {
  return new HouseholdModel({
    arrays: { roof: 9500, carport: 7800, garden: 3900 },
    batteries: {
      garage: { capacityWh: 10_240, maxW: 5100, socPct: 64, minSocPct: 10 },
      cellar: { capacityWh: 5000, maxW: 2500, socPct: 41, minSocPct: 5 },
    },
    chargers: [DRIVEWAY, CARPORT],
    dayLengthMs: DEMO_DAY_MS,
    timeZone: DEMO_TIME_ZONE,
    now,
  });
}

const hourFormat = new Intl.DateTimeFormat('en-GB', { timeZone: DEMO_TIME_ZONE, hour: 'numeric', minute: 'numeric', hourCycle: 'h23', day: 'numeric' });

/** The local hour (with fraction) and day of the month of an instant. */
export function localTime(ms: number): { hour: number; day: number } {
  const parts = hourFormat.formatToParts(ms);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return { hour: part('hour') + part('minute') / 60, day: part('day') };
}

/**
 * The price of the hour `ms` falls in, EUR/kWh with taxes and fees, as a German dynamic tariff has it:
 * cheap at night and at noon (solar), dear in the morning and the evening peaks, a little different
 * each day. Three decimals, as evcc republishes it.
 */
export function dayAheadPrice(ms: number): number {
  const { hour, day } = localTime(ms);
  const h = Math.floor(hour);
  const bump = (centre: number, width: number) => Math.exp(-(((h - centre) / width) ** 2));
  const price = 0.27 + 0.07 * bump(8, 1.5) + 0.11 * bump(19, 2) - 0.06 * bump(13, 2) - 0.03 * bump(3, 2.5) + 0.015 * Math.sin(day * 1.7);
  return Math.round(price * 1000) / 1000;
}

/** When the day-ahead auction's results are out, local time: EPEX SPOT publishes them around
 * 12:45–13:00 CET, and suppliers (Tibber) pass tomorrow's prices on from then. */
export const DAY_AHEAD_PUBLISHED_HOUR = 13;

/**
 * The day-ahead curve a dynamic tariff's API gives at `ms`, as evcc republishes it: one slot an hour
 * from today's local midnight to its end (23 or 25 on the days the clocks change), and tomorrow's
 * once it is past 13:00 local time; each slot's price is dayAheadPrice of its hour.
 */
export function dayAheadCurve(ms: number): { startMs: number; endMs: number; price: number }[] {
  const HOUR = 3_600_000;
  const today = localTime(ms).day;
  // The zone's offsets are whole hours: its midnight is an hour's start.
  let startMs = Math.floor(ms / HOUR) * HOUR;
  while (localTime(startMs - HOUR).day === today) startMs -= HOUR;
  const days = localTime(ms).hour >= DAY_AHEAD_PUBLISHED_HOUR ? 2 : 1;
  const slots: { startMs: number; endMs: number; price: number }[] = [];
  let day = today;
  for (let seen = 1, at = startMs; seen <= days; at += HOUR) {
    if (localTime(at).day !== day) {
      day = localTime(at).day;
      if (++seen > days) break;
    }
    slots.push({ startMs: at, endMs: at + HOUR, price: dayAheadPrice(at) });
  }
  return slots;
}

/** The start of the hour after `ms` (prices change on the hour). */
export function nextHourMs(ms: number): number {
  return Math.floor(ms / 3_600_000) * 3_600_000 + 3_600_000;
}

/** What each charger drew in the demo's past: the Tesla in the evening at home, the VW after work at the carport. */
export function pastChargerDraw(charger: string, atMs: number): number {
  const { hour } = localTime(atMs);
  if (charger === DRIVEWAY) return hour >= 19 && hour < 21.5 ? CHARGE_W : 0;
  if (charger === CARPORT) return hour >= 17.5 && hour < 19 ? CHARGE_W : 0;
  return 0;
}

/** The past is computed once a minute: five samples to each 5-minute point of the curves. */
export const PAST_STEP_MS = 60_000;
/** How far back the demo's past goes: the 48 hours the household page shows. */
export const PAST_MS = 48 * 3_600_000;

/** The household's last 48 hours, once a minute; run before the simulators are read (HouseholdModel.runPast). */
export function demoPast(household: HouseholdModel, nowMs: number): HouseholdReading[] {
  // From an hour's start: its first hour has a counter and a price from its beginning.
  const fromMs = Math.floor((nowMs - PAST_MS) / 3_600_000) * 3_600_000;
  return household.runPast(fromMs, nowMs, PAST_STEP_MS, pastChargerDraw);
}
