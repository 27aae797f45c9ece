// Reads one device through its driver definition: finds the SunSpec map when the family needs it,
// plans the fewest reads for the points the device kind maps, decodes them and applies the field
// rules. It holds no timers; the scheduler decides when to read.
import type { DriverBinding } from '../../domain/device.ts';
import type { DeviceKind } from '../../domain/vocabulary.ts';
import type { ModbusLine, RequestOptions } from '../../transport/modbus-line.ts';
import { ModbusExceptionError, EXCEPTION_ILLEGAL_ADDRESS } from '../../transport/modbus-errors.ts';
import type { DriverDefinition, FieldRule, KindMapping, PointDef } from './definition.ts';
import { applyScale, decodeRaw, encodeValue, wordsOf } from './registers.ts';
import { planReads, type Block, type Span } from './read-plan.ts';
import { detectSunSpec, SUNSPEC_UNIT_IDS, type SunSpecModel } from './sunspec-detect.ts';
import { evaluateFields, type PointValues } from '../values/field-rules.ts';
import { parseRef, refsOfRules } from './point-ref.ts';

interface Located { def: PointDef; addresses: number[]; sf?: { def: PointDef; address: number } }
/** The words one request returned. */
interface ReadBlock { fn: number; start: number; data: number[] }

export class DeviceReader {
  /** Requests sent for the last read; the bench compares it with the minimum. */
  lastBlocks: Block[] = [];
  private models: SunSpecModel[] | undefined;
  private unitId: number | undefined;

  constructor(
    readonly definition: DriverDefinition,
    readonly binding: DriverBinding,
    readonly kind: DeviceKind,
    readonly line: ModbusLine,
  ) {
    const unit = binding['unitId'] ?? definition.defaults?.unitId;
    this.unitId = typeof unit === 'number' ? unit : undefined;
  }

  get unit(): number | undefined {
    return this.unitId;
  }

  /** The kind's state in API units; only fields the device really reported are present. */
  async readState(options: RequestOptions = {}): Promise<Record<string, unknown>> {
    const mapping = this.mappingOf(this.kind);
    if (!mapping) throw new Error(`driver ${this.definition.type} does not map a ${this.kind}`);
    const state = await this.evaluate(mapping.fields, options);
    for (const field of invertedFields(this.binding)) {
      if (typeof state[field] === 'number') state[field] = -(state[field] as number);
    }
    return state;
  }

  /** staticData fields (model, capacity…) read once when a device is added. */
  async readStatic(options: RequestOptions = {}): Promise<Record<string, unknown>> {
    const rules = this.mappingOf(this.kind)?.staticData;
    return rules ? this.evaluate(rules, options) : {};
  }

  /** SunSpec: the kinds whose required groups the device's models provide. */
  async detectKinds(options: RequestOptions = {}): Promise<DeviceKind[]> {
    await this.ensureLayout(options);
    return (Object.keys(this.definition.kinds) as DeviceKind[]).filter((kind) =>
      (this.mappingOf(kind)!.requires ?? []).some((group) => this.groupModel(group) !== undefined));
  }

  /** Optional capability: writes a command value, converted to the point's raw encoding. */
  async execute(command: string, value: number, options: RequestOptions = {}): Promise<void> {
    const def = this.definition.commands?.[command];
    if (!def) throw new Error(`driver ${this.definition.type} has no command ${command}`);
    await this.ensureLayout(options);
    const located = this.locate(def.point);
    if (!located || located.addresses.length !== 1) throw new Error(`point ${def.point} is not on this device`);
    let sf = 0;
    if (located.sf) {
      const [word] = await this.line.readRegisters(this.unitId!, located.sf.def.fn ?? 3, located.sf.address, 1, options);
      const raw = decodeRaw([word!], located.sf.def, true);
      if (typeof raw !== 'number') throw new Error(`scale factor of ${def.point} is not implemented`);
      sf = raw;
    }
    await this.line.writeRegisters(this.unitId!, located.addresses[0]!, encodeValue(value, located.def, sf), options);
  }

