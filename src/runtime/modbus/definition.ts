// The shape of a driver definition: a device family declared as data (drivers/*.ts). Points say
// where a value lives and how it is encoded; fields say how points become the API's fields, in the
// API's units and enums. The engine (modbus-reader.ts) needs nothing else.
import type { DriverBinding } from '../../domain/device.ts';
import type { DeviceKind, VendorDomain } from '../../domain/vocabulary.ts';
import type { LineOptions } from '../../transport/modbus-line.ts';
import type { CommandValue, FieldRule, PointRef, Unit } from '../families/definition-parts.ts';

export type { FieldRule, PointRef, Unit };

export type PointType =
  | 'int16' | 'uint16' | 'int32' | 'uint32' | 'acc32' | 'float32' | 'string'
  | 'sunssf' | 'enum16' | 'bitfield16' | 'bitfield32';

export interface PointDef {
  /** PDU address (0-based) in a register map; in a SunSpec group, the offset from the model's ID register. */
  register: number;
  /** 3 holding registers (default), 4 input registers. */
  fn?: 3 | 4;
  type: PointType;
  /** Registers a string occupies. */
  words?: number;
  /** 32-bit values: which register holds the high word. Default high-first (big-endian). */
  wordOrder?: 'high-first' | 'low-first';
  /** Fixed factor from the raw value to `unit` (e.g. 0.1 for a value in tenths). */
  scale?: number;
  /** A sunssf point of the same group: value = raw × 10^sf, read in the same request as the value. */
  sf?: string;
  unit?: Unit;
  /** The raw value a device sends for "not implemented"; SunSpec groups use SunSpec's sentinels. */
  missing?: number;
}

export interface PointGroup {
  /** SunSpec model ids that carry these points (any one of them); absent for a plain register map. */
  models?: readonly number[];
  /** SunSpec repeating blocks (model 160): offset of the first block and the size of each. */
  repeating?: { start: number; size: number };
  points: Record<string, PointDef>;
}

export interface KindMapping {
  /** SunSpec: the device is this kind when at least one of these groups is present. */
  requires?: readonly string[];
  /** API field -> rules, tried in order; the first that yields a value wins. */
  fields: Record<string, FieldRule | readonly FieldRule[]>;
  /** staticData fields read when the device is added (model name, capacity…). */
  staticData?: Record<string, FieldRule | readonly FieldRule[]>;
}

/** A command a device can carry out: the value is converted to the point's unit and written. Keys
 * that are API command types (SET_TEMPERATURE…) are carried out by the command worker: `value` says
 * where the number comes from, and the write is confirmed by reading `confirmField` back. */
export interface CommandDef {
  point: PointRef;
  unit?: Unit;
  value?: CommandValue;
  confirmField?: string;
}

export interface DriverDefinition {
  /** The binding's `type`. */
  type: string;
  title: string;
  family: 'sunspec' | 'register-map';
  /** Makers whose devices this definition reaches locally; registered in the vendor catalog. */
  vendors: ReadonlyArray<{ domain: VendorDomain; code: string }>;
  /** Binding defaults: unit id, port, poll interval… */
  defaults?: { unitId?: number; unitIds?: readonly number[]; port?: number; pollIntervalMs?: number; bases?: readonly number[] };
  /** Pauses and timeouts this family needs on its line. */
  line?: Partial<LineOptions>;
  /** How far two points may be apart and still be read in one request (registers in between
   * must exist on the device). SunSpec maps are contiguous, so a whole model can be read at once. */
  maxGap?: number;
  /** Modbus exception codes that mean "busy, ask again" rather than "broken". */
  busyExceptions?: readonly number[];
  groups: Record<string, PointGroup>;
  kinds: Partial<Record<DeviceKind, KindMapping>>;
  /** Optional capability: writes the device understands. */
  commands?: Record<string, CommandDef>;
  /** The binding may carry its own `points` and `fields` (the generic register-map driver). */
  configurable?: boolean;
  /** Per-device settings of a binding that change a kind's mapping (e.g. SunSpec `batteryMppt`);
   * throws on a malformed setting. */
  adaptMapping?: (mapping: KindMapping, kind: DeviceKind, binding: DriverBinding) => KindMapping;
}

/** Identity helper that type-checks a definition where it is written. */
export function defineDriver<const T extends DriverDefinition>(definition: T): T {
  return definition;
}
