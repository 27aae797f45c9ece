// Timestamps travel as UTC ISO 8601 ("2026-11-07T05:31:56Z") and are kept as epoch milliseconds.

/** The whole second an instant falls in (floored, also before 1970), in epoch ms. */
export function wholeSeconds(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

/**
 * Formats epoch ms as UTC ISO 8601 in whole seconds, the API's style (decisions §2, "Units"): any
 * fraction is dropped, not rounded, so a time never shows later than it was. Device times are
 * stored in whole seconds already, so what a list filter compares is exactly what is shown;
 * commands keep their milliseconds in the store and are ordered by sequence, not time.
 */
export function formatTimestamp(ms: number): string {
  return new Date(wholeSeconds(ms)).toISOString().replace('.000Z', 'Z');
}

/** Parses a date-time that carries `Z` or an offset; undefined when it is not one. */
export function parseTimestamp(text: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

/** Normalises a date-time string to the hub's UTC form, in whole seconds. */
export function normalizeTimestamp(text: string): string {
  const ms = parseTimestamp(text);
  if (ms === undefined) throw new RangeError(`not a date-time with an offset: ${text}`);
  return formatTimestamp(ms);
}

/**
 * The hub's two clocks. `now()` is the wall clock, for dates: what is stored and shown. It steps when
 * NTP sets it (a gateway without a battery clock boots at its last saved time and jumps forward once
 * the network is up), so a duration is never a difference of two `now()`s: `monotonicMs()` measures
 * durations (poll pacing, timeouts, time to live, silence, back-off) and never steps.
 */
export interface Clock {
  /** Wall clock, epoch ms: for dates. */
  now(): number;
  /**
   * Monotonic ms from an arbitrary origin: for durations. Optional so that a test's fake clock may
   * be just `{ now }` (it then moves both together); read it through `monotonicMs(clock)`.
   */
  monotonicMs?(): number;
}

export const systemClock: Clock = { now: () => Date.now(), monotonicMs: () => performance.now() };

/** The clock's monotonic reading (its wall reading when a test's fake clock has only that). */
export function monotonicMs(clock: Clock): number {
  return clock.monotonicMs ? clock.monotonicMs() : clock.now();
}
