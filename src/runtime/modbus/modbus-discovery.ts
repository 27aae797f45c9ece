// Finds out what answers at a Modbus address: a SunSpec map (any base, with the walk's quirks) or a
// Huawei SUN2000, and which driver and device kinds fit. Used by `hub scan` and `hub devices add`.
import type { DeviceKind } from '../../domain/vocabulary.ts';
import type { ModbusLine, RequestOptions } from '../../transport/modbus-line.ts';
import { ModbusExceptionError, ModbusTimeoutError } from '../../transport/modbus-errors.ts';
import type { DriverRegistry } from './modbus-registry.ts';
import { detectSunSpec, SUNSPEC_BASES } from './sunspec-detect.ts';
import { decodeRaw } from './registers.ts';
import { DeviceReader } from './modbus-reader.ts';

export interface Identified {
  unitId: number;
  driver: string;
  kinds: DeviceKind[];
  manufacturer?: string;
  model?: string;
  /** SunSpec: where the map starts and which models it holds. */
  base?: number;
  models?: number[];
  /** SunSpec model 160: each module's IDStr, in order ("MPPT 1", "StCha 3", …). */
  mpptModules?: string[];
}

/**
 * The unit ids makers use: 1–3 (most inverters, Huawei, SolarEdge), 71 (KOSTAL PLENTICORE), 100 and
 * 126 (SMA), 200 (Fronius' primary Smart Meter), 201–204 (Fronius' secondary meters), 240 (Fronius
 * GEN24 meters in some setups). Others are probed with `hub scan --units`.
 */
export const DEFAULT_UNITS = [1, 2, 3, 71, 100, 126, 200, 201, 202, 203, 204, 240];

/** Which definition a SunSpec manufacturer string calls for. */
const SUNSPEC_MAKERS: ReadonlyArray<[RegExp, string]> = [[/fronius/i, 'fronius'], [/\bsma\b/i, 'sma'], [/solaredge/i, 'solaredge']];

const KIND_MODELS: ReadonlyArray<[DeviceKind, (id: number) => boolean]> = [
  ['pvInverter', (id) => (id >= 101 && id <= 103) || (id >= 111 && id <= 113)],
  ['battery', (id) => id === 124 || id === 713 || id === 802],
  ['meter', (id) => (id >= 201 && id <= 204) || (id >= 211 && id <= 214)],
];

export async function identify(line: ModbusLine, unitId: number, registry: DriverRegistry, options: RequestOptions = {},
  bases: readonly number[] = SUNSPEC_BASES): Promise<Identified | undefined> {
  const read = (address: number, count: number) => line.readRegisters(unitId, 3, address, count, options);
  const map = await detectSunSpec(read, bases);
  if (map) {
    const models = map.devices.flat();
    const ids = models.map((m) => m.id);
    const common = models.find((m) => m.id === 1);
    let manufacturer: string | undefined;
    let model: string | undefined;
    if (common) {
      const words = await read(common.address + 2, 32);
      manufacturer = text(words.slice(0, 16));
      model = text(words.slice(16, 32));
    }
    const maker = SUNSPEC_MAKERS.find(([pattern]) => manufacturer && pattern.test(manufacturer));
    const driver = maker && registry.has(maker[1]) ? maker[1] : 'sunspec';
    const candidates = KIND_MODELS.filter(([, test]) => ids.some(test)).map(([kind]) => kind);
    // A model can be listed with nothing in it: an SMA Sunny Boy without a battery lists model 124
    // with every measurement "not implemented" (only a mode and scale factors set; nielsbasjes/
    // modbus-schema's SB3.6 dump). A kind is offered only when the device measures something of it.
    const kinds: DeviceKind[] = [];
    for (const kind of candidates) if (await measures(line, registry, driver, unitId, kind, options)) kinds.push(kind);
    const mppt = models.find((m) => m.id === 160);
    const mpptModules = mppt ? await moduleNames(read, mppt.address, mppt.length) : undefined;
    return { unitId, driver, kinds, manufacturer, model, base: map.base, models: ids, ...(mpptModules ? { mpptModules } : {}) };
  }
  return identifyHuawei(read, unitId, registry);
}

