// The fixed vocabulary of the API: device kinds, enumerations and vendor codes, as settled in
// docs/decisions (the specification leaves their members open). Everything else imports from here.

export const DEVICE_KINDS = ['battery', 'pvInverter', 'meter', 'hvac', 'charger', 'vehicle', 'tariff'] as const;
export type DeviceKind = (typeof DEVICE_KINDS)[number];

/** The tag of a kind in not-found messages and error codes: `[PV_INVERTER] PV inverter … not found`. */
export const KIND_TAG: Record<DeviceKind, string> = {
  battery: 'BATTERY',
  pvInverter: 'PV_INVERTER',
  meter: 'METER',
  hvac: 'HVAC',
  charger: 'CHARGER',
  vehicle: 'VEHICLE',
  tariff: 'TARIFF',
};

/** How a kind is named in a human sentence. */
export const KIND_LABEL: Record<DeviceKind, string> = {
  battery: 'Battery',
  pvInverter: 'PV inverter',
  meter: 'Meter',
  hvac: 'HVAC',
  charger: 'Charger',
  vehicle: 'Vehicle',
  tariff: 'Tariff',
};

export const BATTERY_CHARGING_STATES = ['CHARGING', 'DISCHARGING', 'IDLE', 'FAULT'] as const;
export const BATTERY_MODES = ['AUTO', 'SELF_CONSUMPTION', 'EXPORT_FOCUS', 'MANUAL'] as const;
export const CHARGER_CHARGING_STATES = ['UNPLUGGED', 'PREPARING', 'CHARGING', 'FINISHED', 'STOPPED', 'FAULT'] as const;
export const PV_POWER_STATES = ['PRODUCING', 'IDLE', 'FAULT'] as const;
export const HVAC_TYPES = ['AC', 'HEATING_CIRCUIT', 'DHW', 'THERMOSTAT'] as const;
export type HvacType = (typeof HVAC_TYPES)[number];
export const SCHEDULE_MODES = ['HEAT', 'COOL', 'DRY', 'AUTO', 'REDUCED', 'OFF'] as const;
/** An HVAC unit's modes (the origin's HvacMode): SET_MODE's words, and those of a schedule. */
export const HVAC_MODES = SCHEDULE_MODES;
export type HvacMode = (typeof HVAC_MODES)[number];
/** A vehicle's drive train (the origin's engineType). */
export const ENGINE_TYPES = ['BEV', 'HEV', 'PHEV', 'ICEV'] as const;
export const WEEK_DAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;

export const COMMAND_STATES = ['PENDING', 'EXECUTED', 'FAILED'] as const;
export type CommandState = (typeof COMMAND_STATES)[number];
export const HVAC_COMMAND_TYPES = ['SET_TEMPERATURE', 'SET_MODE', 'SET_SCHEDULE', 'POWER_BOOST'] as const;
export const VEHICLE_COMMAND_TYPES = ['CHARGING_START', 'CHARGING_STOP', 'SET_CHARGING_CURRENT', 'SET_CHARGING_SCHEDULE'] as const;
/** A charger's commands: the vehicle's charging commands and the number of phases it charges on. */
export const CHARGER_COMMAND_TYPES = ['CHARGING_START', 'CHARGING_STOP', 'SET_CHARGING_CURRENT', 'SET_CHARGING_PHASES'] as const;
export type CommandType = (typeof HVAC_COMMAND_TYPES)[number] | (typeof VEHICLE_COMMAND_TYPES)[number] | (typeof CHARGER_COMMAND_TYPES)[number];
export const COMMAND_TYPES: readonly CommandType[] = [...HVAC_COMMAND_TYPES, ...VEHICLE_COMMAND_TYPES, 'SET_CHARGING_PHASES'];

/** Vendor codes per domain (decisions §2, "Vendor codes"). */
export const HOME_POWER_VENDORS = ['FRONIUS', 'SMA', 'HUAWEI', 'TESLA', 'ENPHASE'] as const;
export const BATTERY_VENDORS = ['FRONIUS', 'SMA', 'HUAWEI', 'TESLA'] as const;
export const HVAC_VENDORS = ['VIESSMANN', 'DAIKIN', 'VAILLANT'] as const;
export const CHARGER_VENDORS = ['EASEE', 'GO_E', 'ZAPTEC'] as const;
export const VEHICLE_VENDORS = ['TESLA', 'MERCEDES', 'BMW', 'MINI', 'VW', 'AUDI', 'SKODA', 'VOLVO', 'CUPRA'] as const;
export const TARIFF_VENDORS = ['TIBBER', 'OSTROM', 'OCTOPUS_ENERGY', 'LUOX'] as const;

/** The vendor codes a device of each kind may carry. PV inverters and meters belong to home power. */
export const VENDORS_BY_KIND: Record<DeviceKind, readonly string[]> = {
  battery: BATTERY_VENDORS,
  pvInverter: HOME_POWER_VENDORS,
  meter: HOME_POWER_VENDORS,
  hvac: HVAC_VENDORS,
  charger: CHARGER_VENDORS,
  vehicle: VEHICLE_VENDORS,
  tariff: TARIFF_VENDORS,
};

/** The domains of `GET /connections/available-vendors`, in the order of the response. */
export const VENDOR_DOMAINS = ['hvac', 'vehicles', 'chargers', 'homePower', 'tariffs'] as const;
export type VendorDomain = (typeof VENDOR_DOMAINS)[number];

export const DOMAIN_OF_KIND: Record<DeviceKind, VendorDomain> = {
  battery: 'homePower',
  pvInverter: 'homePower',
  meter: 'homePower',
  hvac: 'hvac',
  charger: 'chargers',
  vehicle: 'vehicles',
  tariff: 'tariffs',
};

/** Sort fields of the list endpoints; subscription lists add USER_ID. */
export const SORT_FIELDS = ['USER_ID', 'VENDOR', 'IS_ONLINE', 'LAST_UPDATED'] as const;
export type SortField = (typeof SORT_FIELDS)[number];
export const USER_SORT_FIELDS = ['VENDOR', 'IS_ONLINE', 'LAST_UPDATED'] as const;
export type SortOrder = 'ASC' | 'DESC';
