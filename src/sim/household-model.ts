// One household behind every simulator of the demo: its PV arrays, its house load, its batteries, its
// chargers and the grid connection, computed together so that at every instant
//   PV + grid import = house + battery charge + car charging + grid export.
// Each simulator reads the household through a view (`view()`) that has the shape of a SiteModel
// (SiteSource), so simulators and their tests take either. Chargers are terms of the balance through
// `addCharger` (the go-e simulator's power, the OCPP charger's), read when the household advances.
//
// Time: the live demo squeezes a day into `dayLengthMs` so the sun visibly moves, starting at the
// real local time of day when the model is made; instants before that (the demo's past, `runPast`)
// follow the real local day, so the 48 hours of history look like days.
import type { SiteReading } from './site-model.ts';

/** What a simulator needs of a site: the readings, the battery's size (a SiteModel is one). */
export interface SiteSource {
  read(): SiteReading;
  readonly batteryCapacityWh: number;
  readonly batteryMaxW: number;
}

export interface BatterySpec {
  capacityWh: number;
  maxW: number;
  socPct: number;
  /** Below this the battery does not discharge. */
  minSocPct?: number;
}

export interface HouseholdOptions {
  /** Peak power of each PV array by name, W. */
  arrays: Record<string, number>;
  batteries: Record<string, BatterySpec>;
  /** The chargers by name: each draws nothing until `addCharger` tells what it draws. */
  chargers?: readonly string[];
  /** How long a simulated day lasts once the model is live (default a real day). */
  dayLengthMs?: number;
  /** The household's time zone: its real day gives the sun of the past. */
  timeZone?: string;
  now?: () => number;
  /** Grid import and export counters at the start, Wh. */
  gridImportWh?: number;
  gridExportWh?: number;
}

/** The whole household at one instant; powers in W, batteries positive while charging, grid positive while importing. */
export interface HouseholdReading {
  atMs: number;
  pvW: Record<string, number>;
  batteryW: Record<string, number>;
  socPct: Record<string, number>;
  chargerW: Record<string, number>;
  houseW: number;
  gridW: number;
  pvEnergyWh: Record<string, number>;
  chargerEnergyWh: Record<string, number>;
  gridImportWh: number;
  gridExportWh: number;
}

/** A charger's draw now, W; `atMs` is the instant the household is computed for. */
export type ChargerDraw = (atMs: number) => number;

export class HouseholdModel {
  private readonly arrays: [string, number][];
  private readonly batteries: Map<string, BatterySpec>;
  private readonly chargers = new Map<string, ChargerDraw>();
  private readonly dayLengthMs: number;
  private readonly zone: Intl.DateTimeFormat;
  private readonly realNow: () => number;
  /** Set while the past is being run: the instant computed, and who draws what then. */
  private past: { atMs: number; draw: (charger: string, atMs: number) => number } | undefined;
  private liveFromMs: number;
  private liveStartFraction: number;
  private lastMs: number | undefined;
  private state: HouseholdReading;

  constructor(options: HouseholdOptions) {
    this.arrays = Object.entries(options.arrays);
    for (const name of options.chargers ?? []) this.chargers.set(name, () => 0);
    this.batteries = new Map(Object.entries(options.batteries).map(([name, spec]) => [name, { ...spec }]));
    this.dayLengthMs = options.dayLengthMs ?? 86_400_000;
    this.zone = new Intl.DateTimeFormat('en-GB', { timeZone: options.timeZone ?? 'Europe/Berlin', hour: 'numeric', minute: 'numeric', second: 'numeric', hourCycle: 'h23' });
    this.realNow = options.now ?? Date.now;
    this.liveFromMs = this.realNow();
    this.liveStartFraction = this.localDayFraction(this.liveFromMs);
    this.state = {
      atMs: this.liveFromMs,
      pvW: Object.fromEntries(this.arrays.map(([name]) => [name, 0])),
      batteryW: Object.fromEntries([...this.batteries.keys()].map((name) => [name, 0])),
      socPct: Object.fromEntries([...this.batteries].map(([name, spec]) => [name, spec.socPct])),
      chargerW: Object.fromEntries([...this.chargers.keys()].map((name) => [name, 0])),
      houseW: 0,
      gridW: 0,
      pvEnergyWh: Object.fromEntries(this.arrays.map(([name], i) => [name, 1_234_000 + i * 411_000])),
      chargerEnergyWh: Object.fromEntries([...this.chargers.keys()].map((name) => [name, 0])),
      gridImportWh: options.gridImportWh ?? 4_321_000,
      gridExportWh: options.gridExportWh ?? 2_100_000,
    };
  }

  /** What one of the household's chargers draws: a term of the balance, read at each instant computed. */
  addCharger(name: string, draw: ChargerDraw): void {
    if (!this.chargers.has(name)) throw new Error(`no charger ${name}`);
    this.chargers.set(name, draw);
  }

  /** The household now. */
  read(): HouseholdReading {
    this.advance(this.past?.atMs ?? this.realNow());
    return structuredClone(this.state);
  }