/** SUN2000 inverters answer their model name at 30000 (15 registers, "SUN2000-…"). */
async function identifyHuawei(read: (a: number, c: number) => Promise<number[]>, unitId: number, registry: DriverRegistry): Promise<Identified | undefined> {
  if (!registry.has('huawei-sun2000')) return undefined;
  let name: string | undefined;
  try {
    name = text(await read(30000, 15));
  } catch (err) {
    if (err instanceof ModbusExceptionError || err instanceof ModbusTimeoutError) return undefined;
    throw err;
  }
  if (!name || !/^SUN2000/i.test(name)) return undefined;
  const kinds: DeviceKind[] = ['pvInverter'];
  try {
    const capacity = await read(37758, 2);
    if (((capacity[0]! << 16) >>> 0) + capacity[1]! > 0) kinds.push('battery');
  } catch {
    // no battery block: an inverter without storage
  }
  // 37100 [Power meter] Meter status: 1 normal; 0 (offline) is what an inverter without a meter says.
  try {
    const [status] = await read(37100, 1);
    if (status === 1) kinds.push('meter');
  } catch {
    // no meter block
  }
  return { unitId, driver: 'huawei-sun2000', kinds, manufacturer: 'Huawei', model: name };
}

/** Model 160's module IDStr values: 8 fixed registers after the header, then 20 per module, IDStr at +1. */
async function moduleNames(read: (a: number, c: number) => Promise<number[]>, address: number, length: number): Promise<string[]> {
  const count = Math.max(0, Math.floor((length - 8) / 20));
  const names: string[] = [];
  for (let i = 0; i < count; i++) names.push(text(await read(address + 2 + 8 + i * 20 + 1, 8)) ?? '');
  return names;
}

/**
 * Binding settings a hybrid's model 160 calls for: Fronius GEN24 lists its battery as modules
 * "StCha" and "StDisCha" beside the PV inputs (evcc issues 16256, 19905), so the battery's power is
 * charge minus discharge, and solar power is the PV modules' DC, not the AC side that also carries
 * the battery. Nothing when the modules say nothing of a battery.
 */
export function hybridSettings(modules: readonly string[] | undefined, kind: DeviceKind): Record<string, unknown> {
  if (!modules) return {};
  const index = (pattern: RegExp) => modules.flatMap((name, i) => (pattern.test(name.trim()) ? [i + 1] : []));
  // A GEN24 names them "StCha 3" and "StDisCha 4" (evcc issue 16256's trace of model 160 block 3).
  const charge = index(/^StCha\b/i);
  const discharge = index(/^StDisCha\b/i);
  if (charge.length + discharge.length === 0) return {};
  const batteryMppt = { charge, discharge };
  if (kind === 'battery') return { batteryMppt };
  if (kind === 'pvInverter') return { batteryMppt, solarPowerFrom: 'mppt' };
  return {};
}


/** The field of each kind that says the device really has it: a measurement, not a setting. */
const MEASUREMENT: Record<string, readonly string[]> = {
  pvInverter: ['solarPower'],
  battery: ['stateOfCharge', 'chargeRate'],
  meter: ['power', 'energyImported'],
};

async function measures(line: ModbusLine, registry: DriverRegistry, driver: string, unitId: number, kind: DeviceKind, options: RequestOptions): Promise<boolean> {
  const definition = registry.get(driver);
  if (!definition.kinds[kind]) return false;
  try {
    const state = await new DeviceReader(definition, { type: driver, unitId }, kind, line).readState(options);
    return (MEASUREMENT[kind] ?? []).some((field) => typeof state[field] === 'number');
  } catch {
    return false;
  }
}

function text(words: number[]): string | undefined {
  const value = decodeRaw(words, { register: 0, type: 'string', words: words.length }, true);
  return typeof value === 'string' ? value : undefined;
}
