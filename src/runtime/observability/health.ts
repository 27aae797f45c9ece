// Whether the hub is really healthy: the event loop answers, the database takes a write lock, the
// storage takes writes, and whatever polls devices is making progress. /health and the systemd
// watchdog both ask this. A card that is full or read-only makes the hub unhealthy but is no reason
// to restart it (a restart frees no space, and the hub still serves reads and keeps what it could
// not write): the watchdog keeps being fed and the systemd status line says what is wrong.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Db } from '../../store/db.ts';
import type { StorageHealth } from '../../store/storage-health.ts';

export interface ProgressSource {
  /** Why progress has stalled, or null when it is fine. */
  stalled(nowMs: number): string | null;
  /** What the household should know and the hub cannot cure (a car whose maker wants a new login). */
  warnings?(): string[];
}

export interface HealthReport {
  healthy: boolean;
  problems: string[];
  /** The problems a restart may cure (a blocked event loop, stalled polling): the watchdog's business. */
  restartWorthy: string[];
  /** Not a fault of the hub: the storage is low on space, a car needs its owner (a new login). */
  warnings: string[];
}

const MAX_EVENT_LOOP_LAG_MS = 2_000;

export class HealthMonitor {
  private readonly lag: IntervalHistogram;
  private readonly sources: ProgressSource[] = [];

  constructor(private readonly db: Db, private readonly storage?: Pick<StorageHealth, 'report' | 'writable' | 'problems' | 'checkSpace'>) {
    this.lag = monitorEventLoopDelay({ resolution: 20 });
  }

  start(): void {
    this.lag.enable();
  }

  stop(): void {
    this.lag.disable();
  }

  watch(source: ProgressSource): void {
    this.sources.push(source);
  }

  /** The worst event-loop delay since the last reset, in ms. */
  eventLoopLagMs(): number {
    return this.lag.max / 1e6;
  }

  check(nowMs: number): HealthReport {
    const restartWorthy: string[] = [];
    const lagMs = this.eventLoopLagMs();
    this.lag.reset();
    if (lagMs > MAX_EVENT_LOOP_LAG_MS) restartWorthy.push(`event loop blocked for ${Math.round(lagMs)} ms`);
    try {
      // Takes and releases the write lock without writing a page: the SD card is spared. Whether
      // pages can be written is the storage's to say (writes report there, it probes with one).
      this.db.exec('BEGIN IMMEDIATE; ROLLBACK');
    } catch (err) {
      if (!this.storage?.report(err)) restartWorthy.push(`database not writable (${(err as { code?: string }).code ?? 'error'})`);
    }
    for (const source of this.sources) {
      const reason = source.stalled(nowMs);
      if (reason) restartWorthy.push(reason);
    }
    this.storage?.checkSpace();
    const storage = this.storage?.problems() ?? [];
    const storageDown = this.storage !== undefined && !this.storage.writable;
    const problems = [...(storageDown ? storage : []), ...restartWorthy];
    const told = this.sources.flatMap((source) => source.warnings?.() ?? []);
    return { healthy: problems.length === 0, problems, restartWorthy, warnings: [...(storageDown ? [] : storage), ...told] };
  }
}
