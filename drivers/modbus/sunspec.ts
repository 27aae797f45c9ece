// Any SunSpec device (PV inverter, meter, storage): detection walks the map, these rules turn the
// models found into API fields. Makers with their own definitions (fronius.ts, sma.ts) reuse it.
import { defineDriver, type FieldRule, type KindMapping } from '../../src/runtime/modbus/definition.ts';
import { SUNSPEC_GROUPS } from './sunspec-models.ts';
import { adaptMpptMapping } from './sunspec-mppt.ts';

/** Inverter St (models 10x/11x) -> PV powerState.state. */
const INVERTER_STATE: Record<number, string> = {
  1: 'IDLE', // OFF
  2: 'IDLE', // SLEEPING: asleep at night, not offline
  3: 'IDLE', // STARTING
  4: 'PRODUCING', // MPPT
  5: 'PRODUCING', // THROTTLED
  6: 'IDLE', // SHUTTING_DOWN
  7: 'FAULT', // FAULT
  8: 'IDLE', // STANDBY
};

/** Storage ChaSt (models 124 and 802) -> battery chargingState. */
const CHARGE_STATUS: Record<number, string> = {
  1: 'IDLE', // OFF
  2: 'IDLE', // EMPTY
  3: 'DISCHARGING',
  4: 'CHARGING',
  5: 'IDLE', // FULL
  6: 'IDLE', // HOLDING
  7: 'IDLE', // TESTING
};

const kw = (point: string, extra: Partial<Extract<FieldRule, { point: string; unit?: unknown }>> = {}): FieldRule => ({ point, unit: 'kW', ...extra });
const pct = (point: string): FieldRule => ({ point, unit: '%', min: 0, max: 100, digits: 1 });

export const pvInverterMapping: KindMapping = {
  requires: ['inverter', 'inverterFloat'],
  fields: {
    solarPower: [kw('inverter.W', { min: 0 }), kw('inverterFloat.W', { min: 0 })],
    state: [
      { point: 'inverter.St', enum: INVERTER_STATE },
      { point: 'inverterFloat.St', enum: INVERTER_STATE },
      { sign: 'solarPower', positive: 'PRODUCING', negative: 'IDLE', zero: 'IDLE' },
    ],
  },
  staticData: { model: { point: 'common.Md' }, manufacturer: { point: 'common.Mn' } },
};

export const batteryMapping: KindMapping = {
  requires: ['storage', 'battery', 'derCapacity'],
  fields: {
    // Model 802 W is positive while discharging (generator convention); the API wants the opposite.
    chargeRate: [kw('battery.W', { invert: true })],
    stateOfCharge: [pct('battery.SoC'), pct('storage.ChaState'), pct('derCapacity.SoC')],
    chargeLimitMin: [pct('storage.MinRsvPct'), pct('battery.SoCRsvMin')],
    maxChargeRate: [kw('nameplate.MaxChaRte', { min: 0 }), kw('battery.WChaRteMax', { min: 0 }), kw('storage.WChaMax', { min: 0 })],
    maxDischargeRate: [kw('nameplate.MaxDisChaRte', { min: 0 }), kw('battery.WDisChaRteMax', { min: 0 })],
    chargingState: [
      { point: 'battery.State', enum: { 99: 'FAULT' } },
      { point: 'battery.ChaSt', enum: CHARGE_STATUS },
      { point: 'storage.ChaSt', enum: CHARGE_STATUS },
      { sign: 'chargeRate', positive: 'CHARGING', negative: 'DISCHARGING', zero: 'IDLE', deadband: 0.01 },
    ],
  },
  staticData: {
    model: { point: 'common.Md' },
    manufacturer: { point: 'common.Mn' },
    batteryCapacity: [
      { point: 'nameplate.WHRtg', unit: 'kWh', digits: 2 },
      { point: 'battery.WHRtg', unit: 'kWh', digits: 2 },
      { point: 'derCapacity.WHRtg', unit: 'kWh', digits: 2 },
    ],
  },
};

/** Meters have no state object in the API; the hub keeps these readings for later use. */
export const meterMapping: KindMapping = {
  requires: ['meter', 'meterFloat'],
  fields: {
    power: [kw('meter.W'), kw('meterFloat.W')],
    energyImported: [{ point: 'meter.TotWhImp', unit: 'kWh' }, { point: 'meterFloat.TotWhImp', unit: 'kWh' }],
    energyExported: [{ point: 'meter.TotWhExp', unit: 'kWh' }, { point: 'meterFloat.TotWhExp', unit: 'kWh' }],
    frequency: [{ point: 'meter.Hz', digits: 2 }, { point: 'meterFloat.Hz', digits: 2 }],
  },
  staticData: { model: { point: 'common.Md' }, manufacturer: { point: 'common.Mn' } },
};

export default defineDriver({
  type: 'sunspec',
  title: 'SunSpec device (any maker)',
  family: 'sunspec',
  vendors: [],
  defaults: { port: 502, unitIds: [1, 126], bases: [40000, 50000, 0], pollIntervalMs: 5000 },
  groups: SUNSPEC_GROUPS,
  kinds: { pvInverter: pvInverterMapping, battery: batteryMapping, meter: meterMapping },
  // Binding settings batteryMppt and solarPowerFrom: model 160 modules as battery or PV power.
  adaptMapping: adaptMpptMapping,
  commands: {
    // Optional capability: the minimum reserve a storage system keeps (model 124 MinRsvPct).
    setChargeLimitMin: { point: 'storage.MinRsvPct', unit: '%' },
  },
});
