// The examples of the OpenAPI document (and so of /docs): real responses, made by the presenters the
// API answers with (src/runtime/values/present.ts) over one believable household, rather than values a
// schema walk makes up (a charging-stop answer of type SET_TEMPERATURE, a plugged charger that is
// UNPLUGGED, URLs the hub never serves). test/api/openapi-examples.test.ts holds them to their
// schemas and to each other.
import type { DeviceRecord } from '../domain/device.ts';
import type { CommandType } from '../domain/vocabulary.ts';
import type { VendorCatalog } from '../domain/vendors.ts';
import type { CommandRecord } from '../store/commands.ts';
import type { Offers } from '../runtime/commands/hvac-modes.ts';
import type { CommandShape } from '../runtime/commands/executor.ts';
import { parseTimestamp } from '../domain/time.ts';
import { batteryDetail, chargerDetail, command, householdSeriesJson, hvacDetail, meterDetail, pageJson, pvInverterDetail, tariffDetail, vehicleDetail } from '../runtime/values/present.ts';
import { consumptionPage, priceList } from '../runtime/household/tariff-ledger.ts';
import { refusal } from '../runtime/commands/command-check.ts';
import { NO_SCHEDULE_PATH } from './routes/vehicles.ts';

/** What an operation's examples are: its success body, and its request body when it takes one. */
export interface OperationExample {
  response?: unknown;
  request?: unknown;
}

const USER = 'household-1';
const AT = parseTimestamp('2026-11-07T05:31:56Z')!;
const LOCATION = '6f1c0e56-2d1b-4c55-9a0e-4a4f3b2a9d01';
/** A connect session's token: 24 random bytes in base64url, as the store makes them. */
const TOKEN = 'q3VjZ0b9Jm1xR8tYw2LhN5pDc7eKf4Ga';

function device(kind: DeviceRecord['kind'], id: string, vendor: string, name: string, model: string | null, more: Partial<DeviceRecord> = {}): DeviceRecord {
  return {
    id, kind, userId: USER, vendor, name, model, isOnline: true, lastUpdatedMs: AT - 60_000, locationId: LOCATION, hvacType: null,
    staticData: { lastUpdated: '2026-11-01T09:12:00Z' }, state: null, driver: null, createdAtMs: AT, ...more,
  };
}

const BATTERY = device('battery', '0d5c2a1e-7a4b-4f7e-9b3e-1a2b3c4d5e01', 'FRONIUS', 'Garage battery', 'BYD Battery-Box Premium HVS 10.2', {
  staticData: { lastUpdated: '2026-11-01T09:12:00Z', siteName: 'Home', batteryCapacity: 10.24 },
  state: { lastUpdated: '2026-11-07T05:30:56Z', mode: 'SELF_CONSUMPTION', chargeRate: 2.35, stateOfCharge: 64, chargeLimitMin: 10, chargeLimitMax: 100, maxChargeRate: 5.1, maxDischargeRate: 5.1, chargingState: 'CHARGING' },
});
const PV_INVERTER = device('pvInverter', '1e6d3b2f-8b5c-4a8f-8c4f-2b3c4d5e6f01', 'FRONIUS', 'Roof south', 'Symo GEN24 10.0 Plus', {
  staticData: { lastUpdated: '2026-11-01T09:12:00Z', siteName: 'Home' },
  state: { lastUpdated: '2026-11-07T05:30:56Z', state: 'PRODUCING', solarPower: 4.83 },
});
const METER = device('meter', '2f7e4c3a-9c6d-4b9a-9d5a-3c4d5e6f7a01', 'FRONIUS', 'Grid connection point', 'Smart Meter TS 65A-3', {
  staticData: { lastUpdated: '2026-11-01T09:12:00Z', siteName: 'Home' },
  state: { lastUpdated: '2026-11-07T05:30:56Z', power: 5.08, energyImported: 18238.791 },
});
/** A Vaillant heating zone through ebusd, in automatic mode (its time program), as its driver reports it. */
const HVAC = device('hvac', '3a8f5d4b-ad7e-4cab-8e6b-4d5e6f7a8b01', 'VAILLANT', 'Underfloor heating', 'aroTHERM plus VWL 75/6', {
  hvacType: 'HEATING_CIRCUIT',
  staticData: { lastUpdated: '2026-11-01T09:12:00Z', room: 'Ground floor' },
  state: { lastUpdated: '2026-11-07T05:30:56Z', opMode: 'auto', roomTemperature: 20.4, outsideTemperature: 3.5, targetTemperature: 21, reducedTemperature: 17 },
});
const CHARGER = device('charger', '4b9a6e5c-be8f-4dbc-9f7c-5e6f7a8b9c01', 'GO_E', 'Driveway', 'go-eCharger Gemini flex 22 kW', {
  state: { lastUpdated: '2026-11-07T05:30:56Z', chargeRate: 7.2, chargeCurrentMax: 16, isPlugged: true, activePhases: 3, chargingState: 'CHARGING' },
});
/** A Tesla through TeslaMate, charging at the driveway charger. */
const VEHICLE = device('vehicle', '5cab7f6d-cf9a-4ecd-8a8d-6f7a8b9cad01', 'TESLA', 'Family car', 'Model 3 Long Range', {
  staticData: { lastUpdated: '2026-11-01T09:12:00Z', vin: '5YJ3E7EB2KF123456', engineType: 'BEV', batteryCapacity: 75 },
  state: {
    lastUpdated: '2026-11-07T05:30:56Z', stateOfCharge: 58, rangeKm: 271.4, chargeRate: 7.1, chargeLimit: 80, chargingTimeRemainingMinutes: 139.2,
    chargeCurrentMax: 16, isPlugged: true, chargingState: 'CHARGING', odometerKm: 48213.6, latitude: 52.5201, longitude: 13.4049,
    isClimateOn: false, insideTemperature: 9.5,
  },
});
const TARIFF = device('tariff', '6dbc8a7e-da8b-4fde-9b9e-7a8b9cadbe01', 'TIBBER', 'Dynamic hourly price', null, {
  staticData: { countryCode: 'DE', currency: 'EUR', lastUpdated: '2026-11-07T05:00:00Z' },
  state: { lastUpdated: '2026-11-07T05:00:12Z', pricePerKwh: 0.3127 },
});