  /** Forgets the SunSpec layout so that the next read walks the map again (firmware updates move models). */
  forgetLayout(): void {
    this.models = undefined;
  }

  /** The kind's mapping with the binding's own settings applied (SunSpec `batteryMppt`…). */
  private mappingOf(kind: DeviceKind): KindMapping | undefined {
    const mapping = this.definition.kinds[kind];
    return mapping && this.definition.adaptMapping ? this.definition.adaptMapping(mapping, kind, this.binding) : mapping;
  }

  private async evaluate(rules: Record<string, FieldRule | readonly FieldRule[]>, options: RequestOptions): Promise<Record<string, unknown>> {
    await this.ensureLayout(options);
    const located = new Map<string, Located>();
    for (const ref of refsOfRules(rules)) {
      const point = this.locate(ref);
      if (point) located.set(ref, point);
    }
    const blocks = await this.readBlocks(this.spansOf(located), options);
    const values: PointValues = new Map();
    const units = new Map<string, string | undefined>();
    for (const [ref, point] of located) {
      values.set(ref, this.valueOf(point, blocks));
      units.set(ref, point.def.unit);
    }
    return evaluateFields(rules, values, units);
  }

  private spansOf(located: Map<string, Located>): Span[] {
    const sunspec = this.definition.family === 'sunspec';
    const spans: Span[] = [];
    for (const { def, addresses, sf } of located.values()) {
      const fn = def.fn ?? 3;
      for (const address of addresses) {
        let start = address;
        let end = address + wordsOf(def);
        if (sf && Math.max(end, sf.address + 1) - Math.min(start, sf.address) <= 125) {
          start = Math.min(start, sf.address);
          end = Math.max(end, sf.address + 1);
        } else if (sf) {
          // Too far apart for one request (model 160 beyond its 6th module): the scale factor is
          // read on its own, the one place a value and its SF may come from two requests.
          spans.push({ fn, start: sf.address, length: 1, segment: sunspec ? 'sunspec' : 'map' });
        }
        spans.push({ fn, start, length: end - start, segment: sunspec ? 'sunspec' : 'map' });
      }
    }
    return spans;
  }

  private async readBlocks(spans: Span[], options: RequestOptions): Promise<ReadBlock[]> {
    const maxGap = this.definition.maxGap ?? (this.definition.family === 'sunspec' ? Number.POSITIVE_INFINITY : 0);
    const blocks = planReads(spans, maxGap);
    this.lastBlocks = blocks;
    const read: ReadBlock[] = [];
    for (const block of blocks) {
      let data: number[];
      try {
        data = await this.line.readRegisters(this.unitId!, block.fn, block.start, block.length, options);
      } catch (err) {
        if (err instanceof ModbusExceptionError && err.code === EXCEPTION_ILLEGAL_ADDRESS && this.definition.family === 'sunspec') {
          this.forgetLayout();
        }
        throw err;
      }
      read.push({ fn: block.fn, start: block.start, data });
    }
    return read;
  }

  /**
   * A point's value. A sum over blocks adds the blocks that are implemented and is absent only when
   * none is: an SMA lists six model 160 modules of which only the first two are in use, the others
   * "not implemented" (nielsbasjes/modbus-schema's Sunny Boy 3.6 dump).
   */
  private valueOf(point: Located, blocks: ReadBlock[]): number | string | undefined {
    const sunspec = this.definition.family === 'sunspec';
    const fn = point.def.fn ?? 3;
    const size = wordsOf(point.def);
    let total: number | undefined;
    for (const address of point.addresses) {
      const block = blockWith(blocks, fn, address, size, point.sf?.address);
      const slice = Array.from({ length: size }, (_, i) => block?.data[address + i - block.start] ?? 0);
      let sf: number | undefined;
      if (point.sf) {
        // The SF from the same answer as the value whenever the plan could put them together.
        const sfBlock = blockWith(blocks, fn, point.sf.address, 1, address) ?? blockWith(blocks, fn, point.sf.address, 1);
        const raw = decodeRaw([sfBlock?.data[point.sf.address - sfBlock.start] ?? 0x8000], point.sf.def, true);
        sf = typeof raw === 'number' ? raw : undefined;
      }
      const value = applyScale(decodeRaw(slice, point.def, sunspec), point.def, sf);
      if (point.addresses.length === 1) return value;
      if (typeof value === 'number') total = (total ?? 0) + value;
    }
    return total;
  }