  /**
   * Runs the household from `fromMs` to `toMs` in steps of `stepMs`, with chargers drawing what `draw`
   * says for that past, and returns its readings. Counters and charge levels end where the live
   * household goes on: the past leads up to now. The live day then starts at the local time of day
   * `toMs` has. Run it before anything reads the household live.
   */
  runPast(fromMs: number, toMs: number, stepMs: number, draw: (charger: string, atMs: number) => number): HouseholdReading[] {
    this.lastMs = undefined;
    this.liveFromMs = toMs;
    this.liveStartFraction = this.localDayFraction(toMs);
    const readings: HouseholdReading[] = [];
    try {
      for (let at = fromMs; at < toMs; at += stepMs) {
        this.past = { atMs: at, draw };
        readings.push(this.read());
      }
    } finally {
      this.past = undefined;
    }
    return readings;
  }

  /** What one simulator sees of the household: a SiteModel's shape (see the header). */
  view(parts: { pv?: string; battery?: string; grid?: 'household' | 'feeder' }): SiteSource {
    const battery = parts.battery === undefined ? undefined : this.batteries.get(parts.battery);
    if (parts.battery !== undefined && !battery) throw new Error(`no battery ${parts.battery}`);
    if (parts.pv !== undefined && !this.arrays.some(([name]) => name === parts.pv)) throw new Error(`no PV array ${parts.pv}`);
    return {
      batteryCapacityWh: battery?.capacityWh ?? 0,
      batteryMaxW: battery?.maxW ?? 0,
      read: () => {
        const r = this.read();
        const pvW = parts.pv === undefined ? 0 : r.pvW[parts.pv]!;
        const pvEnergyWh = parts.pv === undefined ? 0 : r.pvEnergyWh[parts.pv]!;
        const batteryW = parts.battery === undefined ? 0 : r.batteryW[parts.battery]!;
        const socPct = parts.battery === undefined ? 0 : r.socPct[parts.battery]!;
        // A feeder (the garden house's CTs) sees only its own PV going out to the house.
        if (parts.grid === 'feeder') return { pvW, loadW: 0, batteryW, gridW: batteryW - pvW, socPct, pvEnergyWh, gridImportWh: 0, gridExportWh: pvEnergyWh };
        return { pvW, loadW: r.houseW, batteryW, gridW: r.gridW, socPct, pvEnergyWh, gridImportWh: r.gridImportWh, gridExportWh: r.gridExportWh };
      },
    };
  }

  private advance(now: number): void {
    const s = this.state;
    // The same instant again: nothing moved. A clock stepped back by more than a minute starts afresh
    // (no energy counted) rather than holding the household still until it catches up.
    if (this.lastMs !== undefined && now <= this.lastMs && now >= this.lastMs - 60_000) return;
    const hours = this.lastMs === undefined || now < this.lastMs ? 0 : (now - this.lastMs) / 3_600_000;
    this.lastMs = now;
    s.atMs = now;
    // Energy of the interval just ended, at the powers of its start.
    for (const [name] of this.arrays) s.pvEnergyWh[name]! += s.pvW[name]! * hours;
    for (const [name, spec] of this.batteries) s.socPct[name] = clamp(s.socPct[name]! + (s.batteryW[name]! * hours * 100) / spec.capacityWh, 0, 100);
    for (const name of this.chargers.keys()) s.chargerEnergyWh[name]! += s.chargerW[name]! * hours;
    if (s.gridW > 0) s.gridImportWh += s.gridW * hours;
    else s.gridExportWh += -s.gridW * hours;

    const dayFraction = this.dayFraction(now);
    const sun = Math.sin(Math.PI * (dayFraction * 24 - 6) / 12);
    let pv = 0;
    this.arrays.forEach(([name, peakW], i) => {
      const clouds = 0.85 + 0.15 * Math.sin(now / 7_000 + i * 2.1);
      s.pvW[name] = sun > 0 ? Math.round(peakW * sun * clouds) : 0;
      pv += s.pvW[name]!;
    });
    s.houseW = Math.round(450 + 250 * Math.sin(now / 11_000) + 600 * Math.max(0, Math.sin(Math.PI * (dayFraction * 24 - 17) / 5))
      + 400 * Math.max(0, Math.sin(Math.PI * (dayFraction * 24 - 6.5) / 2.5)));
    let cars = 0;
    for (const [name, draw] of this.chargers) {
      const w = Math.max(0, Math.round(this.past ? this.past.draw(name, now) : draw(now)));
      s.chargerW[name] = w;
      cars += w;
    }
    // The batteries take the surplus and cover the deficit, each in proportion to its power.
    const surplus = pv - s.houseW - cars;
    const totalMax = [...this.batteries.values()].reduce((sum, b) => sum + b.maxW, 0);
    let batteries = 0;
    for (const [name, spec] of this.batteries) {
      let w = totalMax === 0 ? 0 : clamp(Math.round((surplus * spec.maxW) / totalMax), -spec.maxW, spec.maxW);
      if ((w > 0 && s.socPct[name]! >= 100) || (w < 0 && s.socPct[name]! <= (spec.minSocPct ?? 5))) w = 0;
      s.batteryW[name] = w;
      batteries += w;
    }
    s.gridW = s.houseW + cars + batteries - pv;
  }

  /** Where in its day the household is: the real local day before going live, the squeezed one after. */
  private dayFraction(ms: number): number {
    if (ms < this.liveFromMs) return this.localDayFraction(ms);
    return (this.liveStartFraction + (ms - this.liveFromMs) / this.dayLengthMs) % 1;
  }

  private localDayFraction(ms: number): number {
    const parts = this.zone.formatToParts(ms);
    const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
    return (part('hour') * 3600 + part('minute') * 60 + part('second')) / 86_400;
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
