// The demo household of `npm start`: one device of every kind (two of some), with believable data,
// loaded through the same importer installers use. Fixed ids make reseeding idempotent.
import { prepareImport } from '../domain/import.ts';
import { formatTimestamp } from '../domain/time.ts';
import type { Store } from '../store/store.ts';
import { drawCar } from './vehicle-picture.ts';
import { drawHeatPump } from './hvac-picture.ts';
import type { DemoDrivers } from '../sim/demo-sims.ts';

export const DEMO_USER = 'demo-household';
const LOCATION = '6f1c0e56-2d1b-4c55-9a0e-4a4f3b2a9d01';
const CHARGER = '4b9a6e5c-be8f-4dbc-9f7c-5e6f7a8b9c01';
const CARPORT_CHARGER = '4b9a6e5c-be8f-4dbc-9f7c-5e6f7a8b9c02';

/** The demo's devices that are parts of its household's balance (src/sim/demo-household.ts), by id. */
export const DEMO_IDS = {
  garageBattery: '0d5c2a1e-7a4b-4f7e-9b3e-1a2b3c4d5e01',
  cellarBattery: '0d5c2a1e-7a4b-4f7e-9b3e-1a2b3c4d5e02',
  roofInverter: '1e6d3b2f-8b5c-4a8f-8c4f-2b3c4d5e6f01',
  carportInverter: '1e6d3b2f-8b5c-4a8f-8c4f-2b3c4d5e6f02',
  gardenInverter: '1e6d3b2f-8b5c-4a8f-8c4f-2b3c4d5e6f03',
  gridMeter: '2f7e4c3a-9c6d-4b9a-9d5a-3c4d5e6f7a01',
  drivewayCharger: CHARGER,
  carportCharger: CARPORT_CHARGER,
  tariff: '6dbc8a7e-da8b-4fde-9b9e-7a8b9cadbe01',
} as const;

/** `drivers` binds the battery, PV inverters and meter to running simulators (npm start). */
export function demoRecords(nowMs: number, drivers: DemoDrivers = {}): unknown[] {
  const at = (minutesAgo: number) => formatTimestamp(nowMs - minutesAgo * 60_000 - (nowMs % 1000));
  const base = (id: string, minutesAgo: number, isOnline = true) => ({
    id, userId: DEMO_USER, isOnline, lastUpdated: at(minutesAgo), locationId: LOCATION,
  });
  return [
    {
      kind: 'battery', ...base(DEMO_IDS.garageBattery, 1),
      driver: drivers.froniusBattery,
      staticData: { vendor: 'FRONIUS', name: 'Garage battery', model: 'BYD Battery-Box Premium HVS 10.2', siteName: 'Home', batteryCapacity: 10.24 },
      chargeState: { lastUpdated: at(1), mode: 'SELF_CONSUMPTION', chargeRate: 2.35, stateOfCharge: 64, chargeLimitMin: 10, chargeLimitMax: 100, maxChargeRate: 5.1, maxDischargeRate: 5.1, chargingState: 'CHARGING' },
    },
    {
      kind: 'battery', ...base(DEMO_IDS.cellarBattery, 3),
      driver: drivers.huaweiBattery,
      staticData: { vendor: 'HUAWEI', name: 'Cellar battery', model: 'LUNA2000-5-S0', siteName: 'Home', batteryCapacity: 5 },
      chargeState: { lastUpdated: at(3), mode: 'AUTO', chargeRate: -0.8, stateOfCharge: 41, chargeLimitMin: 5, chargeLimitMax: 95, maxChargeRate: 2.5, maxDischargeRate: 2.5, chargingState: 'DISCHARGING' },
    },
    {
      kind: 'pvInverter', ...base(DEMO_IDS.roofInverter, 1),
      driver: drivers.froniusInverter,
      staticData: { vendor: 'FRONIUS', name: 'Roof south', model: 'Symo GEN24 10.0 Plus', siteName: 'Home' },
      powerState: { lastUpdated: at(1), state: 'PRODUCING', solarPower: 4.83 },
    },
    {
      kind: 'pvInverter', ...base(DEMO_IDS.carportInverter, 2),
      driver: drivers.smaInverter,
      staticData: { vendor: 'SMA', name: 'Carport', model: 'Sunny Tripower 8.0', siteName: 'Home' },
      powerState: { lastUpdated: at(2), state: 'PRODUCING', solarPower: 2.11 },
    },
    {
      kind: 'meter', ...base(DEMO_IDS.gridMeter, 1),
      driver: drivers.froniusMeter,
      staticData: { vendor: 'FRONIUS', name: 'Grid connection point', model: 'Smart Meter TS 65A-3', siteName: 'Home' },
    },
    {
      kind: 'hvac', ...base('3a8f5d4b-ad7e-4cab-8e6b-4d5e6f7a8b01', 4), type: 'HEATING_CIRCUIT', driver: drivers.heating,
      staticData: { vendor: 'VAILLANT', name: 'Underfloor heating', model: 'aroTHERM plus VWL 75/6' },
      image: drawHeatPump([235, 235, 230]).toString('base64'),
    },
    {
      kind: 'hvac', ...base('3a8f5d4b-ad7e-4cab-8e6b-4d5e6f7a8b02', 6), type: 'DHW', driver: drivers.hotWater,
      staticData: { vendor: 'DAIKIN', name: 'Hot water tank', model: 'Altherma 3 H HT' },
    },
    {
      kind: 'hvac', ...base('3a8f5d4b-ad7e-4cab-8e6b-4d5e6f7a8b03', 90, false), type: 'THERMOSTAT',
      staticData: { vendor: 'VIESSMANN', name: 'Living room', model: 'Vitocal 250-A' },
    },
    {
      kind: 'charger', ...base(CHARGER, 1), driver: drivers.charger,
      staticData: { vendor: 'GO_E', name: 'Driveway', model: 'go-eCharger Gemini flex 22 kW' },
      chargeState: { lastUpdated: at(1), chargeRate: 7.2, chargeCurrentMax: 16, isPlugged: true, activePhases: 3, chargingState: 'CHARGING' },
    },
    {
      // A Zaptec Go speaking OCPP 1.6J to the hub itself (src/sim/demo-ocpp.ts).
      kind: 'charger', ...base(CARPORT_CHARGER, 1, false), driver: drivers.zaptec,
      staticData: { vendor: 'ZAPTEC', name: 'Carport', model: 'ZAPTEC GO' },
      chargeState: { lastUpdated: at(1), isPlugged: true, chargingState: 'CHARGING' },
    },
    {
      // Two cars and two chargers: the binding says which car charges there (the hub does not guess).
      kind: 'vehicle', ...base('5cab7f6d-cf9a-4ecd-8a8d-6f7a8b9cad01', 2), driver: drivers.car && { ...drivers.car, chargerId: CHARGER },
      staticData: { vendor: 'TESLA', vin: '5YJ3E7EB1KF123456', name: 'Family car', model: 'Model 3 Long Range', engineType: 'BEV', batteryCapacity: 75 },
      image: drawCar([200, 30, 40]).toString('base64'),
    },
    {
      // No driver reaches the VW (its maker's cloud blocks the bridge); it charges at the carport,
      // so its charging is stopped and started through that charger, over OCPP.
      kind: 'vehicle', ...base('5cab7f6d-cf9a-4ecd-8a8d-6f7a8b9cad02', 30, false), driver: { type: 'charger', chargerId: CARPORT_CHARGER },
      staticData: { vendor: 'VW', name: 'Commuter', model: 'ID.4 Pro' },
      image: drawCar([40, 90, 160]).toString('base64'),
    },
    {
      kind: 'tariff', ...base(DEMO_IDS.tariff, 15), driver: drivers.tariff,
      staticData: { vendor: 'TIBBER', countryCode: 'DE', name: 'Dynamic hourly price', currency: 'EUR', lastUpdated: at(15) },
    },
    ...httpDevices(base, drivers),
  ];
}