  /** Where a point reference lives on this device, or undefined when the device lacks it. */
  private locate(ref: string): Located | undefined {
    const { group: groupName, point: pointName, index } = parseRef(ref);
    const group = this.definition.groups[groupName];
    const def = group?.points[pointName];
    if (!group || !def) throw new Error(`driver ${this.definition.type}: unknown point ${ref}`);
    let origin = 0;
    let blocks = 1;
    if (group.models) {
      const model = this.groupModel(groupName);
      if (!model) return undefined;
      origin = model.address;
      if (group.repeating) blocks = Math.floor((model.length + 2 - group.repeating.start) / group.repeating.size);
    }
    let addresses = [origin + def.register];
    if (group.repeating && index !== undefined) {
      const at = (n: number) => origin + group.repeating!.start + (n - 1) * group.repeating!.size + def.register;
      const all = Array.from({ length: blocks }, (_, n) => n + 1);
      let chosen: number[];
      if (index === '*') chosen = all;
      else if (typeof index === 'number') chosen = [index];
      else chosen = index.except ? all.filter((n) => !index.blocks.includes(n)) : index.blocks;
      // A block the device does not have, or an empty set, leaves the point absent.
      if (chosen.length === 0 || chosen.some((n) => n < 1 || n > blocks)) return undefined;
      addresses = chosen.map(at);
    }
    const sfDef = def.sf ? group.points[def.sf] : undefined;
    if (def.sf && !sfDef) throw new Error(`driver ${this.definition.type}: unknown scale factor ${groupName}.${def.sf}`);
    return { def, addresses, sf: sfDef ? { def: sfDef, address: origin + sfDef.register } : undefined };
  }

  private groupModel(groupName: string): SunSpecModel | undefined {
    const wanted = this.definition.groups[groupName]?.models;
    return wanted && this.models?.find((m) => wanted.includes(m.id));
  }

  private async ensureLayout(options: RequestOptions): Promise<void> {
    if (this.definition.family !== 'sunspec' || this.models) return;
    const bases = numbers(this.binding['base']) ?? this.definition.defaults?.bases;
    const units = this.unitId !== undefined ? [this.unitId] : (this.definition.defaults?.unitIds ?? SUNSPEC_UNIT_IDS);
    for (const unitId of units) {
      const map = await detectSunSpec((address, count) => this.line.readRegisters(unitId, 3, address, count, options), bases);
      if (!map) continue;
      this.unitId = unitId;
      const requires = this.mappingOf(this.kind)?.requires ?? [];
      const fits = (models: SunSpecModel[]) => requires.some((g) => models.some((m) => this.definition.groups[g]?.models?.includes(m.id)));
      this.models = map.devices.find(fits) ?? map.devices[0]!;
      return;
    }
    throw new ModbusExceptionError(EXCEPTION_ILLEGAL_ADDRESS, `no SunSpec map on unit ${units.join(' or ')}`);
  }
}

/** The block that holds `size` words at `address`, preferring one that also holds `near`. */
function blockWith(blocks: ReadBlock[], fn: number, address: number, size: number, near?: number): ReadBlock | undefined {
  const holds = (b: ReadBlock, a: number, n: number) => b.fn === fn && a >= b.start && a + n <= b.start + b.data.length;
  return blocks.find((b) => holds(b, address, size) && (near === undefined || holds(b, near, 1)))
    ?? (near === undefined ? undefined : blocks.find((b) => holds(b, address, size)));
}

function numbers(value: unknown): number[] | undefined {
  return typeof value === 'number' ? [value] : undefined;
}

function invertedFields(binding: DriverBinding): string[] {
  const invert = binding['invert'];
  return Array.isArray(invert) ? invert.filter((f): f is string => typeof f === 'string') : [];
}
