// Turns the hub's records into the exact JSON shapes of the specification. Absent values are left
// out rather than sent as null.
import type { DeviceRecord } from '../../domain/device.ts';
import type { CommandRecord } from '../../store/commands.ts';
import type { Page } from '../../store/devices.ts';
import type { HouseholdPoint } from '../../store/household-series.ts';
import { formatTimestamp } from '../../domain/time.ts';
import { capableModes, currentMode, type Offers } from '../commands/hvac-modes.ts';

type Json = Record<string, unknown>;

// Absent fields are not added rather than deleted afterwards: `delete` turns an object into a slow
// dictionary, which then costs more to fill and to serialise on every request.
function set(object: Json, key: string, value: unknown): void {
  if (value !== null && value !== undefined) object[key] = value;
}

function time(ms: number | null): string | undefined {
  return ms === null ? undefined : formatTimestamp(ms);
}

function core(device: DeviceRecord): Json {
  const out: Json = { id: device.id, userId: device.userId, isOnline: device.isOnline };
  set(out, 'lastUpdated', time(device.lastUpdatedMs));
  set(out, 'locationId', device.locationId);
  return out;
}

/** staticData with vendor, name and model put back in (and `shown` values), in the specification's field order. */
function staticData(device: DeviceRecord, order: readonly string[], shown: Json = {}): Json {
  const out: Json = {};
  for (const key of order) {
    set(out, key, key in shown ? shown[key] : key === 'vendor' ? device.vendor : key === 'name' ? device.name : key === 'model' ? device.model : device.staticData[key]);
  }
  return out;
}

export function batteryDetail(device: DeviceRecord): Json {
  const out = core(device);
  out['staticData'] = staticData(device, ['lastUpdated', 'vendor', 'name', 'model', 'siteName', 'batteryCapacity']);
  set(out, 'chargeState', reportedState(device));
  return out;
}

export function chargerDetail(device: DeviceRecord): Json {
  const out = core(device);
  set(out, 'chargeState', reportedState(device));
  out['staticData'] = staticData(device, ['lastUpdated', 'vendor', 'model', 'name']);
  return out;
}

export function pvInverterDetail(device: DeviceRecord): Json {
  const out = core(device);
  out['staticData'] = staticData(device, ['lastUpdated', 'vendor', 'name', 'model', 'siteName']);
  set(out, 'powerState', reportedState(device));
  return out;
}

/**
 * The state object of a battery, charger or PV inverter as stored, once the device has reported a
 * value: with its lastUpdated, absent before (origin §2.3/§2.4 make it optional and its lastUpdated
 * required; `{}` said neither). The time is the state's own, else the device's; values imported
 * with no time at all are dated when the hub took them in, never dropped.
 */
function reportedState(device: DeviceRecord): Json | undefined {
  const { lastUpdated, ...values } = device.state ?? {};
  if (Object.keys(values).length === 0) return undefined;
  const stamp = typeof lastUpdated === 'string' ? lastUpdated : formatTimestamp(device.lastUpdatedMs ?? device.createdAtMs);
  return { lastUpdated: stamp, ...values };
}

export function tariffDetail(device: DeviceRecord): Json {
  const out = core(device);
  // The API has no state object for a tariff: the currency its feed quotes in (evcc's site/currency,
  // else the binding's configured currency) is kept with the price, and shown here ahead of an
  // imported one. Home Assistant's price unit reads the same (tariffCurrency).
  out['staticData'] = staticData(device, ['vendor', 'countryCode', 'name', 'currency', 'lastUpdated'], { currency: quotedCurrency(device) });
  return out;
}

/**
 * An object of live values, `{lastUpdated, …}`, from the device's state: each API field from the
 * first state field that holds a value (`convert` may turn it into the API's unit), or undefined when
 * none does, so that a value the device does not report is absent rather than invented. Its
 * `lastUpdated` is the state's: when the device last reported a change.
 */
function liveObject(device: DeviceRecord, fields: Record<string, readonly string[] | ((state: Json) => unknown)>): Json | undefined {
  const state = device.state;
  if (!state) return undefined;
  const out: Json = {};
  let any = false;
  for (const [key, from] of Object.entries(fields)) {
    const value = typeof from === 'function' ? from(state) : from.map((name) => state[name]).find((v) => v !== undefined && v !== null);
    if (value === undefined || value === null) continue;
    out[key] = value;
    any = true;
  }
  if (!any) return undefined;
  const stamp = typeof state['lastUpdated'] === 'string' ? state['lastUpdated'] : time(device.lastUpdatedMs);
  return stamp === undefined ? undefined : { lastUpdated: stamp, ...out };
}

const wholeNumber = (name: string, factor = 1) => (state: Json) => {
  const value = state[name];
  return typeof value === 'number' && Number.isFinite(value) ? Math.round(value * factor) : undefined;
};

