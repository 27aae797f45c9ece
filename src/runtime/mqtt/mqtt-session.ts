// One MQTT-driven device: its definition and settings, the topics it listens on, the values last
// heard, and the waiters of commands and refreshes. It turns messages into values and says which of
// them are API state; the runtime owns the client and the store.
import { EventEmitter } from 'node:events';
import type { IPublishPacket } from 'mqtt';
import type { DeviceRecord } from '../../domain/device.ts';
import type { DeviceKind } from '../../domain/vocabulary.ts';
import type { Logger } from '../../log.ts';
import type { Availability, MqttDriverDefinition, StateTopic } from './definition.ts';
import { settingsOf } from './mqtt-registry.ts';
import { applyRule, decodePayload, fillTemplate, valueAt } from '../values/values.ts';
import { SeriesBuffer } from './series.ts';

/** The setting value that listens on every dialect and follows the one the device is heard on. */
export const AUTO_DIALECT = 'auto';

/** The fields of each kind's state object in the API; other values are the device's telemetry. */
const API_STATE_FIELDS: Partial<Record<DeviceKind, readonly string[]>> = {
  charger: ['chargeRate', 'chargeCurrentMax', 'isPlugged', 'activePhases', 'chargingState'],
  battery: ['mode', 'chargeRate', 'stateOfCharge', 'chargeLimitMin', 'chargeLimitMax', 'maxChargeRate', 'maxDischargeRate', 'chargingState'],
  pvInverter: ['state', 'solarPower'],
};

export type Route =
  | { kind: 'state'; session: MqttSession; topic: StateTopic; dialects: readonly string[] }
  /** A list's count topic, or a wildcard filter of its slots' parts (SeriesSpec). */
  | { kind: 'series'; session: MqttSession; series: SeriesBuffer }
  | { kind: 'availability'; session: MqttSession; source: number }
  | { kind: 'reply'; session: MqttSession };

export interface StateUpdate {
  /** Values for the stored state, and which fields this message is the authority on. */
  values: Record<string, unknown>;
  mapped: string[];
}

export class MqttSession extends EventEmitter {
  readonly settings: Record<string, string>;
  /** Everything last heard, API fields and telemetry alike (what confirmations compare with). */
  readonly values: Record<string, unknown> = {};
  readonly staticValues: Record<string, unknown> = {};
  /** false after a last will / offline availability message, true after online; undefined: unknown.
   * With several availability topics: false when any says offline, true when one says online. */
  available: boolean | undefined;
  /** The topic variant the device is heard on (or the one the binding names); undefined: not yet. */
  dialect: string | undefined;
  private readonly dialectCandidates: readonly string[];
  private readonly availabilities: readonly Availability[];
  private readonly availableBySource: (boolean | undefined)[] = [];
  /** When the last state message arrived, on the monotonic clock (every time a session keeps is:
   * silence is a duration); undefined until the device has said anything. */
  lastMessageAtMs: number | undefined;
  /** When the hub began listening: a device not heard yet is given its silence allowance from here
   * before it is shown offline (after a restart, retained values take a moment to arrive).
   * Undefined once a refresh found the device unreachable. */
  listeningSinceMs: number | undefined;
  /** Increments with each state message, so that a waiter can ask for one newer than it saw. */
  messages = 0;
  private readonly stateTopics: ReadonlyMap<string, { topic: StateTopic; dialects: string[] }>;
  /** The lists published one value per topic, by their count topic. */
  private readonly series: ReadonlyMap<string, SeriesBuffer>;
  private readonly seriesChanged = new Set<SeriesBuffer>();
  /** Silence after which the device is offline: the binding's setting, else the definition's. */
  private readonly staleAfterMs: number | undefined;

