// From MQTT payloads to API values and back: paths into JSON, numbers with units, enum maps, and
// topic/payload templates filled from a binding's settings.
import { convertUnit } from '../registers.ts';
import type { ValueRule } from './definition.ts';

/** Splits `a.b[2]."Label (x.y)"` into keys and indexes. */
export function parsePath(path: string): (string | number)[] {
  const parts: (string | number)[] = [];
  const pattern = /"([^"]*)"|\[(\d+)\]|([^.[\]"]+)/g;
  for (const match of path.matchAll(pattern)) {
    if (match[1] !== undefined) parts.push(match[1]);
    else if (match[2] !== undefined) parts.push(Number(match[2]));
    else if (match[3] !== undefined) parts.push(match[3]);
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
  let current = data;
  for (const part of parsePath(path)) {
    if (current === null || typeof current !== 'object') return undefined;
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
      const number = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw.trim()) : NaN;
      if (!Number.isFinite(number)) return undefined;
      const value = convertUnit(number * (rule.scale ?? 1), rule.unit, rule.to);
      return round(value, rule.digits ?? 3);
    }
  }
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
