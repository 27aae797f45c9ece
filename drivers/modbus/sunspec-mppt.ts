// Per-device settings that map model 160 (multiple MPPT) modules, as hybrid inverters need: their
// battery sits on DC modules of model 160 and has no power point of its own (models 124 and 713
// have none; 802 is often missing). Modules are numbered from 1 in the order the device lists them
// (their model 160 IDStr, e.g. "PV1", "StCha", tells which is which), not by IDStr itself, which is
// free text that differs between makers and firmware versions.
//
//   batteryMppt: [3, 4]          modules whose DCW is power out of the battery (DC into the
//                                inverter): chargeRate = -(sum of their DCW), negative = discharging.
//   batteryMppt: { charge: [3], discharge: [4] }
//                                separate charge and discharge modules, as Fronius GEN24 lists them
//                                ("StCha", "StDisCha"): chargeRate = sum(charge) - sum(discharge).
//   solarPowerFrom: 'mppt'       PV inverter: solarPower = the sum of the DCW of every module not
//                                named in batteryMppt (default 'ac': W of models 101–103/111–113).
//
// Module DCW is scaled by model 160 DCW_SF, read in the same request. Given a setting, the field
// comes from the modules only: modules that are "not implemented" (unused inputs) are left out of
// the sum, and the field is absent only when none of them (or DCW_SF) is implemented.
// The binding's `invert: ['chargeRate']` still flips the result.
import type { DriverBinding } from '../../src/domain/device.ts';
import type { DeviceKind } from '../../src/domain/vocabulary.ts';
import type { FieldRule, KindMapping } from '../../src/runtime/modbus/definition.ts';
import { blockRef } from '../../src/runtime/modbus/point-ref.ts';

const DCW = 'mppt.DCW'; // model 160 module DCW, scaled by DCW_SF

interface BatteryModules { discharge: number[]; charge: number[] }

export function adaptMpptMapping(mapping: KindMapping, kind: DeviceKind, binding: DriverBinding): KindMapping {
  const battery = batteryModules(binding);
  const from = binding['solarPowerFrom'];
  if (from !== undefined && from !== 'ac' && from !== 'mppt') {
    throw new Error(`driver ${binding.type}: solarPowerFrom must be 'ac' or 'mppt', not ${JSON.stringify(from)}`);
  }
  if (kind === 'battery' && battery) {
    const { charge, discharge } = battery;
    let rule: FieldRule;
    if (charge.length === 0) rule = { point: blockRef(DCW, discharge), unit: 'kW', invert: true };
    else if (discharge.length === 0) rule = { point: blockRef(DCW, charge), unit: 'kW' };
    else rule = { difference: [blockRef(DCW, charge), blockRef(DCW, discharge)], unit: 'kW' };
    return withField(mapping, 'chargeRate', rule);
  }
  if (kind === 'pvInverter' && from === 'mppt') {
    const used = battery ? [...battery.charge, ...battery.discharge] : [];
    return withField(mapping, 'solarPower', { point: blockRef(DCW, used, true), unit: 'kW', min: 0 });
  }
  return mapping;
}

/** The mapping with one field read from model 160 only; model 160 then also makes the kind. */
function withField(mapping: KindMapping, field: string, rule: FieldRule): KindMapping {
  return {
    ...mapping,
    requires: [...(mapping.requires ?? []), 'mppt'],
    fields: { ...mapping.fields, [field]: [rule] },
  };
}

function batteryModules(binding: DriverBinding): BatteryModules | undefined {
  const setting = binding['batteryMppt'];
  if (setting === undefined) return undefined;
  const modules = (value: unknown): number[] => {
    if (!Array.isArray(value) || !value.every((n) => Number.isInteger(n) && n >= 1)) {
      throw new Error(`driver ${binding.type}: batteryMppt takes model 160 module numbers from 1, e.g. [3, 4] or { charge: [3], discharge: [4] }`);
    }
    return value as number[];
  };
  if (Array.isArray(setting)) return { discharge: modules(setting), charge: [] };
  const { charge = [], discharge = [] } = (typeof setting === 'object' && setting !== null ? setting : { charge: null }) as Record<string, unknown>;
  const result = { charge: modules(charge), discharge: modules(discharge) };
  if (result.charge.length + result.discharge.length === 0) modules(null);
  return result;
}
