// Zod schemas of the API's device shapes. One definition serves three ends: the OpenAPI document,
// the importer's validation of records, and the tests that check real responses.
import { z } from 'zod';
import {
  BATTERY_CHARGING_STATES, BATTERY_MODES, BATTERY_VENDORS, CHARGER_CHARGING_STATES, CHARGER_VENDORS,
  COMMAND_STATES, HOME_POWER_VENDORS, HVAC_COMMAND_TYPES, HVAC_TYPES, HVAC_VENDORS, PV_POWER_STATES,
  TARIFF_VENDORS, VEHICLE_COMMAND_TYPES, VEHICLE_VENDORS,
} from './vocabulary.ts';

/** Schema metadata: a component id for the OpenAPI document, or a JSON Schema to show instead. */
export interface SchemaMeta {
  id?: string;
  description?: string;
  jsonSchema?: Record<string, unknown>;
}
export const schemaRegistry = z.registry<SchemaMeta>();

function named<T extends z.ZodType>(id: string, schema: T, description?: string): T {
  schemaRegistry.add(schema, description ? { id, description } : { id });
  return schema;
}

/**
 * A field the contract does not have, added by the hub: marked `x-hub-addition: true` in the OpenAPI
 * (decisions §5), so that a partner's client knows it may ignore it.
 */
function hubAddition<T extends z.ZodType>(schema: T, description: string): T {
  const shown = z.toJSONSchema(schema, { target: 'draft-2020-12' }) as Record<string, unknown>;
  delete shown['$schema'];
  schemaRegistry.add(schema, { description, jsonSchema: { ...shown, description, 'x-hub-addition': true } });
  return schema;
}

/** An enum whose error message lists what is allowed. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: `must be one of ${values.join(', ')}` });
}

export const Uuid = z.uuid({ error: 'must be a UUID' });
export const Timestamp = z.iso.datetime({ offset: true, error: 'must be a date-time with Z or an offset, e.g. 2026-11-07T05:31:56Z' });
const Percent = z.number().min(0).max(100);
const Kw = z.number().finite();

// ---- device state and static data (API units: kW, kWh, %, A) ----

export const BatteryStaticData = named('BatteryStaticData', z.strictObject({
  lastUpdated: Timestamp.optional(),
  vendor: oneOf(BATTERY_VENDORS),
  name: z.string().max(200).optional(),
  model: z.string().min(1).max(200),
  siteName: z.string().max(200).optional(),
  batteryCapacity: z.number().min(0).optional().describe('kWh'),
}));

export const BatteryChargeState = named('BatteryChargeState', z.strictObject({
  lastUpdated: Timestamp.optional(),
  mode: oneOf(BATTERY_MODES).optional(),
  chargeRate: Kw.optional().describe('kW, negative while discharging'),
  stateOfCharge: Percent.optional().describe('%'),
  chargeLimitMin: Percent.optional().describe('%'),
  chargeLimitMax: Percent.optional().describe('%'),
  maxChargeRate: z.number().min(0).optional().describe('kW'),
  maxDischargeRate: z.number().min(0).optional().describe('kW'),
  chargingState: oneOf(BATTERY_CHARGING_STATES).optional(),
}));

export const ChargerStaticData = named('ChargerStaticData', z.strictObject({
  lastUpdated: Timestamp.optional(),
  vendor: oneOf(CHARGER_VENDORS),
  model: z.string().min(1).max(200),
  name: z.string().max(200).optional(),
}));

export const ChargerChargeState = named('ChargerChargeState', z.strictObject({
  lastUpdated: Timestamp.optional(),
  chargeRate: z.number().min(0).optional().describe('kW'),
  chargeCurrentMax: z.number().min(0).optional().describe('A'),
  isPlugged: z.boolean().optional(),
  activePhases: z.int().min(0).max(3).optional(),
  chargingState: oneOf(CHARGER_CHARGING_STATES).optional(),
}));

export const PvInverterStaticData = named('PvInverterStaticData', z.strictObject({
  lastUpdated: Timestamp.optional(),
  vendor: oneOf(HOME_POWER_VENDORS),
  name: z.string().max(200).optional(),
  model: z.string().min(1).max(200),
  siteName: z.string().max(200).optional(),
}));

export const PvPowerState = named('PvPowerState', z.strictObject({
  lastUpdated: Timestamp.optional(),
  state: oneOf(PV_POWER_STATES).optional(),
  solarPower: z.number().min(0).optional().describe('kW'),
}));

export const MeterStaticData = named('MeterStaticData', PvInverterStaticData.extend({}));

export const HvacStaticData = named('HvacStaticData', z.strictObject({
  lastUpdated: Timestamp.optional(),
  vendor: oneOf(HVAC_VENDORS),
  name: z.string().max(200).optional(),
  model: z.string().min(1).max(200),
}));

export const VehicleStaticData = named('VehicleStaticData', z.strictObject({
  lastUpdated: Timestamp.optional(),
  vendor: oneOf(VEHICLE_VENDORS),
  name: z.string().max(200).optional(),
  model: z.string().min(1).max(200),
}));

export const TariffStaticData = named('TariffStaticData', z.strictObject({
  lastUpdated: Timestamp.optional(),
  vendor: oneOf(TARIFF_VENDORS),
  countryCode: z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code, e.g. DE').optional(),
  name: z.string().max(200).optional(),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code, e.g. EUR').optional(),
}));

// ---- responses ----

const deviceCore = {
  id: Uuid,
  userId: z.string(),
  isOnline: z.boolean().describe('The hub reached the device on its last poll or command.'),
  lastUpdated: Timestamp.optional().describe('Last update of any variable of the device.'),
  locationId: Uuid.optional(),
};

export const Battery = named('Battery', z.object({ ...deviceCore, staticData: BatteryStaticData, chargeState: BatteryChargeState }));
export const Charger = named('Charger', z.object({ ...deviceCore, chargeState: ChargerChargeState, staticData: ChargerStaticData }));
export const PvInverter = named('PvInverter', z.object({ ...deviceCore, staticData: PvInverterStaticData, powerState: PvPowerState }));
export const Tariff = named('Tariff', z.object({ ...deviceCore, staticData: TariffStaticData }));

const listCore = {
  id: Uuid,
  userId: z.string(),
  name: z.string().optional(),
  isOnline: z.boolean(),
  lastUpdated: Timestamp.optional(),
};

export const BatteryListItem = named('BatteryListItem', z.object({
  ...listCore, vendor: oneOf(BATTERY_VENDORS), model: z.string(), chargingState: oneOf(BATTERY_CHARGING_STATES).optional(),
}));
export const PvInverterListItem = named('PvInverterListItem', z.object({ ...listCore, vendor: oneOf(HOME_POWER_VENDORS), model: z.string().optional() }));
export const MeterListItem = named('MeterListItem', z.object({ ...listCore, vendor: oneOf(HOME_POWER_VENDORS), model: z.string().optional() }));
export const HvacListItem = named('HvacListItem', z.object({
  ...listCore, vendor: oneOf(HVAC_VENDORS), model: z.string().optional(), type: oneOf(HVAC_TYPES),
}));

/** A count of elements or pages: the specification's int64. */
const Count = z.int().min(0);
schemaRegistry.add(Count, { jsonSchema: { type: 'integer', format: 'int64', minimum: 0 } });

