// The physics behind the simulators: a sun curve, a household load and a battery that charges from
// the surplus and covers the deficit. Values are computed from the clock when a device is read, so
// the simulators need no timers and tests can move time as they like.

export interface SiteOptions {
  /** Peak PV power at noon, W. */
  pvPeakW?: number;
  /** How long a simulated day lasts; the demo squeezes a day into minutes so values visibly move. */
  dayLengthMs?: number;
  batteryCapacityWh?: number;
  batteryMaxW?: number;
  initialSocPct?: number;
  /** Simulated hour of day at construction (the demo starts its compressed day in the morning). */
  startHour?: number;
  now?: () => number;
}

export interface SiteReading {
  pvW: number;
  loadW: number;
  /** Positive while charging. */
  batteryW: number;
  /** Positive while importing from the grid. */
  gridW: number;
  socPct: number;
  pvEnergyWh: number;
  gridImportWh: number;
  gridExportWh: number;
}

export class SiteModel {
  readonly pvPeakW: number;
  readonly batteryCapacityWh: number;
  readonly batteryMaxW: number;
  private readonly dayLengthMs: number;
  private readonly now: () => number;
  private readonly offsetMs: number;
  private lastMs: number;
  private state: SiteReading;

  constructor(options: SiteOptions = {}) {
    this.pvPeakW = options.pvPeakW ?? 8000;
    this.dayLengthMs = options.dayLengthMs ?? 86_400_000;
    this.batteryCapacityWh = options.batteryCapacityWh ?? 10_240;
    this.batteryMaxW = options.batteryMaxW ?? 5000;
    this.now = options.now ?? Date.now;
    this.lastMs = this.now();
    this.offsetMs = options.startHour === undefined ? 0
      : (options.startHour / 24) * this.dayLengthMs - (this.lastMs % this.dayLengthMs);
    this.state = {
      pvW: 0, loadW: 0, batteryW: 0, gridW: 0, socPct: options.initialSocPct ?? 50,
      pvEnergyWh: 1_234_000, gridImportWh: 4_321_000, gridExportWh: 2_100_000,
    };
    this.advance();
  }

  /** The site at the current time. */
  read(): SiteReading {
    this.advance();
    return { ...this.state };
  }

  private advance(): void {
    const now = this.now();
    const hours = Math.max(0, now - this.lastMs) / 3_600_000;
    this.lastMs = now;
    const s = this.state;
    // Energy of the interval just ended, at the powers of its start.
    s.pvEnergyWh += s.pvW * hours;
    s.socPct = clamp(s.socPct + (s.batteryW * hours * 100) / this.batteryCapacityWh, 0, 100);
    if (s.gridW > 0) s.gridImportWh += s.gridW * hours;
    else s.gridExportWh += -s.gridW * hours;

    const dayFraction = ((((now + this.offsetMs) % this.dayLengthMs) + this.dayLengthMs) % this.dayLengthMs) / this.dayLengthMs;
    const sun = Math.sin(Math.PI * (dayFraction * 24 - 6) / 12);
    const clouds = 0.85 + 0.15 * Math.sin(now / 7_000);
    s.pvW = sun > 0 ? Math.round(this.pvPeakW * sun * clouds) : 0;
    s.loadW = Math.round(450 + 250 * Math.sin(now / 11_000) + 600 * Math.max(0, Math.sin(Math.PI * (dayFraction * 24 - 17) / 5)));
    const surplus = s.pvW - s.loadW;
    let batteryW = clamp(surplus, -this.batteryMaxW, this.batteryMaxW);
    if ((batteryW > 0 && s.socPct >= 100) || (batteryW < 0 && s.socPct <= 5)) batteryW = 0;
    s.batteryW = Math.round(batteryW);
    s.gridW = s.loadW + s.batteryW - s.pvW;
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
