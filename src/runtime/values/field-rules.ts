// Field rules: from decoded point values to API fields, in the API's units and enums. Rules of a
// field are tried in order and the first that yields a value wins; a field nothing yields is absent.
import type { FieldRule } from '../families/definition-parts.ts';
import { convertUnit } from './units.ts';

export type PointValues = Map<string, number | string | undefined>;

/** Values of the points in their declared units; `units` maps a reference to that unit. */
export function evaluateFields(rules: Record<string, FieldRule | readonly FieldRule[]>, values: PointValues, units?: Map<string, string | undefined>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, ruleOrRules] of Object.entries(rules)) {
    for (const rule of (Array.isArray(ruleOrRules) ? ruleOrRules : [ruleOrRules]) as FieldRule[]) {
      const value = apply(rule, values, out, units);
      if (value !== undefined) {
        out[field] = value;
        break;
      }
    }
  }
  return out;
}

function apply(rule: FieldRule, values: PointValues, done: Record<string, unknown>, units?: Map<string, string | undefined>): unknown {
  if ('constant' in rule) return rule.constant;
  if ('sign' in rule) {
    const basis = done[rule.sign];
    if (typeof basis !== 'number') return undefined;
    const deadband = rule.deadband ?? 0;
    return basis > deadband ? rule.positive : basis < -deadband ? rule.negative : rule.zero;
  }
  if ('enum' in rule) {
    const raw = values.get(rule.point);
    return typeof raw === 'number' ? rule.enum[raw] : undefined;
  }
  if ('difference' in rule) {
    const [a, b] = rule.difference.map((ref) => values.get(ref));
    if (typeof a !== 'number' || typeof b !== 'number') return undefined;
    return round(convertUnit(a - b, units?.get(rule.difference[0]), rule.unit), rule.digits);
  }
  const raw = values.get(rule.point);
  if (typeof raw === 'string') return raw;
  if (typeof raw !== 'number') return undefined;
  let value = convertUnit(raw, units?.get(rule.point), rule.unit);
  if (rule.invert) value = -value;
  if (rule.magnitude) value = Math.abs(value);
  if (rule.min !== undefined) value = Math.max(rule.min, value);
  if (rule.max !== undefined) value = Math.min(rule.max, value);
  return round(value, rule.digits);
}

function round(value: number, digits = 3): number {
  const factor = 10 ** digits;
  const rounded = Math.round(value * factor) / factor;
  return Object.is(rounded, -0) ? 0 : rounded;
}
