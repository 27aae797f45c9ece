// Feeds the systemd watchdog at half its period, but only while the hub is really healthy: a hub
// whose event loop is stuck, whose database is unwritable or whose pollers stalled is restarted.
import type { Logger } from '../../log.ts';
import type { Clock } from '../../domain/time.ts';
import type { HealthMonitor } from './health.ts';
import type { Notifier } from '../../transport/systemd-notify.ts';

export class Watchdog {
  private timer: NodeJS.Timeout | undefined;
  private wasHealthy = true;

  constructor(
    private readonly notifier: Notifier,
    private readonly health: Pick<HealthMonitor, 'check'>,
    private readonly periodMs: number,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), Math.max(50, this.periodMs / 2));
    this.timer.unref();
  }

  tick(): void {
    const report = this.health.check(this.clock.now());
    if (report.healthy) {
      if (!this.wasHealthy) this.log.info('healthy again: feeding the watchdog');
      this.wasHealthy = true;
      this.notifier.notify('WATCHDOG=1').catch((err: Error) => this.log.warn({ err }, 'watchdog notify failed'));
    } else {
      if (this.wasHealthy) this.log.warn({ problems: report.problems }, 'unhealthy: not feeding the watchdog');
      this.wasHealthy = false;
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
