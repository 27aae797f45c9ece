// The registry of MQTT driver definitions: one per binding `type`, refused loudly at start when a
// type is duplicated or a template names a setting the definition does not declare. A binding is
// checked when it is opened: required settings present, patterns matched, no MQTT wildcards.
import { z } from 'zod';
import type { DriverBinding } from '../../domain/device.ts';
import { COMMAND_TYPES, DEVICE_KINDS, type CommandType } from '../../domain/vocabulary.ts';
import type { Availability, MqttDriverDefinition, SeriesSpec } from './definition.ts';
import { isTopicSafe, parsePath } from '../values/values.ts';
import { DefinitionRegistry } from '../families/definition-registry.ts';

/** Placeholders every template may use besides the definition's settings. */
const BUILT_IN = new Set(['value', 'correlation']);

export class MqttDriverRegistry extends DefinitionRegistry<MqttDriverDefinition> {
  constructor(definitions: readonly MqttDriverDefinition[] = []) {
    super('MQTT ', checkDefinition, definitions);
  }

  /** The definition a binding runs: a configurable one takes the binding's own topics. */
  definitionFor(binding: DriverBinding): MqttDriverDefinition {
    const definition = this.get(binding.type);
    if (!definition.configurable) return definition;
    const custom = CustomDefinition.safeParse(binding);
    if (!custom.success) {
      const problems = custom.error.issues.map((i) => `${pathText(i.path) || 'the binding'}: ${/received undefined$/.test(i.message) ? 'is missing' : i.message}`);
      throw new Error(`driver ${binding.type}: the binding does not describe a usable device (${problems.join('; ')})`);
    }
    const { type: _type, chargerId: _chargerId, ...own } = custom.data;
    const merged = { ...definition, ...own, type: definition.type, configurable: true } as MqttDriverDefinition;
    checkDefinition(merged);
    return merged;
  }
}

/** The binding's settings with defaults, checked; throws a plain-language error. */
export function settingsOf(definition: MqttDriverDefinition, binding: DriverBinding, vendor?: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, spec] of Object.entries(definition.settings)) {
    const raw = binding[name] ?? (vendor !== undefined ? spec.defaultByVendor?.[vendor] : undefined) ?? spec.default;
    if (raw === undefined) {
      if (spec.required) throw new Error(`driver ${definition.type}: setting "${name}" is required (${spec.description})`);
      continue;
    }
    const value = String(raw);
    if (!isTopicSafe(value)) throw new Error(`driver ${definition.type}: setting "${name}" must not contain MQTT wildcards`);
    if (spec.pattern && !new RegExp(`^(?:${spec.pattern})$`).test(value)) {
      throw new Error(`driver ${definition.type}: setting "${name}" does not look right (${spec.description})`);
    }
    out[name] = value;
  }
  return out;
}