/**
 * What the ebusd driver of a Vaillant zone (drivers/mqtt/ebusd-vaillant.ts) offers the command worker,
 * as the MQTT runtime tells it (MqttRuntime.commandShape). Written out because the API layer does not
 * import drivers; test/api/openapi-examples.test.ts holds it equal to the driver's own.
 */
export const EXAMPLE_HVAC_OFFERS: Offers = new Map<CommandType, CommandShape>([
  ['SET_TEMPERATURE', { value: { from: 'payload', field: 'temperature', min: 5, max: 30, digits: 1 }, stateField: 'targetTemperature' }],
  ['SET_MODE', { value: { from: 'payload-enum', field: 'mode', map: { AUTO: 'auto', HEAT: 'day', REDUCED: 'night', OFF: 'off' } }, stateField: 'opMode' }],
  ['SET_SCHEDULE', { value: { from: 'schedule', encoder: 'ebusd-vaillant-timer' }, stateField: 'timerSunday' }],
]);
const HVAC_OFFERS = EXAMPLE_HVAC_OFFERS;
/** The vehicle's charging commands are the go-e charger's it charges at (CommandWorker.offers). */
const VEHICLE_OFFERS: Offers = new Map((['CHARGING_START', 'CHARGING_STOP', 'SET_CHARGING_CURRENT'] as const).map((type) => [type, {}]));

const HOUR_MS = 3_600_000;
const HOUR = Math.floor(AT / HOUR_MS) * HOUR_MS;
/** The tariff's hourly prices as the ledger keeps them, and the grid meter's counter at each hour's start, newest first. */
const PRICES = [0.2841, 0.2796, 0.2912, 0.3127].map((totalPrice, i) => ({ startMs: HOUR - (3 - i) * HOUR_MS, totalPrice }));
const COUNTERS = [18236.105, 18235.296, 18234.871, 18234.412].map((importKwh, i) => ({ hourMs: HOUR - i * HOUR_MS, importKwh }));

function commandOf(type: CommandType, deviceId: string, deviceKind: DeviceRecord['kind'], id: string, state: CommandRecord['state'], minutesAgo: number): CommandRecord {
  const createdAtMs = AT - minutesAgo * 60_000;
  return {
    seq: 1, id, deviceId, deviceKind, userId: USER, type, state, payload: undefined, createdAtMs,
    lastUpdatedMs: state === 'PENDING' ? createdAtMs : createdAtMs + 2_000, expiresAtMs: createdAtMs + 300_000, failedReason: null, startedAtMs: null, waitingReason: null,
  };
}

