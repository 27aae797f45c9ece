// Finding a SunSpec map and walking its models. Quirks handled: the marker one register late (maps
// numbered from 1), a model length that differs from the specification (SolarEdge's model 1 is 65
// long, so lengths are always read, never assumed), maps without the 0xFFFF end marker (the walk
// stops at exception 2, or at a zero id), and several logical devices in one map (each starts with
// another model 1).
import { ModbusExceptionError, ModbusTimeoutError } from '../../transport/modbus-errors.ts';

export const SUNSPEC_BASES = [40000, 50000, 0] as const;
export const SUNSPEC_UNIT_IDS = [1, 126] as const;
const MARKER = [0x5375, 0x6e53]; // "SunS"
const MAX_MODELS = 64;

export type ReadHolding = (address: number, count: number) => Promise<number[]>;

export interface SunSpecModel {
  id: number;
  /** Address of the model's ID register. */
  address: number;
  /** L as the device reports it: registers after ID and L. */
  length: number;
}

export interface SunSpecMap {
  base: number;
  /** Logical devices in the map, each a list of models starting with model 1. */
  devices: SunSpecModel[][];
}

/** The address where the models start (just after "SunS"), or undefined when this base has no map. */
export async function findMarker(read: ReadHolding, base: number): Promise<number | undefined> {
  let words: number[];
  try {
    words = await read(base, 3);
  } catch (err) {
    if (err instanceof ModbusExceptionError) return undefined;
    throw err;
  }
  if (words[0] === MARKER[0] && words[1] === MARKER[1]) return base + 2;
  if (words[1] === MARKER[0] && words[2] === MARKER[1]) return base + 3;
  return undefined;
}

export async function walkModels(read: ReadHolding, first: number): Promise<SunSpecModel[][]> {
  const devices: SunSpecModel[][] = [];
  let address = first;
  for (let n = 0; n < MAX_MODELS && address + 2 <= 0x10000; n++) {
    let header: number[];
    try {
      header = await read(address, 2);
    } catch (err) {
      if (err instanceof ModbusExceptionError) break; // no end marker: the map simply stops
      throw err;
    }
    const [id, length] = header as [number, number];
    if (id === 0xffff || id === 0) break;
    if (id === 1 || devices.length === 0) devices.push([]);
    devices[devices.length - 1]!.push({ id, address, length });
    address += 2 + length;
  }
  return devices;
}

/** Probes the bases in order; a base that times out is given up for the whole unit (the unit is not
 * there), one that answers with an exception or without the marker is not a SunSpec base. */
export async function detectSunSpec(read: ReadHolding, bases: readonly number[] = SUNSPEC_BASES): Promise<SunSpecMap | undefined> {
  for (const base of bases) {
    let first: number | undefined;
    try {
      first = await findMarker(read, base);
    } catch (err) {
      if (err instanceof ModbusTimeoutError) return undefined;
      throw err;
    }
    if (first === undefined) continue;
    const devices = await walkModels(read, first);
    if (devices.length > 0) return { base, devices };
  }
  return undefined;
}