/** `state[0].fields.power.as`, the way an installer reads their own binding. */
function pathText(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${String(part)}` : String(part)), '');
}

export function availabilitiesOf(definition: MqttDriverDefinition): readonly Availability[] {
  const availability = definition.availability;
  return availability === undefined ? [] : Array.isArray(availability) ? availability : [availability as Availability];
}

function templatesOf(definition: MqttDriverDefinition): string[] {
  const out: string[] = definition.state.flatMap((s) => [s.topic, ...Object.values(s.fields).flatMap((r) => (r.fromSettings !== undefined ? [r.fromSettings] : []))]);
  for (const availability of availabilitiesOf(definition)) out.push(availability.topic);
  for (const step of [...(definition.onListen ?? []), ...(definition.dialects?.probe ? [definition.dialects.probe] : [])]) out.push(step.topic, step.payload);
  for (const variant of Object.values(definition.dialects?.variants ?? {})) out.push(...Object.values(variant));
  for (const step of definition.refresh ?? []) out.push(step.topic, step.payload);
  for (const command of Object.values(definition.commands ?? {})) {
    for (const step of command.publish) out.push(step.topic, step.payload, ...(step.withResponseTopic ? [step.withResponseTopic] : []));
    if (command.confirm.by !== 'state') out.push(command.confirm.topic);
  }
  return out;
}

function checkDefinition(definition: MqttDriverDefinition): void {
  const fail = (message: string) => {
    throw new Error(`MQTT driver ${definition.type}: ${message}`);
  };
  for (const kind of definition.kinds) if (!DEVICE_KINDS.includes(kind)) fail(`unknown kind ${kind}`);
  const dialects = definition.dialects;
  const dialectNames = new Set(Object.values(dialects?.variants ?? {}).flatMap((variant) => Object.keys(variant)));
  if (dialects) {
    if (!(dialects.setting in definition.settings)) fail(`dialects are chosen by ${dialects.setting}, which is not a setting`);
    if (!(dialects.preferred in dialects.variants)) fail(`the preferred dialect ${dialects.preferred} is not a variant`);
    for (const [name, variant] of Object.entries(dialects.variants)) {
      if (Object.keys(variant).length !== dialectNames.size) fail(`dialect ${name} does not give every placeholder (${[...dialectNames].join(', ')})`);
      for (const template of Object.values(variant)) if ([...template.matchAll(/\{(\w+)\}/g)].some(([, used]) => dialectNames.has(used!))) fail(`dialect ${name} uses a dialect placeholder`);
    }
  }
  for (const template of templatesOf(definition)) {
    for (const [, name] of template.matchAll(/\{(\w+)\}/g)) {
      if (!BUILT_IN.has(name!) && !(name! in definition.settings) && !dialectNames.has(name!)) fail(`template "${template}" uses {${name}}, which is not a setting`);
    }
  }
  // A series' list is written once a flush, apart from the other fields: no derived field uses it.
  const fields = new Set([...definition.state.flatMap((s) => Object.keys(s.fields)), ...Object.keys(definition.derived ?? {})]);
  for (const [field, rule] of Object.entries(definition.derived ?? {})) {
    for (const source of rule.firstOf) {
      for (const used of typeof source === 'string' ? [source] : [source.field, source.when.field]) {
        if (!fields.has(used) || used === field) fail(`derived field ${field} uses ${used}, which no state topic gives`);
      }
    }
  }
  if (definition.staleAfterSetting !== undefined) {
    const setting = definition.settings[definition.staleAfterSetting];
    if (!setting || setting.pattern !== '[0-9]+') fail(`staleAfterSetting ${definition.staleAfterSetting} must be a setting with pattern [0-9]+ (seconds)`);
  }
  for (const topic of definition.state) {
    if (/[#+]/.test(topic.topic)) fail(`state topic ${topic.topic} must not contain wildcards`);
    if (topic.series) checkSeries(topic.topic, topic.series, fail);
    for (const rule of Object.values(topic.fields)) {
      for (const path of rule.path === undefined ? [] : typeof rule.path === 'string' ? [rule.path] : rule.path) {
        if (parsePath(path).length === 0) fail(`empty path in ${topic.topic}`);
      }
    }
  }
  for (const [type, command] of Object.entries(definition.commands ?? {})) {
    if (command.publish.length === 0) fail(`command ${type} publishes nothing`);
    if (command.confirm.by === 'state') {
      const field = command.confirm.field;
      if (!fields.has(field)) fail(`command ${type} is confirmed by field ${field}, which no state topic gives`);
    }
  }
}

/** The largest list a definition may keep (SeriesSpec.maxSlots): 4 days of 15-minute slots is 384. */
export const MAX_SERIES_SLOTS = 1000;

function checkSeries(topic: string, series: SeriesSpec, fail: (message: string) => never): void {
  if (!Number.isInteger(series.maxSlots) || series.maxSlots < 1 || series.maxSlots > MAX_SERIES_SLOTS) fail(`series of ${topic} must keep 1 to ${MAX_SERIES_SLOTS} slots`);
  const parts = Object.values(series.slot).map((rule) => rule.at);
  if (parts.length === 0) fail(`series of ${topic} has no slot fields`);
  // One topic level each: the slots are heard through `<topic>/+/<at>` and nothing else.
  for (const at of parts) if (!/^[^/#+\u0000]+$/.test(at)) fail(`series part "${at}" of ${topic} must be one topic level without wildcards`);
  if (new Set(parts).size !== parts.length) fail(`series of ${topic} names a part twice`);
}

const Rule = z.strictObject({
  path: z.string().min(1).optional(),
  as: z.enum(['number', 'boolean', 'string']),
  scale: z.number().optional(),
  unit: z.enum(['W', 'kW', 'Wh', 'kWh', '%', 'V', 'A', 'Hz', 'h', '']).optional(),
  to: z.enum(['W', 'kW', 'Wh', 'kWh', '%', 'V', 'A', 'Hz', 'h', '']).optional(),
  digits: z.int().min(0).max(6).optional(),
  map: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  otherwise: z.union([z.string(), z.number(), z.boolean()]).optional(),
});
const Topic = z.string().min(1).max(512).refine((t) => !/[#+]/.test(t), 'must not contain MQTT wildcards');
const Step = z.strictObject({ topic: Topic, payload: z.string().max(4096), withResponseTopic: Topic.optional(), retain: z.boolean().optional() });
const Confirm = z.discriminatedUnion('by', [
  z.strictObject({ by: z.literal('state'), field: z.string(), equals: z.union([z.string(), z.number(), z.boolean()]).optional() }),
  z.strictObject({ by: z.literal('result'), topic: Topic, path: z.string().optional(), success: z.array(z.string()).min(1) }),
  z.strictObject({
    by: z.literal('response'), topic: Topic, correlation: z.union([z.literal('property'), z.strictObject({ path: z.string() })]),
    success: z.strictObject({ path: z.string().optional(), equals: z.array(z.string()).min(1) }), reasonPath: z.string().optional(),
  }),
]);
const Value = z.discriminatedUnion('from', [
  z.strictObject({ from: z.literal('none') }),
  z.strictObject({ from: z.literal('constant'), value: z.union([z.string(), z.number(), z.boolean()]) }),
  z.strictObject({ from: z.literal('payload'), field: z.string(), scale: z.number().optional(), digits: z.int().optional(), min: z.number().optional(), max: z.number().optional() }),
  z.strictObject({ from: z.literal('payload-enum'), field: z.string(), map: z.record(z.string(), z.union([z.string(), z.number()])) }),
]);

/** What an installer writes in a binding of the generic definition (see drivers/mqtt/generic.ts). */
const CustomDefinition = z.strictObject({
  // Keys of the binding the hub itself reads; anything else unknown is a mistake, refused by name.
  type: z.string(),
  chargerId: z.string().optional(),
  state: z.array(z.strictObject({ topic: Topic, format: z.enum(['json', 'plain']), fields: z.record(z.string(), Rule) })).min(1),
  availability: z.strictObject({ topic: Topic, path: z.string().optional(), online: z.array(z.string()).min(1), offline: z.array(z.string()).min(1) }).optional(),
  staleAfterMs: z.int().min(1000).optional(),
  refresh: z.array(Step).optional(),
  commands: z.partialRecord(z.enum(COMMAND_TYPES as [CommandType, ...CommandType[]]), z.strictObject({ value: Value, publish: z.array(Step).min(1), confirm: Confirm, timeoutMs: z.int().min(100).optional() })).optional(),
});
