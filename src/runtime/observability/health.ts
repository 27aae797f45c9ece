// Whether the hub is really healthy: the event loop answers, the database takes a write lock, the
// storage takes writes, and whatever polls devices is making progress. /health and the systemd
// watchdog both ask this. A card that is full or read-only makes the hub unhealthy but is no reason
// to restart it (a restart frees no space, and the hub still serves reads and keeps what it could
// not write): the watchdog keeps being fed and the systemd status line says what is wrong.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Db } from '../../store/db.ts';
import type { StorageHealth } from '../../store/storage-health.ts';
import { formatTimestamp } from '../../domain/time.ts';
import type { ClockWatch } from '../clock/clock-watch.ts';

export interface ProgressSource {
  /** Why progress has stalled, or null when it is fine; `monoMs` is monotonic (a duration's clock). */
  stalled(monoMs: number): string | null;
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
  /** Steps of the wall clock since start, once there was one: told, never a fault (durations do not see them). */
  clock?: { steps: number; lastStep: { at: string; stepS: number } };
}

const MAX_EVENT_LOOP_LAG_MS = 2_000;

export class HealthMonitor {
  private readonly lag: IntervalHistogram;
  private readonly sources: ProgressSource[] = [];
  private clockWatch: Pick<ClockWatch, 'stepsTotal' | 'lastStep' | 'wallAt'> | undefined;

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

  /** The hub's ClockWatch, whose steps the report tells. */
  watchClock(clockWatch: Pick<ClockWatch, 'stepsTotal' | 'lastStep' | 'wallAt'>): void {
    this.clockWatch = clockWatch;
  }

  /** The worst event-loop delay since the last reset, in ms. */
  eventLoopLagMs(): number {
    return this.lag.max / 1e6;
  }

  /** `monoMs`: the monotonic clock's reading (progress is a duration, and the wall clock steps). */
  check(monoMs: number): HealthReport {
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
      const reason = source.stalled(monoMs);
      if (reason) restartWorthy.push(reason);
    }
    this.storage?.checkSpace();
    const storage = this.storage?.problems() ?? [];
    const storageDown = this.storage !== undefined && !this.storage.writable;
    const problems = [...(storageDown ? storage : []), ...restartWorthy];
    const told = this.sources.flatMap((source) => source.warnings?.() ?? []);
    const report: HealthReport = { healthy: problems.length === 0, problems, restartWorthy, warnings: [...(storageDown ? [] : storage), ...told] };
    const step = this.clockWatch?.lastStep;
    if (this.clockWatch && step) {
      // When it happened, on the clock as it reads now (a later step moves it with the clock).
      report.clock = { steps: this.clockWatch.stepsTotal, lastStep: { at: formatTimestamp(this.clockWatch.wallAt(step.monoMs)), stepS: Math.round(step.stepMs / 1000) } };
    }
    return report;
  }
}
