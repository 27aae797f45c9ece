// Timestamps travel as UTC ISO 8601 ("2026-11-07T05:31:56Z") and are kept as epoch milliseconds.

/** Formats epoch ms as UTC ISO 8601, without a fraction when it is whole seconds. */
export function formatTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** Parses a date-time that carries `Z` or an offset; undefined when it is not one. */
export function parseTimestamp(text: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

/** Normalises a date-time string to the hub's UTC form. */
export function normalizeTimestamp(text: string): string {
  const ms = parseTimestamp(text);
  if (ms === undefined) throw new RangeError(`not a date-time with an offset: ${text}`);
  return formatTimestamp(ms);
}

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