/** The vehicle's bridges name its values like a charger's (drivers/mqtt/teslamate.ts, carconnectivity.ts). */
export function vehicleDetail(device: DeviceRecord): Json {
  const out = core(device);
  const fixed = staticData(device, ['lastUpdated', 'vendor', 'vin', 'model', 'name', 'engineType', 'batteryCapacity', 'vehicleVariant']);
  // A bridge that reaches the car by its VIN (CarConnectivity) knows it even when the installer did not write it.
  const boundVin = device.driver?.['vin'];
  if (fixed['vin'] === undefined && typeof boundVin === 'string') fixed['vin'] = boundVin;
  out['staticData'] = fixed;
  set(out, 'chargeState', liveObject(device, {
    stateOfCharge: ['stateOfCharge'],
    estimatedRange: wholeNumber('rangeKm'),
    chargeRate: ['chargeRate'],
    chargeLimitMin: ['chargeLimitMin'],
    chargeLimitMax: ['chargeLimit', 'chargeLimitMax'],
    chargingTimeRemaining: wholeNumber('chargingTimeRemainingMinutes'),
    chargeCurrentMax: ['chargeCurrentMax'],
    isPlugged: ['isPlugged'],
    remoteChargingAllowed: ['remoteChargingAllowed'],
    chargingState: ['chargingState'],
    scheduledChargingStartTime: ['scheduledChargingStartTime'],
    scheduledDepartureTime: ['scheduledDepartureTime'],
  }));
  set(out, 'odometer', liveObject(device, { odometer: wholeNumber('odometerKm') }));
  const location = liveObject(device, { latitude: ['latitude'], longitude: ['longitude'] });
  if (location && location['latitude'] !== undefined && location['longitude'] !== undefined) out['location'] = location;
  set(out, 'climateState', liveObject(device, {
    isClimateOn: ['isClimateOn'],
    isBatteryHeaterOn: ['isBatteryHeaterOn'],
    temperatureCurrent: ['insideTemperature'],
    temperatureTarget: ['climateTargetTemperature'],
  }));
  return out;
}

/**
 * An HVAC unit: its modes and the mode it is in come from its driver (`offers`, what the command
 * worker can carry out on it); without a driver there are none. The setpoint a driver reads
 * (`targetTemperature`) is the one SET_TEMPERATURE writes: the heating setpoint of a unit that only
 * heats, else that of the mode it is in; a set-back setpoint is REDUCED's.
 */
export function hvacDetail(device: DeviceRecord, offersOf: OffersOf = () => NO_OFFERS): Json {
  const out = core(device);
  const offers = offersOf(device);
  const fixed = staticData(device, ['lastUpdated', 'vendor', 'name', 'model', 'room']);
  fixed['capableModes'] = capableModes(offers);
  set(fixed, 'type', device.hvacType);
  out['staticData'] = fixed;
  const mode = currentMode(device, offers);
  set(out, 'climateState', liveObject(device, {
    mode: () => mode,
    isActive: () => (mode === undefined ? undefined : mode !== 'OFF'),
    // A hot-water unit's temperature is its tank's, even when its driver also reads a room sensor
    // (ESPAltherma publishes both for one Altherma).
    temperatureCurrent: device.hvacType === 'DHW' ? ['waterTemperature', 'roomTemperature'] : ['roomTemperature', 'waterTemperature'],
    temperatureOutside: ['outsideTemperature'],
    temperatureTargets: (state) => temperatureTargets(device, state, mode),
  }));
  set(out, 'powerState', liveObject(device, { powerConsumption: ['powerConsumption'] }));
  return out;
}

const NO_OFFERS: Offers = new Map();

function temperatureTargets(device: DeviceRecord, state: Json, mode: string | undefined): Json[] | undefined {
  const targets: Json[] = [];
  const setpoints = device.hvacType === 'DHW' ? [state['waterTargetTemperature'], state['targetTemperature']] : [state['targetTemperature'], state['waterTargetTemperature']];
  const setpoint = setpoints.find((v) => typeof v === 'number');
  const heatsOnly = device.hvacType !== 'AC';
  const setpointMode = heatsOnly ? 'HEAT' : mode !== undefined && mode !== 'OFF' ? mode : undefined;
  if (typeof setpoint === 'number' && setpointMode) targets.push({ mode: setpointMode, temperature: setpoint });
  const reduced = state['reducedTemperature'];
  if (typeof reduced === 'number') targets.push({ mode: 'REDUCED', temperature: reduced });
  return targets.length > 0 ? targets : undefined;
}

