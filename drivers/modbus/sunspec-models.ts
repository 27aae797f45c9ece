// SunSpec point tables: the points the hub reads, per model group, as offsets from the model's ID
// register. Source: SunSpec Alliance model definitions (sunspec/models, json/model_N.json); each
// comment names the model and point. Written by hand from the specification, independently of the
// simulator's layout (src/sim/sunspec-models.json), so the two check each other.
import type { PointGroup } from '../../src/runtime/modbus/definition.ts';

export const commonGroup: PointGroup = {
  models: [1],
  points: {
    Mn: { register: 2, type: 'string', words: 16 }, // model 1 Mn: manufacturer
    Md: { register: 18, type: 'string', words: 16 }, // model 1 Md: model name
    SN: { register: 50, type: 'string', words: 16 }, // model 1 SN: serial number
  },
};

/** Models 101 (single phase), 102 (split phase), 103 (three phase): same layout, scale factors. */
export const inverterGroup: PointGroup = {
  models: [101, 102, 103],
  points: {
    W: { register: 14, type: 'int16', sf: 'W_SF', unit: 'W' }, // model 10x W: AC power
    W_SF: { register: 15, type: 'sunssf' }, // model 10x W_SF
    Hz: { register: 16, type: 'uint16', sf: 'Hz_SF', unit: 'Hz' }, // model 10x Hz: line frequency
    Hz_SF: { register: 17, type: 'sunssf' }, // model 10x Hz_SF
    WH: { register: 24, type: 'acc32', sf: 'WH_SF', unit: 'Wh' }, // model 10x WH: lifetime AC energy
    WH_SF: { register: 26, type: 'sunssf' }, // model 10x WH_SF
    DCW: { register: 31, type: 'int16', sf: 'DCW_SF', unit: 'W' }, // model 10x DCW: DC power
    DCW_SF: { register: 32, type: 'sunssf' }, // model 10x DCW_SF
    St: { register: 38, type: 'enum16' }, // model 10x St: operating state (1 OFF … 8 STANDBY)
  },
};

/** Models 111–113: the same points as float32, without scale factors. */
export const inverterFloatGroup: PointGroup = {
  models: [111, 112, 113],
  points: {
    W: { register: 22, type: 'float32', unit: 'W' }, // model 11x W: AC power
    Hz: { register: 24, type: 'float32', unit: 'Hz' }, // model 11x Hz
    WH: { register: 32, type: 'float32', unit: 'Wh' }, // model 11x WH: lifetime AC energy
    DCW: { register: 38, type: 'float32', unit: 'W' }, // model 11x DCW
    St: { register: 48, type: 'enum16' }, // model 11x St: operating state
  },
};

export const nameplateGroup: PointGroup = {
  models: [120],
  points: {
    WRtg: { register: 3, type: 'uint16', sf: 'WRtg_SF', unit: 'W' }, // model 120 WRtg: continuous power rating
    WRtg_SF: { register: 4, type: 'sunssf' }, // model 120 WRtg_SF
    WHRtg: { register: 19, type: 'uint16', sf: 'WHRtg_SF', unit: 'Wh' }, // model 120 WHRtg: storage energy rating
    WHRtg_SF: { register: 20, type: 'sunssf' }, // model 120 WHRtg_SF
    MaxChaRte: { register: 23, type: 'uint16', sf: 'MaxChaRte_SF', unit: 'W' }, // model 120 MaxChaRte
    MaxChaRte_SF: { register: 24, type: 'sunssf' }, // model 120 MaxChaRte_SF
    MaxDisChaRte: { register: 25, type: 'uint16', sf: 'MaxDisChaRte_SF', unit: 'W' }, // model 120 MaxDisChaRte
    MaxDisChaRte_SF: { register: 26, type: 'sunssf' }, // model 120 MaxDisChaRte_SF
  },
};

export const storageGroup: PointGroup = {
  models: [124],
  points: {
    WChaMax: { register: 2, type: 'uint16', sf: 'WChaMax_SF', unit: 'W' }, // model 124 WChaMax: max charge power
    StorCtl_Mod: { register: 5, type: 'bitfield16' }, // model 124 StorCtl_Mod: bit0 charge, bit1 discharge limits active
    MinRsvPct: { register: 7, type: 'uint16', sf: 'MinRsvPct_SF', unit: '%' }, // model 124 MinRsvPct: minimum reserve
    ChaState: { register: 8, type: 'uint16', sf: 'ChaState_SF', unit: '%' }, // model 124 ChaState: state of charge
    ChaSt: { register: 11, type: 'enum16' }, // model 124 ChaSt: 1 OFF 2 EMPTY 3 DISCHARGING 4 CHARGING 5 FULL 6 HOLDING 7 TESTING
    WChaMax_SF: { register: 18, type: 'sunssf' }, // model 124 WChaMax_SF
    MinRsvPct_SF: { register: 21, type: 'sunssf' }, // model 124 MinRsvPct_SF
    ChaState_SF: { register: 22, type: 'sunssf' }, // model 124 ChaState_SF
  },
};