const page = (...devices: DeviceRecord[]) => JSON.parse(pageJson({ items: devices, total: devices.length }, 10)) as unknown;

/** The same examples under the operationIds of an operation's subscription-level and user-level forms. */
function both(operationIds: readonly string[], example: OperationExample): Record<string, OperationExample> {
  return Object.fromEntries(operationIds.map((id) => [id, example]));
}

/**
 * Every operation's examples, by operationId; `baseUrl` is the hub's public URL (without /v1.0.0),
 * `pairable` the charger vendors its pairing page takes (the connect request names the first).
 */
export function operationExamples(baseUrl: string, vendors: VendorCatalog, pairable: readonly string[]): Record<string, OperationExample> {
  const deleted = { response: { success: true } };
  const schedule = { schedules: [{ mode: 'HEAT', start: { time: '06:30', day: 'MONDAY' }, end: { time: '22:00', day: 'MONDAY' }, temperature: 21.5 }] };
  const pending = (type: CommandType, device: DeviceRecord, id: string) => command(commandOf(type, device.id, device.kind, id, 'PENDING', 0));
  const hvac = { response: hvacDetail(HVAC, () => HVAC_OFFERS) };
  const hvacCommands = {
    response: [
      command(commandOf('SET_TEMPERATURE', HVAC.id, 'hvac', '7a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c01', 'EXECUTED', 90)),
      pending('SET_SCHEDULE', HVAC, '7a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c02'),
    ],
  };
  const vehicle = { response: vehicleDetail(VEHICLE) };
  const chargingSchedule = { schedules: [{ type: 'CHARGE', stateOfChargeTarget: 80, days: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'], start: '00:30', end: '05:30' }] };
  // No local path sets a vehicle's charging schedule: the command fails at once, with this reason (submitOrFailCommand).
  const scheduleFailed: CommandRecord = {
    ...commandOf('SET_CHARGING_SCHEDULE', VEHICLE.id, 'vehicle', '8b2c3d4e-5f6a-4b7c-9d8e-9f0a1b2c3d03', 'FAILED', 0),
    lastUpdatedMs: AT,
    failedReason: `${NO_SCHEDULE_PATH} (${refusal(VEHICLE_OFFERS, 'SET_CHARGING_SCHEDULE', chargingSchedule)?.message}).`,
  };
  const prices = { response: priceList(PRICES) };
  const consumption = { response: consumptionPage(COUNTERS, PRICES, COUNTERS.length, 100) };
  return {
    listBatteries: { response: page(BATTERY) },
    listUserBatteries: { response: page(BATTERY) },
    ...both(['getBattery', 'getUserBattery', 'refreshBattery', 'refreshUserBattery'], { response: batteryDetail(BATTERY) }),
    ...both(['deleteBattery', 'deleteUserBattery'], deleted),
    ...both(['listHvacs', 'listUserHvacs'], { response: page(HVAC) }),
    ...both(['getUserHvac', 'refreshHvac', 'refreshUserHvac'], hvac),
    deleteUserHvac: deleted,
    ...both(['listHvacCommands', 'listSubscriptionHvacCommands'], hvacCommands),
    setHvacSchedule: { request: schedule, response: pending('SET_SCHEDULE', HVAC, '7a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c02') },
    getUserHvacSchedules: { response: { timeZone: 'UTC', schedules: schedule.schedules } },
    ...both(['setHvacTemperature', 'setUserHvacTemperature'], { request: { temperature: 21.5 }, response: pending('SET_TEMPERATURE', HVAC, '7a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c03') }),
    ...both(['setHvacMode', 'setUserHvacMode'], { request: { mode: 'HEAT' }, response: pending('SET_MODE', HVAC, '7a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c04') }),
    listUserPvInverters: { response: page(PV_INVERTER) },
    ...both(['getPvInverter', 'getUserPvInverter', 'refreshPvInverter', 'refreshUserPvInverter'], { response: pvInverterDetail(PV_INVERTER) }),
    ...both(['deletePvInverter', 'deleteUserPvInverter'], deleted),
    listUserMeters: { response: page(METER) },
    ...both(['getUserMeter', 'refreshUserMeter'], { response: meterDetail(METER) }),
    deleteUserMeter: deleted,
    listUserChargers: { response: page(CHARGER) },
    ...both(['getCharger', 'getUserCharger', 'refreshCharger', 'refreshUserCharger'], { response: chargerDetail(CHARGER) }),
    ...both(['deleteCharger', 'deleteUserCharger'], deleted),
    userStartCharging: { response: pending('CHARGING_START', CHARGER, '9c3d4e5f-6a7b-4c8d-8e9f-0a1b2c3d4e01') },
    userStopCharging: { response: pending('CHARGING_STOP', CHARGER, '9c3d4e5f-6a7b-4c8d-8e9f-0a1b2c3d4e02') },
    userChargingCurrent: { request: { amps: 10 }, response: pending('SET_CHARGING_CURRENT', CHARGER, '9c3d4e5f-6a7b-4c8d-8e9f-0a1b2c3d4e03') },
    ...both(['chargerChargingPhases', 'userChargingPhases'], { request: { phases: 1 }, response: pending('SET_CHARGING_PHASES', CHARGER, '9c3d4e5f-6a7b-4c8d-8e9f-0a1b2c3d4e04') }),
    listChargerCommands: {
      response: [
        command(commandOf('SET_CHARGING_CURRENT', CHARGER.id, 'charger', '9c3d4e5f-6a7b-4c8d-8e9f-0a1b2c3d4e05', 'EXECUTED', 30)),
        pending('CHARGING_STOP', CHARGER, '9c3d4e5f-6a7b-4c8d-8e9f-0a1b2c3d4e02'),
      ],
    },
    ...both(['listVehicles', 'listUserVehicles'], { response: page(VEHICLE) }),
    ...both(['getVehicle', 'getUserVehicle', 'refreshVehicle', 'refreshUserVehicle'], vehicle),
    listVehicleCommands: { response: [command(commandOf('CHARGING_STOP', VEHICLE.id, 'vehicle', '8b2c3d4e-5f6a-4b7c-9d8e-9f0a1b2c3d01', 'EXECUTED', 45))] },
    ...both(['startVehicleCharging', 'userStartVehicleCharging'], { response: pending('CHARGING_START', VEHICLE, '8b2c3d4e-5f6a-4b7c-9d8e-9f0a1b2c3d04') }),
    ...both(['stopVehicleCharging', 'userStopVehicleCharging'], { response: pending('CHARGING_STOP', VEHICLE, '8b2c3d4e-5f6a-4b7c-9d8e-9f0a1b2c3d02') }),
    ...both(['setVehicleChargingSchedule', 'userSetVehicleChargingSchedule'], { request: chargingSchedule, response: command(scheduleFailed) }),
    deleteUserVehicle: deleted,
    listUserTariffs: { response: page(TARIFF) },
    getUserTariff: { response: tariffDetail(TARIFF) },
    deleteUserTariff: deleted,
    ...both(['getTariffPrices', 'getUserTariffPrices'], prices),
    ...both(['getTariffConsumption', 'getUserTariffConsumption'], consumption),
    getHouseholdSeries: {
      response: householdSeriesJson(USER, [
        { startMs: AT - 600_000, pvKw: 3.912, homeKw: 1.204, gridKw: -1.508, batteryKw: 1.2, carKw: 0, batterySoc: 63.5, price: 0.2874 },
        { startMs: AT - 300_000, pvKw: 4.107, homeKw: 2.951, gridKw: 1.844, batteryKw: 0.8, carKw: 2.2, batterySoc: 64.2, price: 0.2874 },
      ]),
    },
    connectCharger: {
      request: { redirectUrl: 'https://app.example.com/chargers/connected', vendor: pairable[0] ?? 'GO_E', userId: USER },
      response: { url: `${baseUrl}/connect/${TOKEN}` },
    },
    connectVehicle: {
      request: { redirectUrl: 'https://app.example.com/vehicles/connected', vendor: 'BMW', userId: USER, vin: 'WBY11CF080CH47012' },
      response: { url: `${baseUrl}/connect/${TOKEN}` },
    },
    connectHvac: {
      request: { redirectUrl: 'https://app.example.com/heating/connected', vendor: 'DAIKIN', userId: USER },
      response: { url: `${baseUrl}/connect/${TOKEN}` },
    },
    connectHomePower: {
      request: { redirectUrl: 'https://app.example.com/home-power/connected', vendor: 'SMA', userId: USER },
      response: { url: `${baseUrl}/connect/${TOKEN}` },
    },
    connectTariff: {
      request: { redirectUrl: 'https://app.example.com/tariffs/connected', vendor: 'TIBBER', userId: USER },
      response: { url: `${baseUrl}/connect/${TOKEN}` },
    },
    listAvailableVendors: { response: vendors.availableVendors(baseUrl) },
  };
}
