// Schedules arrive in UTC (the API's rule) and devices keep them in their own local time and format.
// Each encoder here writes one device format; a definition names its encoder. The device's time zone
// is the binding's `timeZone` setting, else the hub's own.
//
// A weekly schedule converted from UTC holds for the UTC offset of the week it is written in: after a
// daylight-saving change the device keeps its local times, so the schedule is off by the change
// until it is written again. The cloud service has the same property; we note it, not hide it.
import { CommandFailure } from './executor.ts';
import { WEEK_DAYS } from '../../domain/vocabulary.ts';
import type { ScheduleEvent, WeekDay as Day } from '../../domain/schedule-event.ts';

export type { ScheduleEvent };

/** A stretch of one local day, in minutes from midnight (end exclusive, 1440 = midnight). */
export interface LocalWindow {
  day: Day;
  fromMin: number;
  toMin: number;
  mode: string;
  temperature?: number;
}

const WEEK_MIN = 7 * 1440;
/** Modes in which a heating/cooling circuit runs at its comfort setting; the others set it back. */
const ACTIVE_MODES = new Set(['HEAT', 'COOL', 'DRY', 'AUTO']);

export function hubTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** Minutes from Monday 00:00 UTC → minutes from Monday 00:00 local, for the week around `nowMs`. */
export function utcWeekMinuteToLocal(weekMinute: number, timeZone: string, nowMs: number): number {
  const offset = offsetMinutes(timeZone, nowMs);
  return (((weekMinute + offset) % WEEK_MIN) + WEEK_MIN) % WEEK_MIN;
}

/** One formatter per zone: building one costs far more than using it (the hub-run schedules ask often). */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit',
      });
    } catch {
      throw new CommandFailure(`The device's time zone "${timeZone}" is not known.`);
    }
    formatters.set(timeZone, format);
  }
  return format;
}

/** The zone's offset from UTC in minutes at `atMs` (Europe/Berlin in winter: 60). */
export function offsetMinutes(timeZone: string, atMs: number): number {
  const parts = formatterOf(timeZone).formatToParts(atMs);
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'));
  return Math.round((asUtc - Math.floor(atMs / 60_000) * 60_000) / 60_000);
}

/** Minutes from Monday 00:00 of a week time. */
export function weekMinute(at: { time: string; day: Day }): number {
  const [h, m] = at.time.split(':').map(Number);
  return WEEK_DAYS.indexOf(at.day) * 1440 + h! * 60 + m!;
}

/**
 * The schedule as local windows per day: each event lasts until its `end`, else until the next
 * event starts (the week wraps). Windows crossing local midnight are split.
 */
export function localWindows(events: readonly ScheduleEvent[], timeZone: string, nowMs: number): LocalWindow[] {
  const sorted = [...events].sort((a, b) => weekMinute(a.start) - weekMinute(b.start));
  const out: LocalWindow[] = [];
  sorted.forEach((event, i) => {
    const startUtc = weekMinute(event.start);
    let endUtc = event.end ? weekMinute(event.end) : weekMinute(sorted[(i + 1) % sorted.length]!.start);
    if (endUtc <= startUtc) endUtc += WEEK_MIN; // ends in the following week (or lasts the whole week)
    const start = utcWeekMinuteToLocal(startUtc, timeZone, nowMs);
    let remaining = endUtc - startUtc;
    let at = start;
    while (remaining > 0) {
      const dayIndex = Math.floor(at / 1440) % 7;
      const fromMin = at % 1440;
      const length = Math.min(remaining, 1440 - fromMin);
      out.push({ day: WEEK_DAYS[dayIndex]!, fromMin, toMin: fromMin + length, mode: event.mode, ...(event.temperature !== undefined ? { temperature: event.temperature } : {}) });
      remaining -= length;
      at = (at + length) % WEEK_MIN;
    }
  });
  return out.sort((a, b) => WEEK_DAYS.indexOf(a.day) - WEEK_DAYS.indexOf(b.day) || a.fromMin - b.fromMin);
}

export function hhmm(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

type Encoder = (events: readonly ScheduleEvent[], settings: Record<string, string>, nowMs: number) => string[];

const ENCODERS: Record<string, Encoder> = {
  /** The schedule as the API sent it (UTC), for devices that convert themselves. */
  'json-utc': (events) => [JSON.stringify(events)],
  /** The schedule's windows in the device's local time, as JSON. */
  'json-local': (events, settings, nowMs) => [JSON.stringify(localWindows(events, zoneOf(settings), nowMs).map((w) => ({
    day: w.day, from: hhmm(w.fromMin), to: hhmm(w.toMin), mode: w.mode, ...(w.temperature !== undefined ? { temperature: w.temperature } : {}),
  })))],
  /**
   * Vaillant VRC700/VRC720 time programs through ebusd (`700/Z1Timer_Monday`, `HwcTimer_<Day>`, archived `z1Timer.Monday`): one
   * message per day, type `slot1-3` = three (from;to) pairs of TTM times (ebusd-configuration
   * 15.700.csv, _templates.csv), e.g. `06:00;22:00;-:-;-:-;-:-;-:-`. TTM keeps 10-minute steps and
   * writes `24:00` for the end of the day; `-:-` is an unused slot (ebusd datatype.cpp). Set-back
   * modes (REDUCED, OFF) are the time outside the windows.
   */
  'ebusd-vaillant-timer': (events, settings, nowMs) => {
    const windows = mergeAdjacent(localWindows(events, zoneOf(settings), nowMs).filter((w) => ACTIVE_MODES.has(w.mode)));
    return WEEK_DAYS.map((day) => {
      const today = windows.filter((w) => w.day === day);
      if (today.length > 3) throw new CommandFailure(`Vaillant controllers take at most 3 heating windows a day; ${day} has ${today.length} (device time).`);
      const slots = today.map((w) => {
        // ebusd would round a time between steps, and the controller would then echo another schedule.
        if (w.fromMin % 10 !== 0 || w.toMin % 10 !== 0) {
          throw new CommandFailure(`Vaillant time programs take times in 10-minute steps; ${day} ${hhmm(w.fromMin)}-${hhmm(w.toMin)} (device time) is not.`);
        }
        return `${hhmm(w.fromMin)};${hhmm(w.toMin)}`;
      });
      while (slots.length < 3) slots.push('-:-;-:-');
      return slots.join(';');
    });
  },
};

function mergeAdjacent(windows: LocalWindow[]): LocalWindow[] {
  const out: LocalWindow[] = [];
  for (const w of windows) {
    const last = out[out.length - 1];
    if (last && last.day === w.day && last.toMin === w.fromMin) last.toMin = w.toMin;
    else out.push({ ...w });
  }
  return out;
}

function zoneOf(settings: Record<string, string>): string {
  return settings['timeZone'] ?? hubTimeZone();
}

export function hasScheduleEncoder(name: string): boolean {
  return name in ENCODERS;
}

/** Encodes the body of a SET_SCHEDULE command for a device, in its local time. */
export function encodeSchedule(encoder: string, body: Record<string, unknown>, settings: Record<string, string>, nowMs = Date.now()): string[] {
  const write = ENCODERS[encoder];
  if (!write) throw new CommandFailure(`The driver names a schedule format (${encoder}) the hub does not know.`);
  const events = body['schedules'];
  if (!Array.isArray(events) || events.length === 0) throw new CommandFailure('The schedule is empty.');
  return write(events as ScheduleEvent[], settings, nowMs);
}