/** A meter: its power (positive while drawing from the grid) and its import counter. */
export function meterDetail(device: DeviceRecord): Json {
  const out = core(device);
  out['staticData'] = staticData(device, ['lastUpdated', 'vendor', 'name', 'model', 'siteName']);
  set(out, 'powerState', liveObject(device, { power: ['power'], meterValue: ['energyImported'] }));
  return out;
}

/** What a device's driver can do, asked only when a detail is rendered anew. */
export type OffersOf = (device: DeviceRecord) => Offers;

/** The ISO 4217 code a tariff's prices are in: what its driver reported, else its static data. */
export function quotedCurrency(device: DeviceRecord): string | undefined {
  for (const value of [device.state?.['currency'], device.staticData['currency']]) {
    if (typeof value === 'string' && /^[A-Z]{3}$/.test(value)) return value;
  }
  return undefined;
}

const DETAIL: Record<DeviceRecord['kind'], (device: DeviceRecord, offersOf?: OffersOf) => Json> = {
  battery: batteryDetail, charger: chargerDetail, pvInverter: pvInverterDetail, tariff: tariffDetail,
  vehicle: vehicleDetail, hvac: hvacDetail, meter: meterDetail,
};
const detailTexts = new WeakMap<DeviceRecord, string>();

/** A device's detail object, as GET of its detail answers it (the events carry the same). */
export function detail(device: DeviceRecord, offersOf?: OffersOf): Json {
  return DETAIL[device.kind](device, offersOf);
}

/**
 * A device's detail body as JSON text, remembered per record: the store hands out the same frozen
 * record until the device changes (DeviceRepository.get), and a changed device is a new record, so
 * a remembered text is never stale. A record not from the store is rendered and soon forgotten.
 * `offersOf` tells what the device's driver can do (an HVAC unit's modes); that follows its binding,
 * which is part of the record.
 */
export function detailJson(device: DeviceRecord, offersOf?: OffersOf): string {
  let text = detailTexts.get(device);
  if (text === undefined) {
    text = JSON.stringify(DETAIL[device.kind](device, offersOf));
    detailTexts.set(device, text);
  }
  return text;
}

/** A list item: the summary fields, with the battery's chargingState or the HVAC's type. */
export function listItem(device: DeviceRecord): Json {
  const item: Json = { id: device.id, userId: device.userId, vendor: device.vendor };
  set(item, 'name', device.name);
  item['isOnline'] = device.isOnline;
  set(item, 'model', device.model);
  set(item, 'lastUpdated', time(device.lastUpdatedMs));
  if (device.kind === 'battery') {
    const chargingState = device.state?.['chargingState'];
    if (typeof chargingState === 'string') item['chargingState'] = chargingState;
  }
  if (device.kind === 'hvac') set(item, 'type', device.hvacType);
  if (device.kind === 'vehicle') set(item, 'vin', device.staticData['vin'] ?? device.driver?.['vin']);
  return item;
}

const itemTexts = new WeakMap<DeviceRecord, string>();

/** A list page as JSON text; each item rendered once per record, as detailJson() does. */
export function pageJson(result: Page<DeviceRecord>, size: number): string {
  let content = '';
  for (const device of result.items) {
    let text = itemTexts.get(device);
    if (text === undefined) {
      text = JSON.stringify(listItem(device));
      itemTexts.set(device, text);
    }
    content += content === '' ? text : `,${text}`;
  }
  return `{"content":[${content}],"totalElements":${result.total},"totalPages":${Math.ceil(result.total / size)}}`;
}

/**
 * A Command. Its times are kept to the millisecond and shown in whole seconds, like every time of
 * the API (formatTimestamp); nothing orders or filters commands by time (their order is `seq`).
 */
export function command(record: CommandRecord): Json {
  const out: Json = {
    id: record.id,
    createdAt: formatTimestamp(record.createdAtMs),
    state: record.state,
    type: record.type,
    userId: record.userId,
    deviceId: record.deviceId,
    lastUpdated: formatTimestamp(record.lastUpdatedMs),
  };
  set(out, 'failedReason', record.failedReason);
  set(out, 'waitingReason', record.waitingReason);
  return out;
}

/** A user's 5-minute points as the API shows them (HouseholdSeries): unknown values left out. */
export function householdSeriesJson(userId: string, points: readonly HouseholdPoint[]): Json {
  return {
    userId,
    resolutionMinutes: 5,
    points: points.map((p) => {
      const out: Json = { startDate: formatTimestamp(p.startMs) };
      set(out, 'pvPower', p.pvKw);
      set(out, 'consumptionPower', p.homeKw);
      set(out, 'gridPower', p.gridKw);
      set(out, 'batteryPower', p.batteryKw);
      set(out, 'carPower', p.carKw);
      set(out, 'batteryStateOfCharge', p.batterySoc);
      set(out, 'price', p.price);
      return out;
    }),
  };
}