/** Model 160 (multiple MPPT): fixed part (DCW_SF 4, N 8), then N modules of 20 registers from
 * offset 10. Hybrid inverters list their battery as modules too: see sunspec-mppt.ts. */
export const mpptGroup: PointGroup = {
  models: [160],
  repeating: { start: 10, size: 20 },
  points: {
    DCW_SF: { register: 4, type: 'sunssf' }, // model 160 DCW_SF (fixed part)
    DCW: { register: 11, type: 'uint16', sf: 'DCW_SF', unit: 'W' }, // model 160 module DCW (offset within the block)
  },
};

/** Models 201–204 (meters, single phase … three phase delta). */
export const meterGroup: PointGroup = {
  models: [201, 202, 203, 204],
  points: {
    Hz: { register: 16, type: 'int16', sf: 'Hz_SF', unit: 'Hz' }, // model 20x Hz
    Hz_SF: { register: 17, type: 'sunssf' }, // model 20x Hz_SF
    W: { register: 18, type: 'int16', sf: 'W_SF', unit: 'W' }, // model 20x W: total real power
    W_SF: { register: 22, type: 'sunssf' }, // model 20x W_SF
    TotWhExp: { register: 38, type: 'acc32', sf: 'TotWh_SF', unit: 'Wh' }, // model 20x TotWhExp: exported energy
    TotWhImp: { register: 46, type: 'acc32', sf: 'TotWh_SF', unit: 'Wh' }, // model 20x TotWhImp: imported energy
    TotWh_SF: { register: 54, type: 'sunssf' }, // model 20x TotWh_SF
  },
};

export const meterFloatGroup: PointGroup = {
  models: [211, 212, 213, 214],
  points: {
    Hz: { register: 26, type: 'float32', unit: 'Hz' }, // model 21x Hz
    W: { register: 28, type: 'float32', unit: 'W' }, // model 21x W: total real power
    TotWhExp: { register: 60, type: 'float32', unit: 'Wh' }, // model 21x TotWhExp
    TotWhImp: { register: 68, type: 'float32', unit: 'Wh' }, // model 21x TotWhImp
  },
};

export const derCapacityGroup: PointGroup = {
  models: [713],
  points: {
    WHRtg: { register: 2, type: 'uint16', sf: 'WH_SF', unit: 'Wh' }, // model 713 WHRtg: energy rating
    SoC: { register: 4, type: 'uint16', sf: 'Pct_SF', unit: '%' }, // model 713 SoC
    WH_SF: { register: 7, type: 'sunssf' }, // model 713 WH_SF (static)
    Pct_SF: { register: 8, type: 'sunssf' }, // model 713 Pct_SF (static)
  },
};

export const batteryGroup: PointGroup = {
  models: [802],
  points: {
    WHRtg: { register: 3, type: 'uint16', sf: 'WHRtg_SF', unit: 'Wh' }, // model 802 WHRtg: nameplate energy
    WChaRteMax: { register: 4, type: 'uint16', sf: 'WChaDisChaMax_SF', unit: 'W' }, // model 802 WChaRteMax
    WDisChaRteMax: { register: 5, type: 'uint16', sf: 'WChaDisChaMax_SF', unit: 'W' }, // model 802 WDisChaRteMax
    SoCMax: { register: 7, type: 'uint16', sf: 'SoC_SF', unit: '%' }, // model 802 SoCMax
    SoCRsvMin: { register: 10, type: 'uint16', sf: 'SoC_SF', unit: '%' }, // model 802 SoCRsvMin: minimum reserve
    SoC: { register: 11, type: 'uint16', sf: 'SoC_SF', unit: '%' }, // model 802 SoC
    ChaSt: { register: 16, type: 'enum16' }, // model 802 ChaSt (same codes as model 124)
    State: { register: 22, type: 'enum16' }, // model 802 State: 1 DISCONNECTED … 99 FAULT
    W: { register: 47, type: 'int16', sf: 'W_SF', unit: 'W' }, // model 802 W: total battery power
    WHRtg_SF: { register: 53, type: 'sunssf' }, // model 802 WHRtg_SF
    WChaDisChaMax_SF: { register: 54, type: 'sunssf' }, // model 802 WChaDisChaMax_SF
    SoC_SF: { register: 56, type: 'sunssf' }, // model 802 SoC_SF
    W_SF: { register: 63, type: 'sunssf' }, // model 802 W_SF
  },
};

export const SUNSPEC_GROUPS = {
  common: commonGroup,
  inverter: inverterGroup,
  inverterFloat: inverterFloatGroup,
  nameplate: nameplateGroup,
  storage: storageGroup,
  mppt: mpptGroup,
  meter: meterGroup,
  meterFloat: meterFloatGroup,
  derCapacity: derCapacityGroup,
  battery: batteryGroup,
};
