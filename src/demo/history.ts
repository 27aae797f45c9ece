// The demo's past: 48 hours of the household, so its curves, its hourly consumption with cost and a
// few commands show on the first screen. Nothing here is written by hand: the household model runs
// over the past (src/sim/household-model.ts runPast), and each instant's readings go, as device
// updates with past timestamps, through the same code as live data: the household's 5-minute curves
// (HouseholdSeries), the tariff ledger's prices and hourly counters (TariffLedger), and commands
// created as the API creates them. Its events go to a bus of its own, so no listener of the running
// hub mistakes the past for news.
import type { Logger } from 'pino';
import type { DeviceRecord } from '../domain/device.ts';
import { HubEvents } from '../runtime/events/hub-events.ts';
import { HouseholdSeries } from '../runtime/household/household-series.ts';
import { TariffLedger } from '../runtime/household/tariff-ledger.ts';
import { createCommand } from '../runtime/commands/create-command.ts';
import { POINT_MS } from '../store/household-series.ts';
import type { Store } from '../store/store.ts';
import type { HouseholdReading } from '../sim/household-model.ts';
import { CARPORT, dayAheadPrice, DRIVEWAY } from '../sim/demo-household.ts';
import { DEMO_IDS, DEMO_USER } from './site.ts';

const TESLA = '5cab7f6d-cf9a-4ecd-8a8d-6f7a8b9cad01';

export interface DemoHistory {
  /** The household's 5-minute points after writing. */
  points: number;
  commands: number;
}

/**
 * Records what the demo's devices reported over its past (`past`: the household's readings, oldest
 * first, up to `nowMs`: src/sim/demo-household.ts demoPast). Points the household already has (a demo
 * started again on its data directory) are kept, only later ones are added; the tariff ledger keeps
 * its first counter of each hour; commands are added only while the car has none.
 */
export function writeDemoHistory(store: Store, past: readonly HouseholdReading[], nowMs: number, log: Logger): DemoHistory {
  const fromMs = past[0]?.atMs ?? nowMs;
  const lastPoint = store.householdSeries.read(DEMO_USER, fromMs).at(-1)?.startMs;
  // The 5 minutes under way are the live series' own.
  const seriesFromMs = lastPoint === undefined ? fromMs : lastPoint + POINT_MS;
  const seriesToMs = Math.floor(nowMs / POINT_MS) * POINT_MS;
  let clockMs = fromMs;
  const clock = { now: () => clockMs, monotonicMs: () => performance.now() };
  const events = new HubEvents();
  const series = seriesFromMs < seriesToMs ? new HouseholdSeries({ store, events, clock, log }) : undefined;
  const ledger = new TariffLedger(store, events);
  series?.start();
  ledger.start();
  // Only the demo household's past is made here.
  for (const device of store.devices.all()) if (device.userId !== DEMO_USER) events.emit({ type: 'delete', device, atMs: fromMs });
  const devices = new Map(store.devices.all().filter((d) => d.userId === DEMO_USER).map((d) => [d.id, d]));
  const car = devices.get(TESLA);
  const withCommands = car !== undefined && store.commands.ofDeviceId(TESLA, 'ALL').length === 0;
  let commands = 0;
  let charging = false;
  try {
    for (const reading of past) {
      clockMs = reading.atMs;
      for (const [id, state] of pastStates(reading)) {
        const device = devices.get(id);
        if (device) events.emit({ type: 'update', device: { ...device, isOnline: true, state, lastUpdatedMs: reading.atMs }, atMs: reading.atMs });
      }
      if (reading.atMs >= seriesFromMs && reading.atMs < seriesToMs) series?.sample();
      // The evening charge was started and stopped from the app: the car's commands, carried out.
      const nowCharging = (reading.chargerW[DRIVEWAY] ?? 0) > 0;
      if (withCommands && nowCharging !== charging) {
        pastCommand(store, car, nowCharging ? 'CHARGING_START' : 'CHARGING_STOP', reading.atMs, log);
        commands++;
      }
      charging = nowCharging;
    }
  } finally {
    ledger.stop();
    // Closes the past's last point (stop() samples once more: still inside that point).
    clockMs = seriesToMs - 1;
    series?.stop();
    store.householdSeries.persist();
  }
  return { points: store.householdSeries.read(DEMO_USER, fromMs).length, commands };
}

/** What each device of the household's balance reported at a past instant, in its driver's field names. */
function pastStates(r: HouseholdReading): [string, Record<string, unknown>][] {
  const kw = (w: number) => Math.round(w) / 1000;
  const pv = (w: number) => ({ solarPower: kw(w), state: w > 0 ? 'PRODUCING' : 'IDLE' });
  const battery = (w: number, soc: number) => ({ chargeRate: kw(w), stateOfCharge: Math.round(soc * 10) / 10, chargingState: w > 0 ? 'CHARGING' : w < 0 ? 'DISCHARGING' : 'IDLE' });
  const charger = (w: number) => ({ chargeRate: kw(w), isPlugged: true, chargingState: w > 0 ? 'CHARGING' : 'STOPPED' });
  return [
    [DEMO_IDS.roofInverter, pv(r.pvW['roof']!)],
    [DEMO_IDS.carportInverter, pv(r.pvW['carport']!)],
    [DEMO_IDS.gardenInverter, pv(r.pvW['garden']!)],
    [DEMO_IDS.garageBattery, battery(r.batteryW['garage']!, r.socPct['garage']!)],
    [DEMO_IDS.cellarBattery, battery(r.batteryW['cellar']!, r.socPct['cellar']!)],
    [DEMO_IDS.gridMeter, { power: kw(r.gridW), energyImported: Math.round(r.gridImportWh) / 1000 }],
    [DEMO_IDS.drivewayCharger, charger(r.chargerW[DRIVEWAY] ?? 0)],
    [DEMO_IDS.carportCharger, charger(r.chargerW[CARPORT] ?? 0)],
    [DEMO_IDS.tariff, { pricePerKwh: dayAheadPrice(r.atMs) }],
  ];
}

/** A command created as the API creates one, at a past instant, and carried out a few seconds later. */
function pastCommand(store: Store, car: DeviceRecord, type: 'CHARGING_START' | 'CHARGING_STOP', atMs: number, log: Logger): void {
  const quiet = log.child({}, { level: 'warn' });
  createCommand({
    store, log: quiet, ttlMs: 3_600_000,
    clock: { now: () => atMs, monotonicMs: () => performance.now() },
    commandCreated: (command) => {
      store.commands.markStarted(command.id, atMs + 1000);
      store.commands.complete(command.id, 'EXECUTED', null, atMs + 4000);
    },
  }, car, type, undefined, 'demo-history');
}
