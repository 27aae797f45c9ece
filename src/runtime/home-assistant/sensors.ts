// The values each kind of device shows in Home Assistant as sensors and binary sensors: where each
// comes from in the hub's record, and the device_class, state_class and unit Home Assistant expects
// for it. Kept in the API's units (kW, kWh, %, A, km, °C), all of which Home Assistant takes.
//
// Device classes, state classes and units follow Home Assistant's sensor documentation
// (https://www.home-assistant.io/integrations/sensor/#device-class and the developer docs'
// https://developers.home-assistant.io/docs/core/entity/sensor/): power in W or kW with state class
// `measurement`; energy in Wh or kWh with `total_increasing` (a meter's counter), which is what the
// energy dashboard accepts (homeassistant/components/energy/validate.py); a battery's capacity is
// `energy_storage` (stored energy, `measurement`), not `energy`; an `enum` sensor lists its options.
// A price per kWh has no device class (`monetary` takes a bare currency unit) and a unit ending in
// `/kWh`, which is what the energy dashboard asks of a price entity (validate.py, ENERGY_PRICE_UNITS).
import type { DeviceRecord } from '../../domain/device.ts';
import { formatTimestamp } from '../../domain/time.ts';
import { BATTERY_CHARGING_STATES, CHARGER_CHARGING_STATES, PV_POWER_STATES, type DeviceKind } from '../../domain/vocabulary.ts';
import { quotedCurrency } from '../values/present.ts';

export interface SensorSpec {
  /** The key in the device's state JSON, and the entity's object id. */
  key: string;
  component: 'sensor' | 'binary_sensor';
  name: string;
  read(device: DeviceRecord): unknown;
  /** Offered only once the device has reported it (a vehicle whose bridge has no range, say). */
  whenKnown?: boolean;
  /** Available while the hub runs, even while the device is offline (when it was last heard of). */
  whileHubRuns?: boolean;
  config: Record<string, unknown>;
}

const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const field = (name: string) => (device: DeviceRecord) => device.state?.[name];
const number = (name: string) => (device: DeviceRecord) => num(device.state?.[name]);
/** The first of these fields the device reports (drivers name the same measurement after their maker). */
const firstNumber = (...names: string[]) => (device: DeviceRecord) => names.map((name) => num(device.state?.[name])).find((v) => v !== undefined);
/** A binary sensor's payload: Home Assistant's defaults are ON and OFF (binary_sensor.mqtt docs). */
const onOff = (name: string) => (device: DeviceRecord) => {
  const value = device.state?.[name];
  return typeof value === 'boolean' ? (value ? 'ON' : 'OFF') : undefined;
};

const POWER_KW = { device_class: 'power', state_class: 'measurement', unit_of_measurement: 'kW', suggested_display_precision: 2 };
const ENERGY_KWH = { device_class: 'energy', state_class: 'total_increasing', unit_of_measurement: 'kWh', suggested_display_precision: 2 };
const PERCENT_BATTERY = { device_class: 'battery', state_class: 'measurement', unit_of_measurement: '%' };
const TEMPERATURE = { device_class: 'temperature', state_class: 'measurement', unit_of_measurement: '°C', suggested_display_precision: 1 };
const CURRENT_A = { device_class: 'current', state_class: 'measurement', unit_of_measurement: 'A' };
const enumOf = (options: readonly string[]) => ({ device_class: 'enum', options: [...options] });

const BATTERY: SensorSpec[] = [
  { key: 'state_of_charge', component: 'sensor', name: 'State of charge', read: number('stateOfCharge'), config: PERCENT_BATTERY },
  // chargeRate is signed (negative while discharging); Home Assistant is given two magnitudes.
  {
    key: 'charge_power', component: 'sensor', name: 'Charge power', config: POWER_KW,
    read: (d) => { const rate = num(d.state?.['chargeRate']); return rate === undefined ? undefined : Math.max(0, rate); },
  },
  {
    key: 'discharge_power', component: 'sensor', name: 'Discharge power', config: POWER_KW,
    read: (d) => { const rate = num(d.state?.['chargeRate']); return rate === undefined ? undefined : Math.max(0, -rate); },
  },
  { key: 'charging_state', component: 'sensor', name: 'Charging state', read: field('chargingState'), config: enumOf(BATTERY_CHARGING_STATES) },
  {
    key: 'capacity', component: 'sensor', name: 'Capacity', whenKnown: true, read: (d) => num(d.staticData['batteryCapacity']),
    config: { device_class: 'energy_storage', state_class: 'measurement', unit_of_measurement: 'kWh', entity_category: 'diagnostic' },
  },
];

const PV_INVERTER: SensorSpec[] = [
  { key: 'solar_power', component: 'sensor', name: 'Solar power', read: number('solarPower'), config: POWER_KW },
  { key: 'state', component: 'sensor', name: 'State', read: field('state'), config: enumOf(PV_POWER_STATES) },
];

