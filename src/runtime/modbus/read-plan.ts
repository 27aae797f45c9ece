// Turns the points a poll needs into as few Modbus reads as possible: spans that lie close enough
// together are read in one request of at most 125 registers. A span is never split, so a value and
// its scale factor always arrive in the same answer (SunSpec scale factors change at run time).

export interface Span {
  fn: 3 | 4;
  start: number;
  length: number;
  /** Spans of different segments are never merged (e.g. two SunSpec models, or gaps a map forbids). */
  segment: string;
}

export type Block = Span;

export const MAX_REGISTERS_PER_READ = 125;

/** Greedy left-to-right packing, which gives the fewest blocks for intervals on a line. */
export function planReads(spans: readonly Span[], maxGap: number, maxLength = MAX_REGISTERS_PER_READ): Block[] {
  // Segments are only grouped, never shown: a plain code-unit order does, and localeCompare would
  // load ICU's collation data (about 3 MB of a small gateway's memory) for it.
  const sorted = [...spans].sort((a, b) =>
    compareText(a.segment, b.segment) || a.fn - b.fn || a.start - b.start || b.length - a.length);
  const blocks: Block[] = [];
  let current: Block | undefined;
  for (const span of sorted) {
    if (span.length > maxLength) throw new Error(`a point of ${span.length} registers exceeds one read`);
    if (current && current.segment === span.segment && current.fn === span.fn) {
      const end = Math.max(current.start + current.length, span.start + span.length);
      const gap = span.start - (current.start + current.length);
      if (end - current.start <= maxLength && gap <= maxGap) {
        current.length = end - current.start;
        continue;
      }
    }
    current = { ...span };
    blocks.push(current);
  }
  return blocks;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
