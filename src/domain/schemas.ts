// Zod schemas of the API's device shapes. One definition serves three ends: the OpenAPI document,
// the importer's validation of records, and the tests that check real responses.
import { z } from 'zod';
import {
  BATTERY_CHARGING_STATES, BATTERY_MODES, BATTERY_VENDORS, CHARGER_CHARGING_STATES, CHARGER_VENDORS,
  COMMAND_STATES, ENGINE_TYPES, HOME_POWER_VENDORS, HVAC_COMMAND_TYPES, HVAC_MODES, HVAC_TYPES, HVAC_VENDORS, PV_POWER_STATES,
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
  lastUpdated: Timestamp.describe('When the device last reported these values'),
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
  lastUpdated: Timestamp.describe('When the device last reported these values'),
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
  lastUpdated: Timestamp.describe('When the device last reported these values'),
  state: oneOf(PV_POWER_STATES).optional(),
  solarPower: z.number().min(0).optional().describe('kW'),
}));

export const MeterStaticData = named('MeterStaticData', PvInverterStaticData.extend({}));

export const HvacStaticData = named('HvacStaticData', z.strictObject({
  lastUpdated: Timestamp.optional(),
  vendor: oneOf(HVAC_VENDORS),
  name: z.string().max(200).optional(),
  model: z.string().min(1).max(200),
  room: z.string().max(200).optional().describe('Where the unit is, as the installer named it'),
}));

export const VehicleStaticData = named('VehicleStaticData', z.strictObject({
  lastUpdated: Timestamp.optional(),
  vendor: oneOf(VEHICLE_VENDORS),
  vin: z.string().regex(/^[A-HJ-NPR-Z0-9]{17}$/, 'must be a VIN of 17 characters (digits and capitals but I, O and Q)').optional(),
  name: z.string().max(200).optional(),
  model: z.string().min(1).max(200),
  engineType: oneOf(ENGINE_TYPES).optional(),
  batteryCapacity: z.number().min(0).optional().describe('kWh'),
  vehicleVariant: z.string().max(200).optional(),
}));

// A vehicle's live values, each object present once its bridge has reported something of it.
export const VehicleChargeState = named('VehicleChargeState', z.strictObject({
  lastUpdated: Timestamp,
  stateOfCharge: Percent.optional().describe('%'),
  estimatedRange: z.int().min(0).optional().describe('km'),
  chargeRate: Kw.optional().describe('kW'),
  chargeLimitMin: Percent.optional().describe('%'),
  chargeLimitMax: Percent.optional().describe('%'),
  chargingTimeRemaining: z.int().min(0).optional().describe('minutes'),
  chargeCurrentMax: z.number().min(0).optional().describe('A, the most the vehicle accepts'),
  isPlugged: z.boolean().optional(),
  remoteChargingAllowed: z.boolean().optional(),
  chargingState: oneOf(CHARGER_CHARGING_STATES).optional(),
  scheduledChargingStartTime: Timestamp.optional(),
  scheduledDepartureTime: Timestamp.optional(),
}));
export const VehicleOdometer = named('VehicleOdometer', z.strictObject({ lastUpdated: Timestamp, odometer: z.int().min(0).describe('km') }));
export const VehicleLocation = named('VehicleLocation', z.strictObject({
  lastUpdated: Timestamp, latitude: z.number().min(-90).max(90), longitude: z.number().min(-180).max(180),
}));
export const VehicleClimateState = named('VehicleClimateState', z.strictObject({
  lastUpdated: Timestamp,
  isClimateOn: z.boolean().optional(),
  isBatteryHeaterOn: z.boolean().optional(),
  temperatureCurrent: z.number().optional().describe('°C, inside'),
  temperatureTarget: z.number().optional().describe('°C'),
}));

export const HvacTemperatureTarget = named('HvacTemperatureTarget', z.strictObject({
  mode: oneOf(HVAC_MODES), temperature: z.number().describe('°C'),
}));
export const HvacClimateState = named('HvacClimateState', z.strictObject({
  lastUpdated: Timestamp,
  mode: oneOf(HVAC_MODES).optional().describe('Absent while the unit has not reported its mode'),
  isActive: z.boolean().optional().describe('The unit is on: its mode is not OFF'),
  temperatureCurrent: z.number().optional().describe('°C, the room (or the stored water of a hot water unit)'),
  temperatureOutside: z.number().optional().describe('°C'),
  temperatureTargets: z.array(HvacTemperatureTarget).optional(),
}));
export const HvacPowerState = named('HvacPowerState', z.strictObject({ lastUpdated: Timestamp, powerConsumption: Kw.describe('kW') }));
/** An HVAC unit's staticData as the API shows it: `capableModes` and `type` come from the hub, not the installer. */
export const HvacDetailStaticData = named('HvacDetailStaticData', HvacStaticData.extend({
  capableModes: z.array(oneOf(HVAC_MODES)).describe('The modes SET_MODE takes on this unit, from what its driver can do'),
  type: oneOf(HVAC_TYPES).optional(),
}));

