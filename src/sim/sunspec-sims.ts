// Simulated SunSpec devices fed by a SiteSource (a SiteModel, or a view of the demo's household): a PV inverter, a grid meter and a storage system.
// Values are written as a real device writes them: raw integers with scale factors (which change at
// run time, as they do on real inverters), "not implemented" for what the device lacks.
import type { SiteSource } from './household-model.ts';
import { SunSpecUnit, type ModelSpec, type SunSpecUnitOptions } from './sunspec-unit.ts';

export interface SunSpecSimOptions extends SunSpecUnitOptions {
  manufacturer?: string;
  model?: string;
  serial?: string;
  /** Use the float models (113, 213) instead of the scaled integer ones (103, 203). */
  float?: boolean;
  /** Report model 1 with L=65, as SolarEdge does. */
  shortCommonModel?: boolean;
  /**
   * Models listed in the map with every point "not implemented", as an SMA Sunny Boy without a
   * battery lists model 124 (nielsbasjes/modbus-schema's SMA SB3.6 dump).
   */
  emptyModels?: number[];
  /**
   * Meter power positive while feeding in, as SolarEdge meters count it (evcc's solaredge-hybrid
   * template reads it with scale -1; evcc issue 15445 shows a SE5000H's meter so).
   */
  feedInPositive?: boolean;
}

function common(unit: SunSpecUnit, options: SunSpecSimOptions, model: string): void {
  unit.set(1, 'Mn', options.manufacturer ?? 'Fronius');
  unit.set(1, 'Md', options.model ?? model);
  unit.set(1, 'Vr', '1.28.7-1');
  unit.set(1, 'SN', options.serial ?? '34119102');
  unit.set(1, 'DA', 1);
}

function commonSpec(options: SunSpecSimOptions): ModelSpec {
  return options.shortCommonModel ? { id: 1, length: 65 } : { id: 1 };
}

/** A raw int16 and the scale factor that keeps it in range, as inverters pick them. */
function scaled(value: number, preferredSf: number): [raw: number, sf: number] {
  for (let sf = preferredSf; sf <= 4; sf++) {
    const raw = Math.round(value / 10 ** sf);
    if (raw >= -32767 && raw <= 32767) return [raw, sf];
  }
  return [32767, 4];
}

export function sunspecInverter(site: SiteSource, options: SunSpecSimOptions = {}): SunSpecUnit {
  const inverterModel = options.float ? 113 : 103;
  const empty = (options.emptyModels ?? []).map((id) => ({ id }));
  const unit = new SunSpecUnit([commonSpec(options), { id: inverterModel }, { id: 120 }, { id: 160, modules: 2 }, ...empty], options);
  common(unit, options, 'Symo GEN24 10.0 Plus');
  unit.set(120, 'DERTyp', 4);
  unit.set(120, 'WRtg', 1000);
  unit.set(120, 'WRtg_SF', 1);
  unit.set(160, 'DCW_SF', 0);
  unit.set(160, 'DCWH_SF', 0);
  unit.set(160, 'IDStr', 'PV1', 1);
  unit.set(160, 'IDStr', 'PV2', 2);
  unit.onRead = () => {
    const now = site.read();
    const status = now.pvW > 0 ? 4 : 2; // MPPT while producing, SLEEPING at night
    unit.set(160, 'DCW', Math.round(now.pvW * 0.6), 1);
    unit.set(160, 'DCW', Math.round(now.pvW * 0.4), 2);
    if (options.float) {
      unit.set(113, 'W', now.pvW);
      unit.set(113, 'Hz', 50.01);
      unit.set(113, 'WH', Math.round(now.pvEnergyWh));
      unit.set(113, 'St', status);
      return;
    }
    // The power's scale factor moves with the power itself, the classic trap for readers that
    // fetch a value and its scale factor in two requests.
    const [w, wSf] = scaled(now.pvW, now.pvW < 3000 ? -1 : 0);
    unit.set(103, 'W', w);
    unit.set(103, 'W_SF', wSf);
    unit.set(103, 'Hz', 5001);
    unit.set(103, 'Hz_SF', -2);
    unit.set(103, 'PhVphA', 2302);
    unit.set(103, 'V_SF', -1);
    unit.set(103, 'WH', Math.round(now.pvEnergyWh));
    unit.set(103, 'WH_SF', 0);
    unit.set(103, 'St', status);
  };
  return unit;
}

