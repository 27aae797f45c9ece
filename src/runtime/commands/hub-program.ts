// A weekly program the hub runs itself, as instants: which event is in force at a given moment and
// which comes next, in the device's time zone, across daylight-saving changes.
//
// How a UTC weekly program maps to instants (the choice, docs/schedules.md): the API's times are
// UTC, and an app converts its user's local times with the offset in force when it sends them. The
// hub converts them back to local wall-clock times with the offset in force when the program is
// stored, and keeps those local times all year, as a device with its own program and the cloud
// service do: a heating that starts at 06:30 starts at 06:30 in summer and in winter. Unlike a
// device, the hub knows each real instant:
// - an event whose local time does not exist (the hour skipped in spring) is applied at the instant
//   the clock jumps, so it is not lost and the order of the events is kept;
// - an event whose local time happens twice (the hour repeated in autumn) is applied once, at the
//   first of the two.
//
// An event's `end` (the choice): at its end the hub switches the device OFF, unless the next event
// starts at or before that end (then the next event takes over and the end does nothing). The time
// between an event's end and the next start is off time, as on a device's own time program, where
// the time outside its windows is set back; send a REDUCED event instead of an end to set back.
import type { ScheduleEvent } from '../../domain/schedule-event.ts';
import type { HubProgram } from '../../store/hub-schedules.ts';
import { offsetMinutes, weekMinute } from './schedules.ts';

const MINUTE = 60_000;
const DAY = 1440 * MINUTE;
const WEEK_MIN = 7 * 1440;
const WEEK = WEEK_MIN * MINUTE;

/** What the hub does at one point of the week: an event's start, or the OFF its end brings. */
export interface ProgramAction {
  /** Minutes from Monday 00:00, in the program's local time. */
  localMinute: number;
  mode: string;
  temperature?: number;
  /** The event (its index in the program) this action belongs to. */
  event: number;
  isEnd: boolean;
}

/** One action at one real instant. */
export interface Occurrence {
  atMs: number;
  action: ProgramAction;
}

const mod = (n: number, m: number) => ((n % m) + m) % m;

/**
 * The program's actions in local week minutes, in order. Two actions at the same minute: the one
 * later in the program wins (only the last one at a minute is kept).
 */
export function programActions(program: HubProgram): ProgramAction[] {
  const starts = program.events.map((e, i) => ({ e, i, at: weekMinute(e.start) }))
    .sort((a, b) => a.at - b.at || a.i - b.i);
  const actions: (ProgramAction & { order: number })[] = [];
  starts.forEach(({ e, i, at }, k) => {
    actions.push({ ...startOf(e, i), localMinute: mod(at + program.offsetMinutes, WEEK_MIN), order: i * 2 });
    if (!e.end) return;
    // Measured from this start: the end, and the next start (the week wraps; itself a week later).
    const next = starts.find((s, j) => j > k && s.at > at) ?? starts[0]!;
    let untilNext = mod(next.at - at, WEEK_MIN);
    if (untilNext === 0) untilNext = WEEK_MIN;
    let untilEnd = mod(weekMinute(e.end) - at, WEEK_MIN);
    if (untilEnd === 0) untilEnd = WEEK_MIN; // an end equal to the start: the whole week
    if (untilEnd < untilNext) {
      actions.push({ localMinute: mod(at + untilEnd + program.offsetMinutes, WEEK_MIN), mode: 'OFF', event: i, isEnd: true, order: i * 2 + 1 });
    }
  });
  actions.sort((a, b) => a.localMinute - b.localMinute || a.order - b.order);
  const kept = actions.filter((a, n) => actions[n + 1]?.localMinute !== a.localMinute);
  return kept.map(({ order: _order, ...action }) => action);
}

function startOf(event: ScheduleEvent, index: number): Omit<ProgramAction, 'localMinute'> {
  return { mode: event.mode, ...(event.temperature !== undefined ? { temperature: event.temperature } : {}), event: index, isEnd: false };
}

/**
 * The instant a local wall-clock time (given as if it were UTC) happens in a zone: the first of two
 * when it happens twice, the instant the clock jumps when it does not happen at all.
 */
export function wallToInstant(wallMs: number, timeZone: string): number {
  const before = offsetMinutes(timeZone, wallMs - DAY);
  const after = offsetMinutes(timeZone, wallMs + DAY);
  const valid = [...new Set([before, after])]
    .map((offset) => wallMs - offset * MINUTE)
    .filter((t) => offsetMinutes(timeZone, t) * MINUTE === wallMs - t);
  if (valid.length > 0) return Math.min(...valid);
  // A gap: the clock jumped over this time. The jump is between the two readings; find its minute.
  let lo = wallMs - after * MINUTE; // before the jump (shown with the old offset, too early)
  let hi = wallMs - before * MINUTE; // after it
  if (lo > hi) [lo, hi] = [hi, lo];
  lo = Math.floor(lo / MINUTE);
  hi = Math.ceil(hi / MINUTE);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetMinutes(timeZone, mid * MINUTE) === after) hi = mid;
    else lo = mid;
  }
  return hi * MINUTE;
}

/** The local wall-clock time of an instant, as if it were UTC. */
function instantToWall(atMs: number, timeZone: string): number {
  return atMs + offsetMinutes(timeZone, atMs) * MINUTE;
}

/**
 * The occurrence in force at `nowMs` (the last one at or before it) and the next one after it.
 * Occurrences at the same instant (two events in a skipped hour): the later one is in force.
 */
export function occurrencesAround(actions: readonly ProgramAction[], timeZone: string, nowMs: number): { current: Occurrence; next: Occurrence } {
  if (actions.length === 0) throw new RangeError('a program without events');
  const wall = instantToWall(nowMs, timeZone);
  const days = Math.floor(wall / DAY);
  // 1970-01-01 was a Thursday: three days after a Monday.
  const monday = (days - mod(days + 3, 7)) * DAY;
  const all: Occurrence[] = [];
  for (const week of [-1, 0, 1]) {
    for (const action of actions) all.push({ atMs: wallToInstant(monday + week * WEEK + action.localMinute * MINUTE, timeZone), action });
  }
  // Already in order of local time; instants keep that order (equal at most, in a skipped hour).
  let current = all[0]!;
  let next: Occurrence | undefined;
  for (const occurrence of all) {
    if (occurrence.atMs <= nowMs) current = occurrence;
    else if (!next) next = occurrence;
  }
  return { current, next: next! };
}

/** The program's events that a device can apply given the commands its driver takes; why not else. */
export function programProblem(events: readonly ScheduleEvent[], canSetMode: boolean, canSetTemperature: boolean): string | undefined {
  if (canSetMode) {
    if (!canSetTemperature && events.some((e) => e.temperature !== undefined)) {
      return 'The device\'s driver can set the mode but not a temperature, and the schedule gives temperatures.';
    }
    return undefined;
  }
  // A setpoint-only device: every event needs a temperature, and nothing can switch it off.
  if (events.some((e) => e.temperature === undefined)) {
    return 'The device\'s driver can set a temperature but not the mode, so every event of the schedule needs a temperature.';
  }
  if (events.some((e) => e.end !== undefined)) {
    return 'The device\'s driver cannot set the mode, so it cannot be switched off at an event\'s end; send the schedule without ends.';
  }
  return undefined;
}
