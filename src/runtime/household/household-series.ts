// The household's 5-minute curves (issue 25): every few seconds each user's flows are sampled from
// the devices' live values (kept here from the hub's events, not read from the store), averaged over
// the 5 minutes, and the point handed to the store, which keeps 48 hours in memory and writes them in
// batches with the telemetry (src/store/household-series.ts).
//
// Dates (issue 33): a sample is taken on the monotonic clock. While the wall clock is known to be
// wrong (ClockWatch not trusted: 1970, or behind the hub's own newest stored time) samples wait
// undated and are dated once it is set (ClockWatch.wallAt), so no point carries a wrong time and
// none is lost. A step closes the 5 minutes under way: a point never mixes samples of two clocks.
import type { Logger } from 'pino';
import type { DeviceRecord } from '../../domain/device.ts';
import { monotonicMs, type Clock } from '../../domain/time.ts';
import type { Store } from '../../store/store.ts';
import { POINT_MS, SERIES_WINDOW_MS, type HouseholdPoint } from '../../store/household-series.ts';
import type { ClockWatch } from '../clock/clock-watch.ts';
import type { HubEvents } from '../events/hub-events.ts';
import { householdFlows, type HouseholdFlows } from './household-flows.ts';

/** How often the flows are sampled: 30 samples a point, cheap for a few dozen devices. */
export const SAMPLE_MS = 10_000;

const MEANS = ['pvKw', 'homeKw', 'gridKw', 'batteryKw', 'carKw'] as const;

interface Bucket {
  startMs: number;
  sums: Record<(typeof MEANS)[number], number>;
  /** Which values some sample knew: the others stay null (unknown) in the point. */
  known: Set<(typeof MEANS)[number]>;
  samples: number;
  batterySoc: number | null;
  price: number | null;
}

export class HouseholdSeries {
  private readonly devices = new Map<string, DeviceRecord>();
  private readonly buckets = new Map<string, Bucket>();
  /** Samples taken while the clock was not set, per user, by their monotonic time. */
  private readonly undated = new Map<string, { monoMs: number; flows: HouseholdFlows }[]>();
  private off: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: { store: Store; events: HubEvents; clock: Clock; log: Logger; clockWatch?: ClockWatch }) {}

  start(): void {
    for (const device of this.deps.store.devices.all()) this.devices.set(device.id, device);
    this.off = this.deps.events.on((event) => {
      if (event.type === 'command' || event.type === 'price.update') return;
      if (event.type === 'delete') this.devices.delete(event.device.id);
      else this.devices.set(event.device.id, event.device);
    });
    this.timer = setInterval(() => this.sample(), SAMPLE_MS);
    this.timer.unref();
    this.deps.clockWatch?.on('step', this.onStep);
    this.deps.clockWatch?.on('trusted', this.onTrusted);
  }

  /** The clock stepped: the 5 minutes under way end with the samples of the clock before. */
  private readonly onStep = (): void => {
    for (const userId of [...this.buckets.keys()]) this.close(userId);
  };

  /** The clock is set: the samples that waited are dated and become points. */
  private readonly onTrusted = (): void => {
    const watch = this.deps.clockWatch!;
    for (const [userId, samples] of this.undated) {
      for (const { monoMs, flows } of samples) this.add(userId, watch.wallAt(monoMs), flows);
    }
    this.undated.clear();
  };

  /** Stops sampling and hands over the points of the 5 minutes under way (with a last sample), so a restart keeps them. */
  stop(): void {
    if (this.timer) this.sample();
    this.deps.clockWatch?.off('step', this.onStep);
    this.deps.clockWatch?.off('trusted', this.onTrusted);
    this.off?.();
    this.off = undefined;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    for (const userId of [...this.buckets.keys()]) this.close(userId);
  }

  /** A user's flows now, from the devices' latest values. */
  flowsOf(userId: string): HouseholdFlows {
    return householdFlows([...this.devices.values()].filter((d) => d.userId === userId));
  }

  /**
   * Takes one sample of every household; a sample in new 5 minutes closes the point before. The
   * devices are grouped by household in one pass: asking each household for its own devices among
   * all of them was households × devices (3,000 × 10,000 every 10 s on a fleet hub, which slowed
   * every answer while it ran).
   */
  sample(): void {
    const households = new Map<string, DeviceRecord[]>();
    for (const device of this.devices.values()) {
      const own = households.get(device.userId);
      if (own) own.push(device);
      else households.set(device.userId, [device]);
    }
    const watch = this.deps.clockWatch;
    if (watch && !watch.trusted) {
      const monoMs = monotonicMs(this.deps.clock);
      for (const [userId, devices] of households) {
        let samples = this.undated.get(userId);
        if (!samples) this.undated.set(userId, (samples = []));
        samples.push({ monoMs, flows: householdFlows(devices) });
      }
      return;
    }
    const nowMs = this.deps.clock.now();
    for (const [userId, devices] of households) this.add(userId, nowMs, householdFlows(devices));
  }

  /** Adds a user's sample taken at `atMs` (wall time) to its 5 minutes, closing the point before. */
  private add(userId: string, atMs: number, flows: HouseholdFlows): void {
    const startMs = Math.floor(atMs / POINT_MS) * POINT_MS;
    let bucket = this.buckets.get(userId);
    if (bucket && bucket.startMs !== startMs) {
      this.close(userId);
      bucket = undefined;
    }
    if (!bucket) {
      bucket = { startMs, sums: { pvKw: 0, homeKw: 0, gridKw: 0, batteryKw: 0, carKw: 0 }, known: new Set(), samples: 0, batterySoc: null, price: null };
      this.buckets.set(userId, bucket);
    }
    for (const key of MEANS) {
      const value = flows[key];
      if (value === undefined) continue;
      bucket.sums[key] += value;
      bucket.known.add(key);
    }
    bucket.samples++;
    if (flows.batterySoc !== undefined) bucket.batterySoc = flows.batterySoc;
    if (flows.price !== undefined) bucket.price = flows.price;
  }

  private close(userId: string): void {
    const bucket = this.buckets.get(userId);
    this.buckets.delete(userId);
    if (!bucket) return;
    // Over all the samples of the 5 minutes, a value no device gave counting 0 as it did in that
    // sample's house (householdFlows: an offline device counts for nothing), so the means balance as
    // each sample does: PV + grid = battery + car + house (except where a sample's house was held at 0).
    const mean = (key: (typeof MEANS)[number]) => (bucket.known.has(key) ? Math.round((bucket.sums[key] / bucket.samples) * 1000) / 1000 : null);
    const point: HouseholdPoint = {
      startMs: bucket.startMs, pvKw: mean('pvKw'), homeKw: mean('homeKw'), gridKw: mean('gridKw'), batteryKw: mean('batteryKw'), carKw: mean('carKw'),
      batterySoc: bucket.batterySoc, price: bucket.price,
    };
    if (Object.values(point).every((v, i) => i === 0 || v === null)) return; // nothing known: no point
    try {
      // Pruned from a trusted clock only (a clock known to be wrong deletes nothing measured).
      const trusted = !this.deps.clockWatch || this.deps.clockWatch.trusted;
      this.deps.store.householdSeries.add(userId, point, trusted ? this.deps.clock.now() - SERIES_WINDOW_MS : undefined);
    } catch (err) {
      // A card that refuses keeps the point in memory for the next batch (the store reported it).
      if (!this.deps.store.storage.report(err)) this.deps.log.error({ err: { type: (err as Error).name, message: (err as Error).message } }, 'a household point could not be written');
    }
  }
}