export function sunspecMeter(site: SiteSource, options: SunSpecSimOptions = {}): SunSpecUnit {
  const meterModel = options.float ? 213 : 203;
  const unit = new SunSpecUnit([commonSpec(options), { id: meterModel }], options);
  common(unit, options, 'Smart Meter TS 65A-3');
  unit.onRead = () => {
    const now = site.read();
    const gridW = options.feedInPositive ? -now.gridW : now.gridW;
    const phases = [0.34, 0.33, 0.33].map((share) => Math.round(gridW * share));
    if (options.float) {
      unit.set(213, 'W', gridW);
      ['WphA', 'WphB', 'WphC'].forEach((p, i) => unit.set(213, p, phases[i]!));
      unit.set(213, 'Hz', 49.98);
      unit.set(213, 'TotWhImp', Math.round(now.gridImportWh));
      unit.set(213, 'TotWhExp', Math.round(now.gridExportWh));
      return;
    }
    unit.set(203, 'W', gridW);
    ['WphA', 'WphB', 'WphC'].forEach((p, i) => unit.set(203, p, phases[i]!));
    unit.set(203, 'W_SF', 0);
    unit.set(203, 'Hz', 4998);
    unit.set(203, 'Hz_SF', -2);
    // Energy counters in units of 10 Wh (TotWh_SF 1), as several meters report them.
    unit.set(203, 'TotWhImp', Math.round(now.gridImportWh / 10));
    unit.set(203, 'TotWhExp', Math.round(now.gridExportWh / 10));
    unit.set(203, 'TotWh_SF', 1);
  };
  return unit;
}

export interface BatterySimOptions extends SunSpecSimOptions {
  /** Also publish model 713 (DER storage capacity). */
  withModel713?: boolean;
  /** Leave model 802 out, as inverters that only know model 124 do. */
  without802?: boolean;
}

export function sunspecBattery(site: SiteSource, options: BatterySimOptions = {}): SunSpecUnit {
  const models: ModelSpec[] = [commonSpec(options), { id: 120 }, { id: 124 }];
  if (!options.without802) models.push({ id: 802 });
  if (options.withModel713) models.push({ id: 713 });
  const unit = new SunSpecUnit(models, options);
  common(unit, options, 'BYD Battery-Box Premium HVS 10.2');
  unit.set(120, 'DERTyp', 82);
  unit.set(120, 'WHRtg', Math.round(site.batteryCapacityWh / 10));
  unit.set(120, 'WHRtg_SF', 1);
  unit.set(120, 'MaxChaRte', site.batteryMaxW);
  unit.set(120, 'MaxChaRte_SF', 0);
  unit.set(120, 'MaxDisChaRte', site.batteryMaxW);
  unit.set(120, 'MaxDisChaRte_SF', 0);
  unit.set(124, 'WChaMax', site.batteryMaxW);
  unit.set(124, 'WChaMax_SF', 0);
  unit.set(124, 'MinRsvPct', 100);
  unit.set(124, 'MinRsvPct_SF', -1);
  unit.set(124, 'ChaState_SF', -1);
  unit.set(124, 'StorCtl_Mod', 0);
  if (!options.without802) {
    unit.set(802, 'WHRtg', Math.round(site.batteryCapacityWh / 10));
    unit.set(802, 'WHRtg_SF', 1);
    unit.set(802, 'WChaRteMax', site.batteryMaxW);
    unit.set(802, 'WDisChaRteMax', site.batteryMaxW);
    unit.set(802, 'WChaDisChaMax_SF', 0);
    unit.set(802, 'SoCRsvMin', 100);
    unit.set(802, 'SoC_SF', -1);
    unit.set(802, 'W_SF', 0);
    unit.set(802, 'State', 3);
  }
  if (options.withModel713) {
    unit.set(713, 'WHRtg', Math.round(site.batteryCapacityWh / 10));
    unit.set(713, 'WH_SF', 1);
    unit.set(713, 'Pct_SF', -1);
  }
  unit.onRead = () => {
    const now = site.read();
    const chaSt = now.batteryW > 0 ? 4 : now.batteryW < 0 ? 3 : 6; // CHARGING, DISCHARGING, HOLDING
    unit.set(124, 'ChaState', Math.round(now.socPct * 10));
    unit.set(124, 'ChaSt', chaSt);
    if (!options.without802) {
      unit.set(802, 'SoC', Math.round(now.socPct * 10));
      unit.set(802, 'ChaSt', chaSt);
      // Model 802 W follows the generator convention of the DER models: positive = discharging.
      unit.set(802, 'W', -now.batteryW);
    }
    if (options.withModel713) {
      unit.set(713, 'SoC', Math.round(now.socPct * 10));
      unit.set(713, 'WHAvail', Math.round((site.batteryCapacityWh * now.socPct) / 1000));
    }
  };
  return unit;
}

