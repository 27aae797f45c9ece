// The examples of the OpenAPI document (and so of /docs): real responses, made by the presenters the
// API answers with (src/runtime/present.ts) over one believable household, rather than values a
// schema walk makes up (a charging-stop answer of type SET_TEMPERATURE, a plugged charger that is
// UNPLUGGED, URLs the hub never serves). test/api/openapi-examples.test.ts holds them to their
// schemas and to each other.
import type { DeviceRecord } from '../domain/device.ts';
import type { CommandType } from '../domain/vocabulary.ts';
import type { VendorCatalog } from '../domain/vendors.ts';
import type { CommandRecord } from '../store/commands.ts';
import { parseTimestamp } from '../domain/time.ts';
import { batteryDetail, chargerDetail, command, householdSeriesJson, pageJson, pvInverterDetail, tariffDetail } from '../runtime/present.ts';

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
const METER = device('meter', '2f7e4c3a-9c6d-4b9a-9d5a-3c4d5e6f7a01', 'FRONIUS', 'Grid connection point', 'Smart Meter TS 65A-3');
const HVAC = device('hvac', '3a8f5d4b-ad7e-4cab-8e6b-4d5e6f7a8b01', 'VAILLANT', 'Underfloor heating', 'aroTHERM plus VWL 75/6', { hvacType: 'HEATING_CIRCUIT' });
const CHARGER = device('charger', '4b9a6e5c-be8f-4dbc-9f7c-5e6f7a8b9c01', 'GO_E', 'Driveway', 'go-eCharger Gemini flex 22 kW', {
  state: { lastUpdated: '2026-11-07T05:30:56Z', chargeRate: 7.2, chargeCurrentMax: 16, isPlugged: true, activePhases: 3, chargingState: 'CHARGING' },
});
const VEHICLE_ID = '5cab7f6d-cf9a-4ecd-8a8d-6f7a8b9cad01';
const TARIFF = device('tariff', '6dbc8a7e-da8b-4fde-9b9e-7a8b9cadbe01', 'TIBBER', 'Dynamic hourly price', null, {
  staticData: { countryCode: 'DE', currency: 'EUR', lastUpdated: '2026-11-07T05:00:00Z' },
});

function commandOf(type: CommandType, deviceId: string, deviceKind: DeviceRecord['kind'], id: string, state: CommandRecord['state'], minutesAgo: number): CommandRecord {
  const createdAtMs = AT - minutesAgo * 60_000;
  return {
    seq: 1, id, deviceId, deviceKind, userId: USER, type, state, payload: undefined, createdAtMs,
    lastUpdatedMs: state === 'PENDING' ? createdAtMs : createdAtMs + 2_000, expiresAtMs: createdAtMs + 300_000, failedReason: null, startedAtMs: null,
  };
}

const page = (...devices: DeviceRecord[]) => JSON.parse(pageJson({ items: devices, total: devices.length }, 10)) as unknown;

/**
 * Every operation's examples, by operationId; `baseUrl` is the hub's public URL (without /v1.0.0),
 * `pairable` the charger vendors its pairing page takes (the connect request names the first).
 */
export function operationExamples(baseUrl: string, vendors: VendorCatalog, pairable: readonly string[]): Record<string, OperationExample> {
  const deleted = { response: { success: true } };
  const schedule = { schedules: [{ mode: 'HEAT', start: { time: '06:30', day: 'MONDAY' }, end: { time: '22:00', day: 'MONDAY' }, temperature: 21.5 }] };
  return {
    listBatteries: { response: page(BATTERY) },
    getBattery: { response: batteryDetail(BATTERY) },
    deleteBattery: deleted,
    listHvacs: { response: page(HVAC) },
    listUserHvacs: { response: page(HVAC) },
    listHvacCommands: {
      response: [
        command(commandOf('SET_TEMPERATURE', HVAC.id, 'hvac', '7a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c01', 'EXECUTED', 90)),
        command(commandOf('SET_SCHEDULE', HVAC.id, 'hvac', '7a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c02', 'PENDING', 0)),
      ],
    },
    setHvacSchedule: { request: schedule, response: command(commandOf('SET_SCHEDULE', HVAC.id, 'hvac', '7a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c02', 'PENDING', 0)) },
    listUserPvInverters: { response: page(PV_INVERTER) },
    refreshPvInverter: { response: pvInverterDetail(PV_INVERTER) },
    deletePvInverter: deleted,
    listUserMeters: { response: page(METER) },
    getCharger: { response: chargerDetail(CHARGER) },
    refreshCharger: { response: chargerDetail(CHARGER) },
    deleteCharger: deleted,
    listVehicleCommands: { response: [command(commandOf('CHARGING_STOP', VEHICLE_ID, 'vehicle', '8b2c3d4e-5f6a-4b7c-9d8e-9f0a1b2c3d01', 'EXECUTED', 45))] },
    stopVehicleCharging: { response: command(commandOf('CHARGING_STOP', VEHICLE_ID, 'vehicle', '8b2c3d4e-5f6a-4b7c-9d8e-9f0a1b2c3d02', 'PENDING', 0)) },
    deleteUserVehicle: deleted,
    getUserTariff: { response: tariffDetail(TARIFF) },
    getHouseholdSeries: {
      response: householdSeriesJson(USER, [
        { startMs: AT - 600_000, pvKw: 3.912, homeKw: 1.204, gridKw: -1.508, batteryKw: 1.2, batterySoc: 63.5, price: 0.2874 },
        { startMs: AT - 300_000, pvKw: 4.107, homeKw: 2.951, gridKw: -0.356, batteryKw: 0.8, batterySoc: 64.2, price: 0.2874 },
      ]),
    },
    connectCharger: {
      request: { redirectUrl: 'https://app.example.com/chargers/connected', vendor: pairable[0] ?? 'GO_E', userId: USER },
      response: { url: `${baseUrl}/connect/${TOKEN}` },
    },
    listAvailableVendors: { response: vendors.availableVendors(baseUrl) },
  };
}
