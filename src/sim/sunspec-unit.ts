// A simulated SunSpec device: the "SunS" marker, then models laid out from the ordered point lists
// in sunspec-models.json (transcribed from the SunSpec Alliance's definitions), then the end marker.
// Offsets are computed here by summing point sizes, independently of the driver's offset tables,
// so a wrong offset on either side shows up as a failing test instead of a shared mistake.
import layouts from './sunspec-models.json' with { type: 'json' };
import { readHoldingRegisters, type SimUnit } from './modbus-sim-server.ts';

type PointEntry = [name: string, type: string, size: number];
interface LayoutEntry { points?: PointEntry[]; repeating?: PointEntry[]; same?: string }
const LAYOUTS = layouts as unknown as Record<string, LayoutEntry>;

export interface ModelSpec {
  id: number;
  /** Reported L when a device gets it wrong (SolarEdge reports 65 for model 1). */
  length?: number;
  /** Repeating modules of model 160. */
  modules?: number;
}

export interface SunSpecUnitOptions {
  base?: number;
  /** Some devices end the map without the 0xFFFF marker and answer exception 2 past it. */
  endMarker?: boolean;
}

interface PlacedPoint { address: number; type: string; size: number }

export class SunSpecUnit implements SimUnit {
  readonly base: number;
  private readonly registers = new Map<number, number>();
  /** Absolute address of every point: `${model}.${point}` or `${model}.${point}[${module}]` (1-based). */
  private readonly points = new Map<string, PlacedPoint>();
  /** Called before each read so that values evolve with time without timers of their own. */
  onRead: (() => void) | undefined;

  constructor(models: ModelSpec[], options: SunSpecUnitOptions = {}) {
    this.base = options.base ?? 40000;
    let address = this.base;
    this.put(address, [0x5375, 0x6e53]); // "SunS"
    address += 2;
    for (const model of models) address = this.place(model, address);
    if (options.endMarker !== false) this.put(address, [0xffff, 0]);
  }

  /** Address of a point, e.g. address(103, 'W'), address(160, 'DCW', 2). */
  address(model: number, point: string, module?: number): number {
    const placed = this.points.get(key(model, point, module));
    if (!placed) throw new Error(`simulated device has no point ${key(model, point, module)}`);
    return placed.address;
  }

  /** Writes a raw value (already scaled) in the point's encoding; strings are NUL padded. */
  set(model: number, point: string, value: number | string, module?: number): void {
    const placed = this.points.get(key(model, point, module));
    if (!placed) throw new Error(`simulated device has no point ${key(model, point, module)}`);
    this.put(placed.address, encode(placed, value));
  }

  read(fn: 3 | 4, address: number, count: number): number[] | null {
    if (fn !== 3) return null;
    this.onRead?.();
    return readHoldingRegisters(this.registers, fn, address, count);
  }

  write(address: number, values: number[]): boolean {
    for (let i = 0; i < values.length; i++) if (!this.registers.has(address + i)) return false;
    this.put(address, values);
    return true;
  }

  private place(model: ModelSpec, start: number): number {
    const entry = layoutOf(model.id);
    const fixed = entry.points ?? [];
    const repeating = entry.repeating ?? [];
    const modules = model.modules ?? 0;
    const declared = fixed.reduce((n, p) => n + p[2], 0) + modules * repeating.reduce((n, p) => n + p[2], 0);
    const length = model.length ?? declared;
    this.put(start, [model.id, length]);
    let address = start + 2;
    for (const [name, type, size] of fixed) {
      this.points.set(key(model.id, name), { address, type, size });
      this.put(address, notImplemented(type, size));
      address += size;
    }
    for (let m = 1; m <= modules; m++) {
      for (const [name, type, size] of repeating) {
        this.points.set(key(model.id, name, m), { address, type, size });
        this.put(address, notImplemented(type, size));
        address += size;
      }
    }
    if (this.points.has(key(model.id, 'N'))) this.set(model.id, 'N', modules);
    // A short L (the SolarEdge quirk) cuts the model: the next one starts where L says.
    const end = start + 2 + length;
    for (let a = end; a < address; a++) this.registers.delete(a);
    return end;
  }

  private put(address: number, words: number[]): void {
    words.forEach((w, i) => this.registers.set(address + i, w & 0xffff));
  }
}

function key(model: number, point: string, module?: number): string {
  return module === undefined ? `${model}.${point}` : `${model}.${point}[${module}]`;
}

function layoutOf(id: number): LayoutEntry {
  const entry = LAYOUTS[String(id)];
  if (!entry) throw new Error(`no layout for SunSpec model ${id}`);
  return entry.same ? LAYOUTS[entry.same]! : entry;
}

/** The SunSpec "not implemented" value of each type: what a device sends for a point it lacks. */
function notImplemented(type: string, size: number): number[] {
  switch (type) {
    case 'int16': case 'sunssf': return [0x8000];
    case 'uint16': case 'enum16': case 'bitfield16': return [0xffff];
    case 'int32': return [0x8000, 0];
    case 'uint32': case 'bitfield32': return [0xffff, 0xffff];
    case 'float32': return size === 2 ? [0x7fc0, 0] : new Array<number>(size).fill(0).map((_, i) => (i % 2 === 0 ? 0x7fc0 : 0));
    default: return new Array<number>(size).fill(0); // acc32, string, pad, count
  }
}

function encode(point: PlacedPoint, value: number | string): number[] {
  if (typeof value === 'string') {
    const bytes = Buffer.alloc(point.size * 2);
    bytes.write(value.slice(0, point.size * 2), 'latin1');
    return Array.from({ length: point.size }, (_, i) => bytes.readUInt16BE(i * 2));
  }
  const buf = Buffer.alloc(4);
  switch (point.type) {
    case 'float32':
      buf.writeFloatBE(value);
      return [buf.readUInt16BE(0), buf.readUInt16BE(2)];
    case 'int32': case 'uint32': case 'acc32': case 'bitfield32':
      buf.writeUInt32BE(value >>> 0);
      return [buf.readUInt16BE(0), buf.readUInt16BE(2)];
    default:
      return [value & 0xffff];
  }
}
