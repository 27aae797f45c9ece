// Huawei SUN2000 hybrid inverters with LUNA2000 batteries and the DTSU666-H power meter, over
// Modbus TCP (inverter WLAN/LAN or SDongle, port 502, unit 1) or RS-485. Source: Huawei "SUN2000
// Series MODBUS Interface Definitions" (V3.0); every register below names its entry there.
// Quirks: the inverter ignores requests in the first second after a connect, answers "busy"
// (exception 6) while it is updating its own registers, and signed 32-bit values are high word first.
import { defineDriver } from '../../src/runtime/modbus/definition.ts';

/** 32089 "Device status" -> PV powerState.state. */
const DEVICE_STATUS: Record<number, string> = {
  0x0000: 'IDLE', // Standby: initializing
  0x0001: 'IDLE', // Standby: detecting insulation resistance
  0x0002: 'IDLE', // Standby: detecting irradiation
  0x0003: 'IDLE', // Standby: grid detecting
  0x0100: 'IDLE', // Starting
  0x0200: 'PRODUCING', // On-grid
  0x0201: 'PRODUCING', // Grid connection: power limited
  0x0202: 'PRODUCING', // Grid connection: self-derating
  0x0300: 'FAULT', // Shutdown: fault
  0x0301: 'IDLE', // Shutdown: command
  0x0305: 'IDLE', // Shutdown: no irradiation… (fault-free)
  0xa000: 'IDLE', // Standby: no irradiation
};

/** 37762 "[Energy storage unit 1] Running status". */
const BATTERY_STATUS: Record<number, string> = { 3: 'FAULT' }; // 0 offline, 1 standby, 2 running, 3 fault, 4 sleep

/** 47086 "[Energy storage] Working mode settings" -> battery mode. */
const WORKING_MODE: Record<number, string> = {
  0: 'AUTO', // Adaptive
  1: 'MANUAL', // Fixed charge/discharge
  2: 'SELF_CONSUMPTION', // Maximise self consumption
  3: 'AUTO', // Time of use (LG)
  4: 'EXPORT_FOCUS', // Fully fed to grid
  5: 'AUTO', // Time of use (LUNA2000)
};

export default defineDriver({
  type: 'huawei-sun2000',
  title: 'Huawei SUN2000 inverter, LUNA2000 battery, DTSU666-H meter',
  family: 'register-map',
  vendors: [{ domain: 'homePower', code: 'HUAWEI' }],
  defaults: { unitId: 1, port: 502, pollIntervalMs: 10_000 },
  line: { pauseAfterConnectMs: 1000, pauseBetweenMs: 20, timeoutMs: 3000 },
  // The registers read here sit in dense blocks of Huawei's map, so small gaps are read through.
  maxGap: 8,
  busyExceptions: [6],
  groups: {
    inverter: {
      points: {
        model: { register: 30000, type: 'string', words: 15 }, // 30000 Model (STR, 15 registers)
        inputPower: { register: 32064, type: 'int32', unit: 'W' }, // 32064 Input power (I32, gain 1000 kW = W)
        activePower: { register: 32080, type: 'int32', unit: 'W' }, // 32080 Active power (I32, gain 1000 kW = W)
        status: { register: 32089, type: 'uint16' }, // 32089 Device status (U16)
        yield: { register: 32106, type: 'uint32', scale: 0.01, unit: 'kWh' }, // 32106 Accumulated energy yield (U32, gain 100, kWh)
      },
    },
    battery: {
      points: {
        capacity: { register: 37758, type: 'uint32', unit: 'Wh' }, // 37758 [ESU 1] Rated capacity (U32, Wh)
        soc: { register: 37760, type: 'uint16', scale: 0.1, unit: '%' }, // 37760 [ESU 1] SOC (U16, gain 10, %)
        status: { register: 37762, type: 'uint16' }, // 37762 [ESU 1] Running status (U16)
        power: { register: 37765, type: 'int32', unit: 'W' }, // 37765 [ESU 1] Charge/Discharge power (I32, W, >0 charging)
        maxCharge: { register: 47075, type: 'uint32', unit: 'W' }, // 47075 Maximum charging power (U32, W)
        maxDischarge: { register: 47077, type: 'uint32', unit: 'W' }, // 47077 Maximum discharging power (U32, W)
        chargeCutoff: { register: 47081, type: 'uint16', scale: 0.1, unit: '%' }, // 47081 Charging cutoff capacity (U16, gain 10, %)
        dischargeCutoff: { register: 47082, type: 'uint16', scale: 0.1, unit: '%' }, // 47082 Discharge cutoff capacity (U16, gain 10, %)
        workingMode: { register: 47086, type: 'uint16' }, // 47086 Working mode settings (U16)
      },
    },
    meter: {
      points: {
        activePower: { register: 37113, type: 'int32', unit: 'W' }, // 37113 [Power meter] Active power (I32, W, >0 feeding the grid)
        exported: { register: 37119, type: 'int32', scale: 0.01, unit: 'kWh' }, // 37119 Positive active electricity (I32, gain 100, kWh)
        imported: { register: 37121, type: 'int32', scale: 0.01, unit: 'kWh' }, // 37121 Reverse active power (I32, gain 100, kWh)
        frequency: { register: 37118, type: 'int16', scale: 0.01, unit: 'Hz' }, // 37118 Grid frequency (I16, gain 100, Hz)
      },
    },
  },
  kinds: {
    pvInverter: {
      fields: {
        // Input (PV) power rather than AC output: on a hybrid the AC side also carries the battery.
        solarPower: { point: 'inverter.inputPower', unit: 'kW', min: 0 },
        state: [
          { point: 'inverter.status', enum: DEVICE_STATUS },
          { sign: 'solarPower', positive: 'PRODUCING', negative: 'IDLE', zero: 'IDLE' },
        ],
      },
      staticData: { model: { point: 'inverter.model' } },
    },
    battery: {
      fields: {
        chargeRate: { point: 'battery.power', unit: 'kW' },
        stateOfCharge: { point: 'battery.soc', min: 0, max: 100, digits: 1 },
        chargeLimitMin: { point: 'battery.dischargeCutoff', digits: 1 },
        chargeLimitMax: { point: 'battery.chargeCutoff', digits: 1 },
        maxChargeRate: { point: 'battery.maxCharge', unit: 'kW' },
        maxDischargeRate: { point: 'battery.maxDischarge', unit: 'kW' },
        mode: { point: 'battery.workingMode', enum: WORKING_MODE },
        chargingState: [
          { point: 'battery.status', enum: BATTERY_STATUS },
          { sign: 'chargeRate', positive: 'CHARGING', negative: 'DISCHARGING', zero: 'IDLE', deadband: 0.01 },
        ],
      },
      staticData: { model: { point: 'inverter.model' }, batteryCapacity: { point: 'battery.capacity', unit: 'kWh', digits: 2 } },
    },
    meter: {
      fields: {
        // The hub keeps meter power positive while importing; Huawei counts feed-in as positive.
        power: { point: 'meter.activePower', unit: 'kW', invert: true },
        // Counters are magnitudes, yet some DTSU666-H meters report 37119 (and so 37121) negative:
        // huawei_solar issue #54, which huawei-solar-lib answers by taking the absolute value.
        energyImported: { point: 'meter.imported', magnitude: true },
        energyExported: { point: 'meter.exported', magnitude: true },
        frequency: { point: 'meter.frequency', digits: 2 },
      },
    },
  },
  commands: {
    // Optional capability: 47082 Discharge cutoff capacity (RW), the reserve kept for backup.
    setChargeLimitMin: { point: 'battery.dischargeCutoff', unit: '%' },
  },
});
