// The registry of driver definitions: one per binding `type`. It refuses an unknown type, a
// duplicate type and a definition whose rules name points that do not exist, loudly and at start.
import { z } from 'zod';
import type { DriverBinding } from '../../domain/device.ts';
import { COMMAND_TYPES, DEVICE_KINDS, type CommandType } from '../../domain/vocabulary.ts';
import type { CommandDef, DriverDefinition, FieldRule, PointDef, PointGroup } from './definition.ts';
import { parseRef, refsOfRules } from './point-ref.ts';
import { DefinitionRegistry } from '../families/definition-registry.ts';

export class DriverRegistry extends DefinitionRegistry<DriverDefinition> {
  constructor(definitions: readonly DriverDefinition[] = []) {
    super('', checkDefinition, definitions);
  }

  /** The definition a binding runs: a configurable one gets the binding's own points and fields. */
  definitionFor(binding: DriverBinding): DriverDefinition {
    const definition = this.get(binding.type);
    if (!definition.configurable) return definition;
    const custom = CustomMap.safeParse(binding);
    if (!custom.success) {
      const problems = custom.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      throw new Error(`driver ${binding.type}: ${problems}`);
    }
    const kind = custom.data.kind;
    const merged: DriverDefinition = {
      ...definition,
      groups: { ...definition.groups, map: { points: custom.data.points as Record<string, PointDef> } },
      kinds: { ...definition.kinds, [kind]: { fields: prefixRefs(custom.data.fields as Record<string, FieldRule | FieldRule[]>) } },
      maxGap: custom.data.maxGap ?? definition.maxGap,
      commands: { ...definition.commands, ...prefixCommands(custom.data.commands ?? {}) },
    };
    checkDefinition(merged);
    return merged;
  }

  /** Declares every maker a registered definition reaches in the vendor catalog. */
}

const Point = z.strictObject({
  register: z.int().min(0).max(65535),
  fn: z.union([z.literal(3), z.literal(4)]).optional(),
  type: z.enum(['int16', 'uint16', 'int32', 'uint32', 'acc32', 'float32', 'string', 'enum16', 'bitfield16', 'bitfield32']),
  words: z.int().min(1).max(64).optional(),
  wordOrder: z.enum(['high-first', 'low-first']).optional(),
  scale: z.number().finite().optional(),
  unit: z.enum(['W', 'kW', 'Wh', 'kWh', '%', 'V', 'A', 'Hz', 'h', '']).optional(),
  missing: z.int().optional(),
});

/** The part of a binding the generic register-map driver reads: points by name, fields by rule. */
const CustomMap = z.looseObject({
  kind: z.enum(DEVICE_KINDS),
  points: z.record(z.string().regex(/^[A-Za-z0-9_]+$/), Point),
  fields: z.record(z.string(), z.any()),
  maxGap: z.int().min(0).max(124).optional(),
  /** API commands the device takes, each written to one point (e.g. SET_TEMPERATURE → a setpoint). */
  commands: z.partialRecord(z.enum(COMMAND_TYPES as [CommandType, ...CommandType[]]), z.strictObject({
    point: z.string(),
    unit: z.enum(['W', 'kW', 'Wh', 'kWh', '%', 'V', 'A', 'Hz', 'h', '']).optional(),
    value: z.discriminatedUnion('from', [
      z.strictObject({ from: z.literal('constant'), value: z.number() }),
      z.strictObject({ from: z.literal('payload'), field: z.string(), scale: z.number().optional(), min: z.number().optional(), max: z.number().optional() }),
      z.strictObject({ from: z.literal('payload-enum'), field: z.string(), map: z.record(z.string(), z.number()) }),
    ]),
    confirmField: z.string().optional(),
  })).optional(),
});

function prefixCommands(commands: Record<string, CommandDef | undefined>): Record<string, CommandDef> {
  const out: Record<string, CommandDef> = {};
  for (const [type, def] of Object.entries(commands)) if (def) out[type] = { ...def, point: def.point.includes('.') ? def.point : `map.${def.point}` };
  return out;
}

/** In a binding, points are named without a group; they live in the `map` group. */
function prefixRefs(fields: Record<string, FieldRule | FieldRule[]>): Record<string, FieldRule | FieldRule[]> {
  const fix = (rule: FieldRule): FieldRule => {
    if ('point' in rule && !rule.point.includes('.')) return { ...rule, point: `map.${rule.point}` };
    if ('difference' in rule) return { ...rule, difference: rule.difference.map((r) => (r.includes('.') ? r : `map.${r}`)) as [string, string] };
    return rule;
  };
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Array.isArray(v) ? v.map(fix) : fix(v)]));
}

function checkDefinition(definition: DriverDefinition): void {
  const where = `driver ${definition.type}`;
  for (const [name, group] of Object.entries(definition.groups)) checkGroup(where, name, group, definition.family);
  for (const [kind, mapping] of Object.entries(definition.kinds)) {
    const rules = { ...mapping!.fields, ...mapping!.staticData };
    for (const ref of refsOfRules(rules)) checkRef(where, definition, ref, kind);
    for (const group of mapping!.requires ?? []) {
      if (!definition.groups[group]) throw new Error(`${where}: ${kind} requires unknown group ${group}`);
    }
  }
  for (const [name, command] of Object.entries(definition.commands ?? {})) checkRef(where, definition, command.point, `command ${name}`);
}

function checkGroup(where: string, name: string, group: PointGroup, family: DriverDefinition['family']): void {
  if (family === 'sunspec' && !group.models?.length) throw new Error(`${where}: SunSpec group ${name} names no models`);
  if (family === 'register-map' && group.models) throw new Error(`${where}: register-map group ${name} cannot name SunSpec models`);
  for (const [pointName, point] of Object.entries(group.points)) {
    if (point.sf !== undefined && group.points[point.sf]?.type !== 'sunssf') {
      throw new Error(`${where}: ${name}.${pointName} names scale factor ${point.sf}, which is not a sunssf point of ${name}`);
    }
    if (point.type === 'string' && !point.words) throw new Error(`${where}: string point ${name}.${pointName} needs words`);
  }
}

function checkRef(where: string, definition: DriverDefinition, ref: string, user: string): void {
  const { group, point } = parseRef(ref);
  if (!definition.groups[group]?.points[point]) throw new Error(`${where}: ${user} reads unknown point ${ref}`);
}
