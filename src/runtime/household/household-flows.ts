// What a household does right now, from its devices' live values: PV production, the grid, the
// battery, the car, and what the house itself draws. The live page shows it and the 5-minute curves
// are made of it. Offline devices count for nothing: their last values are stale.
import type { DeviceRecord } from '../../domain/device.ts';

/** kW; grid positive while importing, battery positive while charging. Undefined: no device says. */
export interface HouseholdFlows {
  pvKw?: number;
  gridKw?: number;
  batteryKw?: number;
  /** Mean charge level of the batteries, %. */
  batterySoc?: number;
  /** What online chargers draw, and cars that no charger of the household serves (each car once). */
  carKw?: number;
  carSoc?: number;
  /** PV + grid − battery − car: what the house itself draws (never below 0). */
  homeKw?: number;
  /** The price in force, currency per kWh. */
  price?: number;
}

const number = (state: Record<string, unknown> | null, name: string): number | undefined => {
  const value = state?.[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
};

function sum(values: (number | undefined)[]): number | undefined {
  const known = values.filter((v): v is number => v !== undefined);
  return known.length === 0 ? undefined : known.reduce((a, b) => a + b, 0);
}

function mean(values: (number | undefined)[]): number | undefined {
  const known = values.filter((v): v is number => v !== undefined);
  return known.length === 0 ? undefined : known.reduce((a, b) => a + b, 0) / known.length;
}

/**
 * The flows of one user's devices. The grid is the meter whose binding says `role: grid`, else the
 * only meter (as hourly consumption takes it, see tariff-ledger.ts).
 */
export function householdFlows(devices: readonly DeviceRecord[]): HouseholdFlows {
  const online = devices.filter((d) => d.isOnline);
  const of = (kind: DeviceRecord['kind']) => online.filter((d) => d.kind === kind);
  const meters = devices.filter((d) => d.kind === 'meter');
  const grid = meters.find((m) => m.driver?.['role'] === 'grid') ?? (meters.length === 1 ? meters[0] : undefined);
  const flows: HouseholdFlows = {};
  const set = (key: keyof HouseholdFlows, value: number | undefined, digits = 3) => {
    if (value !== undefined) flows[key] = Math.round(value * 10 ** digits) / 10 ** digits;
  };
  const pvKw = sum(of('pvInverter').map((d) => number(d.state, 'solarPower')));
  const gridKw = grid?.isOnline ? number(grid.state, 'power') : undefined;
  const batteries = of('battery');
  const batteryKw = sum(batteries.map((d) => number(d.state, 'chargeRate')));
  const chargers = of('charger');
  const vehicles = of('vehicle');
  // A car whose binding names one of the household's chargers is counted in that charger's power
  // (the charger measures what the car takes); only a car no charger serves counts its own rate.
  const chargerIds = new Set(devices.filter((d) => d.kind === 'charger').map((d) => d.id));
  const unserved = vehicles.filter((v) => !(typeof v.driver?.['chargerId'] === 'string' && chargerIds.has(v.driver['chargerId'])));
  const carKw = sum([...chargers, ...unserved].map((d) => number(d.state, 'chargeRate')));
  set('pvKw', pvKw);
  set('gridKw', gridKw);
  set('batteryKw', batteryKw);
  set('batterySoc', mean(batteries.map((d) => number(d.state, 'stateOfCharge'))), 1);
  set('carKw', carKw);
  set('carSoc', mean(vehicles.map((d) => number(d.state, 'stateOfCharge'))), 1);
  if (gridKw !== undefined || pvKw !== undefined) set('homeKw', Math.max(0, (pvKw ?? 0) + (gridKw ?? 0) - (batteryKw ?? 0) - (carKw ?? 0)));
  set('price', mean(of('tariff').map((d) => number(d.state, 'pricePerKwh'))), 4);
  return flows;
}