export const MeterPowerState = named('MeterPowerState', z.strictObject({
  lastUpdated: Timestamp,
  power: Kw.optional().describe('kW, positive while drawing from the grid'),
  meterValue: z.number().min(0).optional().describe('kWh, the import counter'),
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

// A state object is there once the device has reported (origin §2.3, §2.4: optional, with its
// lastUpdated required); a device that never did has none, not an empty one.
const untilReported = 'Absent until the device first reports';
export const Battery = named('Battery', z.object({ ...deviceCore, staticData: BatteryStaticData, chargeState: BatteryChargeState.optional().describe(untilReported) }));
export const Charger = named('Charger', z.object({ ...deviceCore, chargeState: ChargerChargeState.optional().describe(untilReported), staticData: ChargerStaticData }));
export const PvInverter = named('PvInverter', z.object({ ...deviceCore, staticData: PvInverterStaticData, powerState: PvPowerState.optional().describe(untilReported) }));
export const Tariff = named('Tariff', z.object({ ...deviceCore, staticData: TariffStaticData }));
export const Vehicle = named('Vehicle', z.object({
  ...deviceCore,
  staticData: VehicleStaticData,
  chargeState: VehicleChargeState.optional(),
  odometer: VehicleOdometer.optional(),
  location: VehicleLocation.optional(),
  climateState: VehicleClimateState.optional(),
}));
export const Hvac = named('Hvac', z.object({
  ...deviceCore, staticData: HvacDetailStaticData, climateState: HvacClimateState.optional(), powerState: HvacPowerState.optional(),
}));
export const Meter = named('Meter', z.object({ ...deviceCore, staticData: MeterStaticData, powerState: MeterPowerState.optional() }));

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
export const VehicleListItem = named('VehicleListItem', z.object({
  ...listCore, vendor: oneOf(VEHICLE_VENDORS), model: z.string().optional(), vin: z.string().optional(),
}));
export const ChargerListItem = named('ChargerListItem', z.object({ ...listCore, vendor: oneOf(CHARGER_VENDORS), model: z.string().optional() }));
export const TariffListItem = named('TariffListItem', z.object({ ...listCore, vendor: oneOf(TARIFF_VENDORS) }));

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
export const VehiclePage = pageOf('VehiclePage', VehicleListItem);
export const ChargerPage = pageOf('ChargerPage', ChargerListItem);
export const TariffPage = pageOf('TariffPage', TariffListItem);

export const Command = named('Command', z.object({
  id: Uuid,
  createdAt: Timestamp,
  state: oneOf(COMMAND_STATES),
  type: oneOf([...HVAC_COMMAND_TYPES, ...VEHICLE_COMMAND_TYPES, 'SET_CHARGING_PHASES']),
  userId: z.string(),
  deviceId: Uuid,
  lastUpdated: Timestamp.optional(),
  failedReason: z.string().optional(),
  waitingReason: hubAddition(z.string(), 'While PENDING: why the command has not run yet (its device is offline); it runs when the device is reachable again, or fails at its deadline.').optional(),
}));
export const CommandList = z.array(Command);

export const Price = named('Price', z.object({
  startDate: Timestamp.describe('From when the price is in force'),
  totalPrice: z.number().describe('Currency per kWh, all included'),
  energyPrice: z.number().optional().describe('Currency per kWh: the energy alone (absent when the source does not say)'),
  taxAndLevies: z.number().optional().describe('Currency per kWh (absent when the source does not say)'),
}));
export const PriceList = z.array(Price);
export const Consumption = named('Consumption', z.object({
  startDate: Timestamp,
  endDate: Timestamp,
  consumption: z.number().min(0).describe('kWh drawn from the grid in the hour'),
  cost: z.number().optional().describe('In the tariff\'s currency; absent when the price was not known for the whole hour'),
}));
export const ConsumptionPage = pageOf('ConsumptionPage', Consumption);

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

// The household's 5-minute curves (a hub addition, issue 25): means over each 5 minutes, levels at their end.
export const HouseholdSeriesPoint = named('HouseholdSeriesPoint', z.object({
  startDate: Timestamp.describe('Start of the 5 minutes'),
  pvPower: z.number().optional().describe('kW, mean PV production'),
  consumptionPower: z.number().optional().describe('kW, mean consumption of the house itself, the car left out (PV + grid − battery − car)'),
  gridPower: z.number().optional().describe('kW, mean grid power: positive importing, negative exporting'),
  batteryPower: z.number().optional().describe('kW, mean battery power: positive charging'),
  carPower: z.number().optional().describe('kW, mean power into the cars: what the chargers draw, and a car no charger of the user serves. Absent in points from before the hub kept it'),
  batteryStateOfCharge: z.number().optional().describe('%, the batteries\' mean charge level at the end of the 5 minutes'),
  price: z.number().optional().describe('Currency per kWh in force at the end of the 5 minutes, when the user has a tariff'),
}));
export const HouseholdSeries = named('HouseholdSeries', z.object({
  userId: z.string(),
  resolutionMinutes: z.literal(5),
  points: z.array(HouseholdSeriesPoint).describe('Oldest first; 5 minutes in which nothing was known have no point'),
}));