  constructor(
    readonly device: DeviceRecord,
    readonly definition: MqttDriverDefinition,
    readonly log: Logger,
  ) {
    super();
    this.setMaxListeners(0);
    this.settings = settingsOf(definition, device.driver!, device.vendor);
    if (!definition.kinds.includes(device.kind)) throw new Error(`driver ${definition.type} cannot drive a ${device.kind}`);
    const dialects = definition.dialects;
    const chosen = dialects ? (this.settings[dialects.setting] ?? AUTO_DIALECT) : undefined;
    if (dialects && chosen !== AUTO_DIALECT && !(chosen! in dialects.variants)) {
      throw new Error(`driver ${definition.type}: setting "${dialects.setting}" must be ${AUTO_DIALECT} or one of ${Object.keys(dialects.variants).join(', ')}`);
    }
    this.dialect = chosen === AUTO_DIALECT ? undefined : chosen;
    this.dialectCandidates = !dialects ? [''] : this.dialect !== undefined ? [this.dialect] : Object.keys(dialects.variants);
    const availability = definition.availability;
    this.availabilities = availability === undefined ? [] : Array.isArray(availability) ? availability : [availability as Availability];
    const stateTopics = new Map<string, { topic: StateTopic; dialects: string[] }>();
    const series = new Map<string, SeriesBuffer>();
    for (const stateTopic of definition.state) {
      for (const [topic, dialects] of this.fillByDialect(stateTopic.topic, stateTopic.optional === true)) {
        if (stateTopic.series) {
          if (!series.has(topic)) series.set(topic, new SeriesBuffer({ ...stateTopic, series: stateTopic.series }, topic));
          continue;
        }
        const known = stateTopics.get(topic);
        if (known) known.dialects.push(...dialects);
        else stateTopics.set(topic, { topic: stateTopic, dialects });
      }
    }
    this.stateTopics = stateTopics;
    this.series = series;
    const staleSetting = definition.staleAfterSetting ? this.settings[definition.staleAfterSetting] : undefined;
    this.staleAfterMs = staleSetting !== undefined ? Number(staleSetting) * 1000 : definition.staleAfterMs;
  }

  /** A template filled from the settings and the dialect heard (before that, the preferred one). */
  fill(template: string, extra: Record<string, string> = {}): string {
    return fillTemplate(template, { ...this.dialectValues(this.dialect ?? this.definition.dialects?.preferred), ...extra });
  }

  /** A template filled for each dialect listened on, with the dialect; the same text once. An optional
   * template that needs a setting left empty gives nothing. */
  fillEach(template: string, optional = false): [string, string][] {
    return [...this.fillByDialect(template, optional)].map(([text, dialects]) => [text, dialects[0]!]);
  }

