// The parts every family's definition is made of: units, the field rules that turn read values into
// API fields, the value rules that pick a value out of a message or an answer, the command values and
// the binding settings. They live in the shared core so that each family's definition.ts imports them
// from here and no family imports another's.

export type Unit = 'W' | 'kW' | 'Wh' | 'kWh' | '%' | 'V' | 'A' | 'Hz' | 'h' | '';

/** A reference to a point: `group.point`, with `[n]` for the n-th repeating block, `[*]` for their sum,
 * `[1,2]` for the sum of the listed blocks, `[^3,4]` for all but those (see modbus/point-ref.ts). */
export type PointRef = string;

export type FieldRule =
  /**
   * A number, converted from the point's unit to `unit` (the API field's unit). `magnitude` takes
   * the absolute value, for counters whose sign the maker is known to get wrong.
   */
  | { point: PointRef; unit?: Unit; invert?: boolean; magnitude?: boolean; min?: number; max?: number; digits?: number }
  /** The difference of two points (e.g. battery charge minus discharge modules). */
  | { difference: [PointRef, PointRef]; unit?: Unit; digits?: number }
  /** A raw code turned into an API enum member; codes not listed give no value. */
  | { point: PointRef; enum: Record<number, string> }
  /** An enum member chosen by the sign of another field already mapped (e.g. chargeRate). */
  | { sign: string; positive: string; negative: string; zero: string; deadband?: number }
  /** A fixed value (e.g. the mode a device without mode registers always runs in). */
  | { constant: string | number };

/** How a value is read from a message and turned into an API value. */
export interface ValueRule {
  /** Where the value sits: absent for the whole payload; `a.b[2]` in a JSON payload; `"Label (R1T)"`
   * (quoted) for a key with dots or spaces; `list[type=eim].wNow` the first element of a list whose
   * key has that value; `list[*].power` that key of every element (a number rule sums them). Several paths: the first one present in the message
   * (a bridge whose labels differ by model or version). */
  path?: string | readonly string[];
  /** What the value becomes; 'number' parses numeric strings, 'boolean' takes true/false, 1/0, on/off;
   * 'count' counts the entries of an array (or its `slice`) that are true, or above `above`. */
  as: 'number' | 'boolean' | 'string' | 'count';
  /** For 'count': the part of the array counted (indexes, end exclusive), and the threshold of a number. */
  slice?: readonly [number, number];
  above?: number;
  /** A factor applied to the raw number before unit conversion, after `offset` is added. */
  scale?: number;
  offset?: number;
  /** A number written as hex text: its first byte, or its bytes little-endian and signed. */
  decode?: 'hex-byte' | 'hex-le-signed';
  /** The payload's unit and the field's unit (W → kW…). */
  unit?: Unit;
  to?: Unit;
  digits?: number;
  /** Raw value (as text) → the field's value; a value not listed gives no field unless `otherwise`. */
  map?: Record<string, string | number | boolean>;
  otherwise?: string | number | boolean;
  /** Not from the message: a text from the binding's settings, kept with the message's other values
   * (e.g. `{currency}`, what a price feed is quoted in). */
  fromSettings?: Template;
}

/** A value that goes into a published payload. `{value}` is the command's value in `unit`. */
export type Template = string;

/** How a command's payload becomes the value the device takes. */
export type CommandValue =
  | { from: 'none' }
  | { from: 'constant'; value: string | number | boolean }
  /** A number of the command payload (e.g. temperature, current), in the device's unit. */
  | { from: 'payload'; field: string; scale?: number; digits?: number; min?: number; max?: number }
  /** An enum of the payload mapped to the device's words. */
  | { from: 'payload-enum'; field: string; map: Record<string, string | number> }
  /** SET_SCHEDULE / SET_CHARGING_SCHEDULE: a named encoder writes the device's format. */
  | { from: 'schedule'; encoder: string };

export interface SettingSpec {
  required?: boolean;
  default?: string;
  /** A default that depends on the device's vendor code (before `default`). */
  defaultByVendor?: Record<string, string>;
  /** Checked when a binding is opened; topic parts must not hold MQTT wildcards. */
  pattern?: string;
  description: string;
}
