// Records stamped while the wall clock is not set are re-dated when it is (ClockWatch 'trusted'): a
// stamp taken at wall time w, while the clock read `offset` ahead of the monotonic one, happened at
// monotonic w − offset, which the set clock reads as wallAt(w − offset). Samples and prices are held
// until then instead (household-series.ts, tariff-ledger.ts); these records cannot wait: a key, a
// command, a charging session are stored when they happen.
import type { Logger } from 'pino';
import { formatTimestamp, monotonicMs, type Clock } from '../../domain/time.ts';
import type { Store } from '../../store/store.ts';
import { restampWindow } from '../../store/restamp.ts';
import type { ClockWatch } from './clock-watch.ts';

/** Call before anything is stamped at start; a clock trusted already needs nothing. */
export function restampWhenTrusted(store: Store, clock: Clock, watch: ClockWatch, log: Logger): void {
  if (watch.trusted) return;
  const fromMs = clock.now();
  const offsetMs = fromMs - monotonicMs(clock);
  watch.once('trusted', () => {
    // The window: from the start to the wrong clock's reading now (it ran on until it was set).
    const toMs = Math.ceil(monotonicMs(clock) + offsetMs);
    const shiftMs = Math.round(watch.wallAt(0) - offsetMs); // whole ms: the columns are integers
    try {
      const rows = store.storage.writable ? restampWindow(store.db, fromMs, toMs, shiftMs) : 0;
      if (rows > 0) log.info({ rows, from: formatTimestamp(fromMs), shiftS: Math.round(shiftMs / 1000) }, 'records stamped before the clock was set are re-dated');
    } catch (err) {
      if (!store.storage.report(err)) log.error({ err: { type: (err as Error).name, message: (err as Error).message } }, 'records stamped before the clock was set could not be re-dated');
    }
  });
}
