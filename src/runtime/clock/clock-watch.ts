// Watches the wall clock against the monotonic one. A Raspberry Pi has no battery clock: after a power
// cut it boots at the last time it saved, and NTP later steps the wall clock forward by the outage
// (a bad time source can step it back). Durations never notice (they are measured on the monotonic
// clock), but whatever depends on dates must: a step is noticed here, logged once, counted for
// /health and /metrics, and told to whoever re-evaluates dates ('step' event).
//
// The clock is "trusted" once its wall time is at or past a floor: the newest time the hub itself
// has stored, and the release's build date (systemd uses its own build date the same way). Before
// that it is known to be wrong (1970 on a fresh image) and is not spread: 'trusted' is emitted once
// when it becomes right.
import { EventEmitter } from 'node:events';
import type { Logger } from '../../log.ts';
import { formatTimestamp, monotonicMs, type Clock } from '../../domain/time.ts';

export interface ClockStep {
  /** How far the wall clock moved against the monotonic one: positive forward, negative back. */
  stepMs: number;
  /** The wall time just after the step. */
  wallMs: number;
  /** The monotonic time the step was noticed at. */
  monoMs: number;
}

export interface ClockWatchOptions {
  /** A change of wall minus monotonic larger than this is a step (NTP slews smaller errors). */
  thresholdMs?: number;
  /** How often the clocks are compared while started. */
  intervalMs?: number;
  /** Wall times before this are known to be wrong (the build date, the newest stored time). */
  floorMs?: number;
}

export class ClockWatch extends EventEmitter<{ step: [ClockStep]; trusted: [] }> {
  private readonly thresholdMs: number;
  private readonly intervalMs: number;
  private floorMs: number;
  private offsetMs: number;
  private timer: NodeJS.Timeout | undefined;
  private wasTrusted: boolean;
  private steps = 0;
  private last: ClockStep | undefined;
  private steppingNow = false;

  constructor(private readonly clock: Clock, options: ClockWatchOptions = {}, private readonly log?: Logger) {
    super();
    this.thresholdMs = options.thresholdMs ?? 5_000;
    this.intervalMs = options.intervalMs ?? 1_000;
    this.floorMs = options.floorMs ?? 0;
    this.offsetMs = clock.now() - monotonicMs(clock);
    this.wasTrusted = clock.now() >= this.floorMs;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.check(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Compares the clocks now: the step, when the wall clock has stepped since the last look. */
  check(): ClockStep | undefined {
    const wallMs = this.clock.now();
    const monoMs = monotonicMs(this.clock);
    const offsetMs = wallMs - monoMs;
    const stepMs = offsetMs - this.offsetMs;
    let step: ClockStep | undefined;
    if (Math.abs(stepMs) > this.thresholdMs) {
      this.offsetMs = offsetMs;
      step = { stepMs, wallMs, monoMs };
      this.steps++;
      this.last = step;
      this.log?.warn({ stepS: Math.round(stepMs / 1000), now: formatTimestamp(wallMs) },
        stepMs > 0 ? 'the wall clock stepped forward' : 'the wall clock stepped back');
      // 'trusted' only after every 'step' listener: one that reads `trusted` must not set off the
      // re-dating of the records before the step has moved the deadlines (or both would move them).
      this.steppingNow = true;
      try {
        this.emit('step', step);
      } finally {
        this.steppingNow = false;
      }
    }
    this.checkTrusted(wallMs);
    return step;
  }

  /** Raises the floor of a right time (the newest time found in the store at start). */
  raiseFloor(floorMs: number): void {
    if (floorMs <= this.floorMs) return;
    this.floorMs = floorMs;
    this.wasTrusted = this.wasTrusted && this.clock.now() >= floorMs;
  }

  /** Whether the wall clock is at or past the floor: its dates may be handed out and stored. */
  get trusted(): boolean {
    return this.checkTrusted(this.clock.now());
  }

  get stepsTotal(): number {
    return this.steps;
  }

  get lastStep(): ClockStep | undefined {
    return this.last;
  }

  /** The wall time, as the clock reads now, of an earlier monotonic instant. */
  wallAt(monoMs: number): number {
    return monoMs + (this.clock.now() - monotonicMs(this.clock));
  }

  private checkTrusted(wallMs: number): boolean {
    const trusted = wallMs >= this.floorMs;
    if (trusted && !this.wasTrusted && !this.steppingNow) {
      this.wasTrusted = true;
      this.log?.info({ now: formatTimestamp(wallMs) }, 'the wall clock is set');
      this.emit('trusted');
    }
    return trusted;
  }
}
