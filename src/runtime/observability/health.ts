// Whether the hub is really healthy: the event loop answers, the database takes a write lock, and
// whatever polls devices is making progress. /health and the systemd watchdog both ask this.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Db } from '../../store/db.ts';

export interface ProgressSource {
  /** Why progress has stalled, or null when it is fine. */
  stalled(nowMs: number): string | null;
}

export interface HealthReport {
  healthy: boolean;
  problems: string[];
}

const MAX_EVENT_LOOP_LAG_MS = 2_000;

export class HealthMonitor {
  private readonly lag: IntervalHistogram;
  private readonly sources: ProgressSource[] = [];

  constructor(private readonly db: Db) {
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
    const problems: string[] = [];
    const lagMs = this.eventLoopLagMs();
    this.lag.reset();
    if (lagMs > MAX_EVENT_LOOP_LAG_MS) problems.push(`event loop blocked for ${Math.round(lagMs)} ms`);
    try {
      // Takes and releases the write lock without writing a page: the SD card is spared.
      this.db.exec('BEGIN IMMEDIATE; ROLLBACK');
    } catch (err) {
      problems.push(`database not writable (${(err as { code?: string }).code ?? 'error'})`);
    }
    for (const source of this.sources) {
      const reason = source.stalled(nowMs);
      if (reason) problems.push(reason);
    }
    return { healthy: problems.length === 0, problems };
  }
}