export interface HybridSimOptions extends SunSpecSimOptions {
  /** Model 160 modules whose DCW stays "not implemented" (0xFFFF), as on a device that lacks them. */
  missingModules?: number[];
}

/**
 * A hybrid inverter laid out like a Fronius GEN24 Plus: inverter (103), nameplate (120), storage
 * (124: SoC, no power) and model 160 with four modules, 1 "MPPT 1", 2 "MPPT 2", 3 "StCha 3" (DC power into
 * the battery) and 4 "StDisCha 4" (DC power out of it). There is no model 802: the battery power is
 * only in model 160. DCW_SF changes with the power, as the scaled models do.
 */
export function sunspecHybrid(site: SiteSource, options: HybridSimOptions = {}): SunSpecUnit {
  const unit = new SunSpecUnit([commonSpec(options), { id: 103 }, { id: 120 }, { id: 124 }, { id: 160, modules: 4 }], options);
  common(unit, options, 'Symo GEN24 10.0 Plus');
  unit.set(120, 'DERTyp', 82);
  unit.set(120, 'WHRtg', Math.round(site.batteryCapacityWh / 10));
  unit.set(120, 'WHRtg_SF', 1);
  unit.set(124, 'WChaMax', site.batteryMaxW);
  unit.set(124, 'WChaMax_SF', 0);
  unit.set(124, 'ChaState_SF', -1);
  unit.set(160, 'DCWH_SF', 0);
  // IDStr as a GEN24 sends it: evcc issue 16256 traces module 3 as "StCha 3" (ID 3).
  ['MPPT 1', 'MPPT 2', 'StCha 3', 'StDisCha 4'].forEach((name, i) => {
    unit.set(160, 'ID', i + 1, i + 1);
    unit.set(160, 'IDStr', name, i + 1);
  });
  const missing = new Set(options.missingModules ?? []);
  unit.onRead = () => {
    const now = site.read();
    const dc = [now.pvW * 0.6, now.pvW * 0.4, Math.max(now.batteryW, 0), Math.max(-now.batteryW, 0)];
    // Model 160 DCW is uint16 with one DCW_SF for every module: tenths of a W while they all fit.
    const sf = Math.max(...dc) * 10 <= 65534 ? -1 : 0;
    unit.set(160, 'DCW_SF', sf);
    dc.forEach((w, i) => {
      if (!missing.has(i + 1)) unit.set(160, 'DCW', Math.round(w / 10 ** sf), i + 1);
    });
    const [w, wSf] = scaled(now.pvW - now.batteryW, 0);
    unit.set(103, 'W', w);
    unit.set(103, 'W_SF', wSf);
    unit.set(103, 'St', now.pvW > 0 || now.batteryW < 0 ? 4 : 2);
    unit.set(124, 'ChaState', Math.round(now.socPct * 10));
    unit.set(124, 'ChaSt', now.batteryW > 0 ? 4 : now.batteryW < 0 ? 3 : 6);
  };
  return unit;
}
