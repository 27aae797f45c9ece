// Register words to values and back: types, word order, SunSpec's "not implemented" sentinels and
// scale factors. A value that is not implemented is undefined, never a number.
import type { PointDef, PointType } from './definition.ts';

export function wordsOf(def: PointDef): number {
  switch (def.type) {
    case 'int32': case 'uint32': case 'acc32': case 'float32': case 'bitfield32': return 2;
    case 'string': return def.words ?? 1;
    default: return 1;
  }
}

/** SunSpec's "not implemented" raw value per type (acc32 0: an accumulator that never counted). */
const SUNSPEC_MISSING: Partial<Record<PointType, number>> = {
  int16: 0x8000, sunssf: 0x8000, uint16: 0xffff, enum16: 0xffff, bitfield16: 0xffff,
  int32: 0x80000000, uint32: 0xffffffff, bitfield32: 0xffffffff, acc32: 0,
};

/** The raw integer (or float, or string) of a point, or undefined when the device says "not implemented". */
export function decodeRaw(words: readonly number[], def: PointDef, sunspec: boolean): number | string | undefined {
  const lowFirst = def.wordOrder === 'low-first';
  const hi = words[lowFirst ? 1 : 0] ?? 0;
  const lo = words[lowFirst ? 0 : 1] ?? 0;
  let raw: number;
  let unsigned: number;
  switch (def.type) {
    case 'string': {
      const bytes = Buffer.alloc(words.length * 2);
      words.forEach((w, i) => bytes.writeUInt16BE(w & 0xffff, i * 2));
      const text = bytes.toString('latin1').replace(/\0.*$/s, '').trim();
      return text === '' ? undefined : text;
    }
    case 'float32': {
      const buf = Buffer.alloc(4);
      buf.writeUInt16BE(hi, 0);
      buf.writeUInt16BE(lo, 2);
      const value = buf.readFloatBE(0);
      return Number.isFinite(value) ? value : undefined;
    }
    case 'int16': case 'sunssf':
      unsigned = words[0]! & 0xffff;
      raw = unsigned >= 0x8000 ? unsigned - 0x10000 : unsigned;
      break;
    case 'uint16': case 'enum16': case 'bitfield16':
      unsigned = words[0]! & 0xffff;
      raw = unsigned;
      break;
    case 'int32':
      unsigned = ((hi << 16) >>> 0) + lo;
      raw = unsigned >= 0x80000000 ? unsigned - 0x100000000 : unsigned;
      break;
    default: // uint32, acc32, bitfield32
      unsigned = ((hi << 16) >>> 0) + lo;
      raw = unsigned;
  }
  const missing = def.missing ?? (sunspec ? SUNSPEC_MISSING[def.type] : undefined);
  if (missing !== undefined && unsigned === missing) return undefined;
  return raw;
}

/** The value in the point's unit: raw × scale × 10^sf. Undefined when the value or its scale factor is missing. */
export function applyScale(raw: number | string | undefined, def: PointDef, sf: number | undefined): number | string | undefined {
  if (raw === undefined || typeof raw === 'string') return raw;
  if (def.sf !== undefined && sf === undefined) return undefined;
  let value = raw * (def.scale ?? 1);
  if (sf !== undefined && sf !== 0) value = sf > 0 ? value * 10 ** sf : value / 10 ** -sf;
  return value;
}

/** Register words for a value in the point's unit (the inverse of decode, for commands). */
export function encodeValue(value: number, def: PointDef, sf = 0): number[] {
  let raw = value / (def.scale ?? 1);
  raw = sf >= 0 ? raw / 10 ** sf : raw * 10 ** -sf;
  const buf = Buffer.alloc(4);
  switch (def.type) {
    case 'float32':
      buf.writeFloatBE(value / (def.scale ?? 1));
      break;
    case 'int32': case 'uint32': case 'acc32': case 'bitfield32':
      buf.writeUInt32BE(Math.round(raw) >>> 0);
      break;
    default:
      return [Math.round(raw) & 0xffff];
  }
  const words = [buf.readUInt16BE(0), buf.readUInt16BE(2)];
  return def.wordOrder === 'low-first' ? words.reverse() : words;
}