function pageOf(id: string, item: z.ZodType) {
  return named(id, z.object({
    content: z.array(item),
    totalElements: Count,
    totalPages: Count,
  }));
}
export const BatteryPage = pageOf('BatteryPage', BatteryListItem);
export const PvInverterPage = pageOf('PvInverterPage', PvInverterListItem);
export const MeterPage = pageOf('MeterPage', MeterListItem);
export const HvacPage = pageOf('HvacPage', HvacListItem);

export const Command = named('Command', z.object({
  id: Uuid,
  createdAt: Timestamp,
  state: oneOf(COMMAND_STATES),
  type: oneOf([...HVAC_COMMAND_TYPES, ...VEHICLE_COMMAND_TYPES]),
  userId: z.string(),
  deviceId: Uuid,
  lastUpdated: Timestamp.optional(),
  failedReason: z.string().optional(),
  waitingReason: hubAddition(z.string(), 'While PENDING: why the command has not run yet (its device is offline); it runs when the device is reachable again, or fails at its deadline.').optional(),
}));
export const CommandList = z.array(Command);

export const DeletionResult = named('DeletionResult', z.object({ success: z.boolean() }));
export const ConnectUrl = named('ConnectUrl', z.object({ url: z.url() }));

export const VendorEntry = named('VendorEntry', z.object({ name: z.string(), id: z.string(), logoUrl: z.url() }));
export const AvailableVendors = named('AvailableVendors', z.object({
  hvac: z.array(VendorEntry),
  vehicles: z.array(VendorEntry),
  chargers: z.array(VendorEntry),
  homePower: z.array(VendorEntry),
  tariffs: z.array(VendorEntry),
}));

export const ErrorBody = named('Error', z.object({
  errorCode: z.string(),
  id: Uuid,
  message: z.string(),
  validationErrors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
}));