const METER: SensorSpec[] = [
  // Positive while the house draws from the grid, negative while it feeds in (the hub's convention).
  { key: 'grid_power', component: 'sensor', name: 'Grid power', read: number('power'), config: POWER_KW },
  { key: 'energy_imported', component: 'sensor', name: 'Energy imported', read: number('energyImported'), config: ENERGY_KWH },
  { key: 'energy_exported', component: 'sensor', name: 'Energy exported', read: number('energyExported'), config: ENERGY_KWH },
];

const CHARGER: SensorSpec[] = [
  { key: 'charging_state', component: 'sensor', name: 'Charging state', read: field('chargingState'), config: enumOf(CHARGER_CHARGING_STATES) },
  { key: 'charge_power', component: 'sensor', name: 'Charge power', read: number('chargeRate'), config: POWER_KW },
  { key: 'plugged', component: 'binary_sensor', name: 'Plugged in', read: onOff('isPlugged'), config: { device_class: 'plug' } },
  { key: 'offered_current', component: 'sensor', name: 'Offered current', read: number('chargeCurrentMax'), config: CURRENT_A },
];

const VEHICLE: SensorSpec[] = [
  { key: 'state_of_charge', component: 'sensor', name: 'State of charge', whenKnown: true, read: number('stateOfCharge'), config: PERCENT_BATTERY },
  {
    key: 'range', component: 'sensor', name: 'Range', whenKnown: true, read: number('rangeKm'),
    config: { device_class: 'distance', state_class: 'measurement', unit_of_measurement: 'km', suggested_display_precision: 0 },
  },
  { key: 'charging_state', component: 'sensor', name: 'Charging state', whenKnown: true, read: field('chargingState'), config: enumOf(CHARGER_CHARGING_STATES) },
  { key: 'charge_power', component: 'sensor', name: 'Charge power', whenKnown: true, read: number('chargeRate'), config: POWER_KW },
  { key: 'plugged', component: 'binary_sensor', name: 'Plugged in', whenKnown: true, read: onOff('isPlugged'), config: { device_class: 'plug' } },
  {
    key: 'charge_limit', component: 'sensor', name: 'Charge limit', whenKnown: true, read: number('chargeLimit'),
    config: { unit_of_measurement: '%', state_class: 'measurement', entity_category: 'diagnostic' },
  },
];

// The climate entity carries the room (or water) temperature and the setpoint; these are the rest.
const HVAC: SensorSpec[] = [
  { key: 'outside_temperature', component: 'sensor', name: 'Outside temperature', whenKnown: true, read: number('outsideTemperature'), config: TEMPERATURE },
  // The water a heat pump sends to the heating: Viessmann's flow temperature (open3e), Daikin's
  // leaving water temperature (ESPAltherma's R1T), one sensor whichever the driver stores.
  { key: 'flow_temperature', component: 'sensor', name: 'Flow temperature', whenKnown: true, read: firstNumber('flowTemperature', 'leavingWaterTemperature'), config: TEMPERATURE },
  { key: 'water_temperature', component: 'sensor', name: 'Water temperature', whenKnown: true, read: number('waterTemperature'), config: TEMPERATURE },
];

const TARIFF: SensorSpec[] = [
  {
    key: 'price', component: 'sensor', name: 'Current price', read: number('pricePerKwh'),
    config: { state_class: 'measurement', suggested_display_precision: 4 },
  },
];

/**
 * Every device has this one, so that every device appears in Home Assistant even before it reports
 * anything (a car no bridge reads): when the hub last heard of it, a `timestamp` sensor (an ISO 8601
 * time with its zone, the sensor documentation's format).
 */
const LAST_UPDATED: SensorSpec = {
  key: 'last_updated', component: 'sensor', name: 'Last updated', whileHubRuns: true,
  read: (d) => (d.lastUpdatedMs === null ? undefined : formatTimestamp(d.lastUpdatedMs)),
  config: { device_class: 'timestamp', entity_category: 'diagnostic' },
};

export const SENSORS: Record<DeviceKind, readonly SensorSpec[]> = {
  battery: [...BATTERY, LAST_UPDATED], pvInverter: [...PV_INVERTER, LAST_UPDATED], meter: [...METER, LAST_UPDATED],
  charger: [...CHARGER, LAST_UPDATED], vehicle: [...VEHICLE, LAST_UPDATED], hvac: [...HVAC, LAST_UPDATED], tariff: [...TARIFF, LAST_UPDATED],
};

/** The currency a tariff quotes in: what its feed says, else its static data (EUR when neither). */
export function tariffCurrency(device: DeviceRecord): string {
  return quotedCurrency(device) ?? 'EUR';
}

/** The sensors a device is offered now: every one of its kind, less those it has not reported yet. */
export function offeredSensors(device: DeviceRecord): SensorSpec[] {
  return SENSORS[device.kind].filter((spec) => !spec.whenKnown || spec.read(device) !== undefined);
}
