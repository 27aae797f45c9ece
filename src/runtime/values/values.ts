// From MQTT payloads to API values and back: paths into JSON, numbers with units, enum maps, and
// topic/payload templates filled from a binding's settings.
import { convertUnit } from './units.ts';
import type { ValueRule } from '../families/definition-parts.ts';

/** A step of a path: a key, an index, every element (`[*]`), or the first element whose key has
 * a value (`[measurementType=net-consumption]`). */
export type PathPart = string | number | { every: true } | { key: string; equals: string };

/** Splits `a.b[2]."Label (x.y)"[*][type=eim]` into keys, indexes and selections. */
export function parsePath(path: string): PathPart[] {
  const parts: PathPart[] = [];
  const pattern = /"([^"]*)"|\[(\d+)\]|\[\*\]|\[([^\]=]+)=([^\]]*)\]|([^.[\]"]+)/g;
  for (const match of path.matchAll(pattern)) {
    if (match[1] !== undefined) parts.push(match[1]);
    else if (match[2] !== undefined) parts.push(Number(match[2]));
    else if (match[3] !== undefined) parts.push({ key: match[3], equals: match[4]! });
    else if (match[5] !== undefined) parts.push(match[5]);
    else parts.push({ every: true });
  }
  return parts;
}

export function valueAt(data: unknown, path: string | readonly string[] | undefined): unknown {
  if (!path) return data;
  if (typeof path !== 'string') {
    for (const one of path) {
      const value = valueAt(data, one);
      if (value !== undefined) return value;
    }
    return undefined;
  }
  return walk(data, parsePath(path));
}

/** After `[*]` the rest of the path is taken in every element: the result is the list of those present. */
function walk(data: unknown, parts: readonly PathPart[]): unknown {
  let current = data;
  for (const [i, part] of parts.entries()) {
    if (current === null || typeof current !== 'object') return undefined;
    if (typeof part === 'object' && 'every' in part) {
      if (!Array.isArray(current)) return undefined;
      return current.map((item) => walk(item, parts.slice(i + 1))).filter((v) => v !== undefined && v !== null);
    }
    if (typeof part === 'object') {
      current = Array.isArray(current)
        ? current.find((item) => item !== null && typeof item === 'object' && String((item as Record<string, unknown>)[part.key]) === part.equals)
        : undefined;
      continue;
    }
    current = (current as Record<string | number, unknown>)[part];
  }
  return current;
}

/** The payload as the definition declares it: parsed JSON, or the text itself. */
export function decodePayload(payload: Buffer, format: 'json' | 'plain' | 'ebusd'): unknown {
  const text = payload.toString('utf8');
  if (format === 'plain') return text;
  if (format === 'ebusd') return ebusdFields(text);
  try {
    return JSON.parse(text);
  } catch {
    // Bridges publish bare values on some topics even in JSON mode ("23.5", "on").
    return text;
  }
}

/**
 * ebusd's payload as the fields joined by `;`, whatever its output mode (src/ebusd/mqtthandler.cpp,
 * src/lib/ebus/data.cpp): plain `21.5` or `06:00;22:00;-:-;…`; `--mqttjson`
 * `{"value": {"value": 21.5}}`, with fields of repeated names keyed by index
 * `{"0": {"name": "from", "value": "06:00"}, …}`; `--mqttjson=short` `{"value": 21.5}`.
 */
export function ebusdFields(text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return text;
  let data: unknown;
  try {
    data = JSON.parse(trimmed);
  } catch {
    return text;
  }
  if (data === null || typeof data !== 'object') return text;
  return Object.values(data as Record<string, unknown>).map((field) => {
    const value = field !== null && typeof field === 'object' && 'value' in field ? (field as { value: unknown }).value : field;
    return value === null || value === undefined ? '' : String(value);
  }).join(';');
}

const TRUE_WORDS = new Set(['true', '1', 'on', 'yes', 'online']);
const FALSE_WORDS = new Set(['false', '0', 'off', 'no', 'offline']);

/** Applies a rule to a decoded payload; undefined when the value is absent or not understood. */
export function applyRule(rule: ValueRule, data: unknown): string | number | boolean | undefined {
  const raw = valueAt(data, rule.path);
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (rule.map) {
    const mapped = rule.map[String(raw)];
    return mapped !== undefined ? mapped : rule.otherwise;
  }
  switch (rule.as) {
    case 'count': {
      if (!Array.isArray(raw)) return undefined;
      const part = rule.slice ? raw.slice(rule.slice[0], rule.slice[1]) : raw;
      return part.filter((item) => (typeof item === 'number' ? item > (rule.above ?? 0) : item === true)).length;
    }
    case 'string':
      return typeof raw === 'object' ? JSON.stringify(raw) : String(raw);
    case 'boolean': {
      const word = String(raw).trim().toLowerCase();
      if (TRUE_WORDS.has(word)) return true;
      if (FALSE_WORDS.has(word)) return false;
      return undefined;
    }
    case 'number': {
      // A list (a path through `[*]`) is summed: the power of every battery of a gateway.
      const number = Array.isArray(raw) ? sumOf(raw) : rule.decode && typeof raw === 'string' ? decodeHex(raw, rule.decode) : toNumber(raw);
      if (number === undefined || !Number.isFinite(number)) return undefined;
      const value = convertUnit((number + (rule.offset ?? 0)) * (rule.scale ?? 1), rule.unit, rule.to);
      return round(value, rule.digits ?? 3);
    }
  }
}

/**
 * Numbers a device writes as hex text (Daikin's BRP084 adapters): `hex-byte` the first byte
 * ("18" → 24), `hex-le-signed` bytes little-endian and signed ("2200" → 34, "F6FF" → −10).
 */
function decodeHex(raw: string, decode: NonNullable<ValueRule['decode']>): number | undefined {
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(raw)) return undefined;
  const bytes = Buffer.from(raw, 'hex');
  if (decode === 'hex-byte') return bytes[0]!;
  let value = 0;
  for (let i = bytes.length - 1; i >= 0; i--) value = value * 256 + bytes[i]!;
  const top = 2 ** (8 * bytes.length);
  return value >= top / 2 ? value - top : value;
}

function toNumber(raw: unknown): number | undefined {
  return typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw.trim()) : undefined;
}

/** The sum of a list's numbers; undefined when none is a number. */
function sumOf(list: readonly unknown[]): number | undefined {
  const numbers = list.map(toNumber).filter((n): n is number => n !== undefined && Number.isFinite(n));
  return numbers.length === 0 ? undefined : numbers.reduce((a, b) => a + b, 0);
}

export function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  const rounded = Math.round(value * factor) / factor;
  return Object.is(rounded, -0) ? 0 : rounded;
}

/** Fills `{name}` placeholders; a placeholder without a value is an error, never an empty string. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_all, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`template ${template} needs {${name}}`);
    return value;
  });
}

/** Whether a topic received matches a subscribed topic (no wildcards: exact match). */
export function isTopicSafe(part: string): boolean {
  return !/[#+\u0000]/.test(part);
}
