// The shape of a maker's cloud definition (drivers/cloud/): which of the maker's data keys become
// which of the hub's vehicle fields, and how a value is read. The makers send their own words and
// sometimes numbers as strings (BMW CarData's stream sends "47" for 47 %), so every rule says what
// the value is; a missing, null or empty value is "not available" and leaves the field as it was.
import type { VEHICLE_VENDORS } from '../../domain/vocabulary.ts';

type VehicleVendor = (typeof VEHICLE_VENDORS)[number];

export interface CloudValueRule {
  /** The hub's field (the vehicle names of src/runtime/values/present.ts: stateOfCharge, rangeKm, …). */
  field: string;
  as: 'number' | 'boolean' | 'string';
  /** A maker's word → the hub's word (charging states); a word not listed is not available. */
  map?: Readonly<Record<string, string | boolean>>;
  /** Multiplies a number (W → kW). */
  scale?: number;
  /** Per unit the maker names beside the value, the factor to the hub's unit (Volvo's range: km or mi). */
  units?: Readonly<Record<string, number>>;
  digits?: number;
}

export interface CloudKey {
  /** The maker's key (a BMW telematic key). */
  key: string;
  rule: CloudValueRule;
}

export interface CloudDefinition {
  /** The binding's type. */
  type: string;
  /** How the maker is reached: BMW CarData's stream, or the Volvo Cars API's polling. */
  protocol: 'bmw-cardata' | 'volvo';
  title: string;
  /** Vehicle vendor codes the definition drives (BMW and MINI share CarData). */
  vendors: readonly VehicleVendor[];
  /**
   * Keys in order of preference: where two keys fill one field (a primary key and its fallback), the
   * first one the car has sent a usable value of wins. A key may come twice, with different words
   * (a last resort after the fallback: BMW's "no charging process").
   */
  keys: readonly CloudKey[];
}

export function defineCloudDriver(definition: CloudDefinition): CloudDefinition {
  return definition;
}

/** One value by its rule; undefined when the car sent nothing usable. */
export function readCloudValue(raw: unknown, rule: CloudValueRule, unit?: string): unknown {
  if (raw === null || raw === undefined || raw === '') return undefined;
  if (rule.map) {
    const word = rule.map[String(raw)];
    return word === undefined ? undefined : word;
  }
  if (rule.as === 'number') {
    const value = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw.trim()) : NaN;
    if (!Number.isFinite(value)) return undefined;
    let factor = rule.scale ?? 1;
    if (rule.units) {
      // A unit the rule does not know is not guessed at.
      const perUnit = unit === undefined ? undefined : rule.units[unit];
      if (perUnit === undefined) return undefined;
      factor *= perUnit;
    }
    const scaled = value * factor;
    return rule.digits === undefined ? scaled : Number(scaled.toFixed(rule.digits));
  }
  if (rule.as === 'boolean') {
    if (typeof raw === 'boolean') return raw;
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    return undefined;
  }
  return String(raw);
}

/**
 * The hub's fields from the values the car has sent so far (key → its latest value): per field the
 * first key in the definition's order that has a usable value; an unplugged car's chargingState is
 * UNPLUGGED.
 */
export function vehicleFields(definition: CloudDefinition, latest: ReadonlyMap<string, unknown>, units?: ReadonlyMap<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, rule } of definition.keys) {
    if (out[rule.field] !== undefined) continue;
    const value = readCloudValue(latest.get(key), rule, units?.get(key));
    if (value !== undefined) out[rule.field] = value;
  }
  // A car that says it is unplugged is UNPLUGGED, whatever its charging word ("not charging", "idle"):
  // the origin's chargingState has a value for it, and both makers' words leave the plug to other keys.
  if (out['isPlugged'] === false) out['chargingState'] = 'UNPLUGGED';
  return out;
}

/** Every field a definition can fill (what a new read replaces in the stored state). */
export function mappedFields(definition: CloudDefinition): string[] {
  return [...new Set(definition.keys.map((k) => k.rule.field))];
}