  /** Each text a template gives, with every dialect that gives it: a topic the same in all of them
   * (ebusd's HwcStorageTemp) says nothing of which one the device speaks. */
  private fillByDialect(template: string, optional: boolean): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const dialect of this.dialectCandidates) {
      const values = this.dialectValues(dialect);
      if (optional && [...template.matchAll(/\{(\w+)\}/g)].some(([, name]) => !values[name!])) continue;
      const text = fillTemplate(template, values);
      const known = out.get(text);
      if (known) known.push(dialect);
      else out.set(text, [dialect]);
    }
    return out;
  }

  private dialectValues(dialect: string | undefined): Record<string, string> {
    const variant = dialect !== undefined ? this.definition.dialects?.variants[dialect] : undefined;
    if (!variant) return this.settings;
    const values = { ...this.settings };
    for (const [name, template] of Object.entries(variant)) values[name] = fillTemplate(template, this.settings);
    return values;
  }

  /** Every topic the device is heard on, with what each carries. */
  routes(): [string, Route][] {
    const out: [string, Route][] = [...this.stateTopics].map(([topic, { topic: stateTopic, dialects }]) => [topic, { kind: 'state', session: this, topic: stateTopic, dialects }]);
    for (const [topic, series] of this.series) {
      const route: Route = { kind: 'series', session: this, series };
      for (const filter of [topic, ...series.filters()]) out.push([filter, route]);
    }
    this.availabilities.forEach((availability, source) => {
      for (const [topic] of this.fillEach(availability.topic, availability.optional)) out.push([topic, { kind: 'availability', session: this, source }]);
    });
    const replies = new Set<string>();
    for (const command of Object.values(this.definition.commands ?? {})) {
      if (command.confirm.by === 'state') continue;
      for (const [topic] of this.fillEach(command.confirm.topic)) replies.add(topic);
      if (command.confirm.by === 'result' && command.confirm.reasonTopic) for (const [topic] of this.fillEach(command.confirm.reasonTopic)) replies.add(topic);
    }
    for (const topic of replies) out.push([topic, { kind: 'reply', session: this }]);
    return out;
  }

  /** A state message: remembers every value and returns what belongs in the stored state. */
  onState(topic: StateTopic, payload: Buffer, nowMs: number, dialects: readonly string[] = []): StateUpdate {
    // A topic only one variant has tells which one the device speaks (it may change with a firmware update).
    if (dialects.length === 1 && this.dialectCandidates.length > 1 && this.dialect !== dialects[0]) {
      this.dialect = dialects[0];
      this.log.info({ dialect: this.dialect, topic: topic.topic }, 'mqtt: the device is heard in this topic variant');
    }
    const data = decodePayload(payload, topic.format);
    const touched: string[] = [];
    for (const [field, rule] of Object.entries(topic.fields)) {
      const value = rule.fromSettings !== undefined ? this.fill(rule.fromSettings) : applyRule(rule, data);
      if (field.startsWith('static.')) {
        if (value !== undefined) this.staticValues[field.slice('static.'.length)] = value;
        continue;
      }
      if (value === undefined) delete this.values[field];
      else this.values[field] = value;
      touched.push(field);
    }
    return this.settle(touched, nowMs);
  }

  /**
   * A message on a list's count topic or one of its slots' parts: true when it changed the list
   * (not a repeat, nor a message the list ignores, SeriesBuffer.take). Either way the device spoke.
   * The list is assembled by settleSeries: a curve arrives as hundreds of topics.
   */
  onSeries(series: SeriesBuffer, topic: string, payload: Buffer, nowMs: number): boolean {
    const changed = series.take(topic, payload) === 'changed';
    if (changed) this.seriesChanged.add(series);
    this.heard(nowMs);
    return changed;
  }

  /** The lists changed since the last call, assembled into `values`: each field with its list. */
  settleSeries(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const series of this.seriesChanged) {
      const list = series.list();
      if (list === undefined) continue;
      this.values[series.spec.field] = list;
      out[series.spec.field] = list;
    }
    this.seriesChanged.clear();
    return out;
  }

  /** The derived fields worked out again, and what of the touched fields belongs in the stored state. */
  private settle(touched: string[], nowMs: number): StateUpdate {
    const update: StateUpdate = { values: {}, mapped: [] };
    for (const [field, rule] of Object.entries(this.definition.derived ?? {})) {
      const value = derive(rule, this.values);
      if (value === undefined) delete this.values[field];
      else this.values[field] = value;
      touched.push(field);
    }
    const apiFields = API_STATE_FIELDS[this.device.kind];
    for (const field of touched) {
      // Working values stay here; kinds with a state object in the API store only its fields, the
      // others keep their telemetry.
      if (field.startsWith('_') || (apiFields && !apiFields.includes(field))) continue;
      update.mapped.push(field);
      const value = this.values[field];
      if (value !== undefined) update.values[field] = value;
    }
    this.heard(nowMs);
    return update;
  }

  private heard(nowMs: number): void {
    this.lastMessageAtMs = nowMs;
    this.messages++;
    this.emit('state');
  }

  /** An availability message: true online, false offline, undefined when not understood. */
  onAvailability(payload: Buffer, source = 0): boolean | undefined {
    const availability = this.availabilities[source]!;
    const word = String(valueAt(decodePayload(payload, 'json'), availability.path) ?? '').trim();
    if (availability.online.includes(word)) this.availableBySource[source] = true;
    else if (availability.offline.includes(word)) this.availableBySource[source] = false;
    else return undefined;
    const known = this.availableBySource.filter((said) => said !== undefined);
    this.available = known.includes(false) ? false : known.length > 0 ? true : undefined;
    this.emit('availability', this.available);
    return this.available;
  }

  /** The topics to publish when the hub begins to listen (every dialect listened on). */
  listenSteps(): { topic: string; payload: string }[] {
    return this.stepsInEachDialect(this.definition.onListen ?? []);
  }

  /** The dialect probe in every variant listened on (Dialects.probe); none once the dialect is known. */
  dialectProbeSteps(): { topic: string; payload: string }[] {
    const probe = this.definition.dialects?.probe;
    return probe && this.dialect === undefined ? this.stepsInEachDialect([probe]) : [];
  }

  /** Whether a template's text depends on the dialect (it uses one of the variants' placeholders). */
  dependsOnDialect(template: string): boolean {
    const names = new Set(Object.values(this.definition.dialects?.variants ?? {}).flatMap((variant) => Object.keys(variant)));
    return [...template.matchAll(/\{(\w+)\}/g)].some(([, name]) => names.has(name!));
  }

  private stepsInEachDialect(steps: readonly { topic: string; payload: string }[]): { topic: string; payload: string }[] {
    const out: { topic: string; payload: string }[] = [];
    for (const step of steps) {
      for (const [topic, dialect] of this.fillEach(step.topic)) out.push({ topic, payload: fillTemplate(step.payload, this.dialectValues(dialect)) });
    }
    return out;
  }

  onReply(topic: string, payload: Buffer, packet: IPublishPacket): void {
    this.emit('reply', topic, payload, packet);
  }

  /**
   * Whether the device is heard from: it said something (a state message, or that it is online),
   * is not declared offline, and has not been silent for too long. A device that never spoke since
   * the hub began listening is not heard, whatever its stored state says.
   */
  isHeard(nowMs: number, defaultStaleMs: number): boolean {
    if (this.available === false) return false;
    if (this.available === true && this.staleAfterMs === undefined) return true;
    const staleAfter = this.staleAfterMs ?? defaultStaleMs;
    return this.lastMessageAtMs !== undefined && nowMs - this.lastMessageAtMs <= staleAfter;
  }

  /**
   * Whether the device is to be shown offline: declared offline, or silent for longer than allowed,
   * a device not heard yet counted from when the hub began listening (so that a restart does not
   * show every device offline before its retained values arrive).
   */
  isSilent(nowMs: number, defaultStaleMs: number): boolean {
    if (this.isHeard(nowMs, defaultStaleMs)) return false;
    if (this.available === false) return true;
    const since = this.lastMessageAtMs ?? this.listeningSinceMs;
    return since === undefined || nowMs - since > (this.staleAfterMs ?? defaultStaleMs);
  }

  /** Resolves when the device next speaks: a state message after `afterMessage`, or word that it is online. */
  waitForWord(afterMessage: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const onState = () => {
        if (this.messages > afterMessage) finish(resolve);
      };
      const onAvailability = (online: boolean) => {
        if (online) finish(resolve);
      };
      const onAbort = () => finish(() => reject(signal.reason));
      const finish = (fn: () => void) => {
        this.off('state', onState);
        this.off('availability', onAvailability);
        signal.removeEventListener('abort', onAbort);
        fn();
      };
      if (signal.aborted) return reject(signal.reason);
      this.on('state', onState);
      this.on('availability', onAvailability);
      signal.addEventListener('abort', onAbort, { once: true });
      onState();
    });
  }

  /** Resolves on the next state message after `afterMessage` for which `test` holds. */
  waitForState(test: () => boolean, afterMessage: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.messages > afterMessage && test()) finish(resolve);
      };
      const onAbort = () => finish(() => reject(signal.reason));
      const finish = (fn: () => void) => {
        this.off('state', check);
        signal.removeEventListener('abort', onAbort);
        fn();
      };
      if (signal.aborted) return reject(signal.reason);
      this.on('state', check);
      signal.addEventListener('abort', onAbort, { once: true });
      check();
    });
  }
}

function derive(rule: import('./definition.ts').DerivedField, values: Record<string, unknown>): unknown {
  for (const source of rule.firstOf) {
    const field = typeof source === 'string' ? source : source.field;
    if (typeof source !== 'string' && !source.when.equals.includes(String(values[source.when.field] ?? ''))) continue;
    if (values[field] !== undefined) return values[field];
  }
  return undefined;
}
