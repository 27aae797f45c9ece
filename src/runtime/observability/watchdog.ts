// Feeds the systemd watchdog at half its period, but only while the hub is really healthy: a hub
// whose event loop is stuck, whose database cannot be locked or whose pollers stalled is restarted.
// A full or read-only card is shown on the status line instead (a restart would not cure it).
import type { Logger } from '../../log.ts';
import { monotonicMs, type Clock } from '../../domain/time.ts';
import type { HealthMonitor } from './health.ts';
import type { Notifier } from '../../transport/systemd-notify.ts';

export class Watchdog {
  private timer: NodeJS.Timeout | undefined;
  private wasHealthy = true;
  private lastStatus: string;

  constructor(
    private readonly notifier: Notifier,
    private readonly health: Pick<HealthMonitor, 'check'>,
    private readonly periodMs: number,
    private readonly clock: Clock,
    private readonly log: Logger,
    /** The status line while all is well (main.ts: `listening on …`). */
    private readonly readyStatus = 'running',
  ) {
    this.lastStatus = readyStatus;
  }

  start(): void {
    this.timer = setInterval(() => this.tick(), Math.max(50, this.periodMs / 2));
    this.timer.unref();
  }

  tick(): void {
    const report = this.health.check(monotonicMs(this.clock));
    // The status line (systemctl status) says what is wrong, storage faults included, and says so
    // again when it changes.
    const status = [...report.problems, ...report.warnings].join('; ') || this.readyStatus;
    if (status !== this.lastStatus) {
      this.lastStatus = status;
      this.notifier.notify(`STATUS=${status}`).catch(() => {});
    }
    // A full or read-only card is no reason to restart: that would only loop (health.ts).
    if (report.restartWorthy.length === 0) {
      if (!this.wasHealthy) this.log.info('healthy again: feeding the watchdog');
      this.wasHealthy = true;
      this.notifier.notify('WATCHDOG=1').catch((err: Error) => this.log.warn({ err }, 'watchdog notify failed'));
    } else {
      if (this.wasHealthy) this.log.warn({ problems: report.restartWorthy }, 'unhealthy: not feeding the watchdog');
      this.wasHealthy = false;
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