/**
 * The garden house's Enphase system and the bedroom's Daikin AC, on HTTP simulators
 * (src/sim/demo-sims.ts). They exist only where their simulators run (npm start): the demo
 * household that tests seed without drivers stays as it was.
 */
function httpDevices(base: (id: string, minutesAgo: number) => Record<string, unknown>, drivers: DemoDrivers): unknown[] {
  const out: unknown[] = [];
  if (drivers.enphase) {
    out.push({
      kind: 'pvInverter', ...base(DEMO_IDS.gardenInverter, 1), driver: drivers.enphase,
      staticData: { vendor: 'ENPHASE', name: 'Garden house', model: 'IQ Gateway with 12 IQ8M', siteName: 'Home' },
      powerState: { state: 'IDLE', solarPower: 0 },
    }, {
      kind: 'meter', ...base('2f7e4c3a-9c6d-4b9a-9d5a-3c4d5e6f7a02', 1), driver: drivers.enphase,
      staticData: { vendor: 'ENPHASE', name: 'Garden house CTs', model: 'IQ Gateway consumption CTs', siteName: 'Home' },
    });
  }
  if (drivers.daikinAc) {
    out.push({
      kind: 'hvac', ...base('3a8f5d4b-ad7e-4cab-8e6b-4d5e6f7a8b04', 1), type: 'AC', driver: drivers.daikinAc,
      staticData: { vendor: 'DAIKIN', name: 'Bedroom', model: 'Perfera FTXM25 with BRP069C47' },
    });
  }
  return out;
}

/** Loads (or refreshes) the demo household. Returns how many devices it holds. */
export function seedDemo(store: Store, nowMs: number, drivers: DemoDrivers = {}): number {
  const prepared = prepareImport(demoRecords(nowMs, drivers), nowMs, (id) => store.devices.get(id)?.kind, (cp) => store.ocpp.credential(cp)?.deviceId);
  const fresh = prepared.devices.filter((d) => !store.devices.wasDeleted(d.id));
  const images = new Map([...prepared.images].filter(([id]) => !store.devices.wasDeleted(id)));
  const credentials = prepared.ocppCredentials.filter((c) => !store.devices.wasDeleted(c.deviceId));
  store.importDevices(fresh, images, nowMs, credentials);
  return fresh.length;
}
