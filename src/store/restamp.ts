// Re-dates what the hub stamped while its wall clock was known to be wrong (1970 on a fresh image,
// or behind its own newest stored time): once the clock is set, each stamp taken in that window moves
// by how far the clock moved, so a key, a command or a charging session reads the time it really
// happened (src/runtime/clock/clock-restamp.ts). Only the hub's own stamps: a charger's timestamps are its own.
import type { Db } from './db.ts';

/** The hub's own stamps, by table. */
const STAMPS: Record<string, readonly string[]> = {
  api_keys: ['created_at', 'revoked_at'],
  commands: ['created_at', 'last_updated', 'expires_at', 'started_at'],
  ocpp_transactions: ['received_at'],
  hub_schedules: ['stored_at', 'applied_at'],
};

/** Moves every stamp in [fromMs, toMs] by shiftMs, in one transaction; how many rows changed. */
export function restampWindow(db: Db, fromMs: number, toMs: number, shiftMs: number): number {
  let changed = 0;
  db.transaction(() => {
    for (const [table, columns] of Object.entries(STAMPS)) {
      const sets = columns.map((c) => `${c} = CASE WHEN ${c} BETWEEN @fromMs AND @toMs THEN ${c} + @shiftMs ELSE ${c} END`).join(', ');
      const where = columns.map((c) => `${c} BETWEEN @fromMs AND @toMs`).join(' OR ');
      changed += db.prepare(`UPDATE ${table} SET ${sets} WHERE ${where}`).run({ fromMs, toMs, shiftMs }).changes;
    }
  })();
  return changed;
}
