// One MQTT-driven device: its definition and settings, the topics it listens on, the values last
// heard, and the waiters of commands and refreshes. It turns messages into values and says which of
// them are API state; the runtime owns the client and the store.
import { EventEmitter } from 'node:events';
import type { IPublishPacket } from 'mqtt';
import type { DeviceRecord } from '../../domain/device.ts';
import type { DeviceKind } from '../../domain/vocabulary.ts';
import type { Logger } from '../../log.ts';
import type { MqttDriverDefinition, StateTopic } from './definition.ts';
import { settingsOf } from './mqtt-registry.ts';
import { applyRule, decodePayload, fillTemplate, valueAt } from './values.ts';

/** The fields of each kind's state object in the API; other values are the device's telemetry. */
const API_STATE_FIELDS: Partial<Record<DeviceKind, readonly string[]>> = {
  charger: ['chargeRate', 'chargeCurrentMax', 'isPlugged', 'activePhases', 'chargingState'],
  battery: ['mode', 'chargeRate', 'stateOfCharge', 'chargeLimitMin', 'chargeLimitMax', 'maxChargeRate', 'maxDischargeRate', 'chargingState'],
  pvInverter: ['state', 'solarPower'],
};

export type Route =
  | { kind: 'state'; session: MqttSession; topic: StateTopic }
  | { kind: 'availability'; session: MqttSession }
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
  /** false after a last will / offline availability message, true after online; undefined: unknown. */
  available: boolean | undefined;
  /** When the last state message arrived; undefined until the device has said anything. */
  lastMessageAtMs: number | undefined;
  /** When the hub began listening: a device not heard yet is given its silence allowance from here
   * before it is shown offline (after a restart, retained values take a moment to arrive).
   * Undefined once a refresh found the device unreachable. */
  listeningSinceMs: number | undefined;
  /** Increments with each state message, so that a waiter can ask for one newer than it saw. */
  messages = 0;
  private readonly stateTopics: ReadonlyMap<string, StateTopic>;
  /** Silence after which the device is offline: the binding's setting, else the definition's. */
  private readonly staleAfterMs: number | undefined;

  constructor(
    readonly device: DeviceRecord,
    readonly definition: MqttDriverDefinition,
    readonly log: Logger,
  ) {
    super();
    this.setMaxListeners(0);
    this.settings = settingsOf(definition, device.driver!);
    if (!definition.kinds.includes(device.kind)) throw new Error(`driver ${definition.type} cannot drive a ${device.kind}`);
    this.stateTopics = new Map(definition.state.map((s) => [this.fill(s.topic), s]));
    const staleSetting = definition.staleAfterSetting ? this.settings[definition.staleAfterSetting] : undefined;
    this.staleAfterMs = staleSetting !== undefined ? Number(staleSetting) * 1000 : definition.staleAfterMs;
  }

  fill(template: string, extra: Record<string, string> = {}): string {
    return fillTemplate(template, { ...this.settings, ...extra });
  }

  /** Every topic the device is heard on, with what each carries. */
  routes(): [string, Route][] {
    const out: [string, Route][] = [...this.stateTopics].map(([topic, stateTopic]) => [topic, { kind: 'state', session: this, topic: stateTopic }]);
    if (this.definition.availability) out.push([this.fill(this.definition.availability.topic), { kind: 'availability', session: this }]);
    for (const command of Object.values(this.definition.commands ?? {})) {
      if (command.confirm.by !== 'state') out.push([this.fill(command.confirm.topic), { kind: 'reply', session: this }]);
    }
    return out;
  }

  /** A state message: remembers every value and returns what belongs in the stored state. */
  onState(topic: StateTopic, payload: Buffer, nowMs: number): StateUpdate {
    const data = decodePayload(payload, topic.format);
    const apiFields = API_STATE_FIELDS[this.device.kind];
    const update: StateUpdate = { values: {}, mapped: [] };
    for (const [field, rule] of Object.entries(topic.fields)) {
      const value = rule.fromSettings !== undefined ? this.fill(rule.fromSettings) : applyRule(rule, data);
      if (field.startsWith('static.')) {
        if (value !== undefined) this.staticValues[field.slice('static.'.length)] = value;
        continue;
      }
      if (value === undefined) delete this.values[field];
      else this.values[field] = value;
      // Kinds with a state object in the API store only its fields; the others keep their telemetry.
      if (apiFields && !apiFields.includes(field)) continue;
      update.mapped.push(field);
      if (value !== undefined) update.values[field] = value;
    }
    this.lastMessageAtMs = nowMs;
    this.messages++;
    this.emit('state');
    return update;
  }

  /** An availability message: true online, false offline, undefined when not understood. */
  onAvailability(payload: Buffer): boolean | undefined {
    const availability = this.definition.availability!;
    const word = String(valueAt(decodePayload(payload, 'json'), availability.path) ?? '').trim();
    if (availability.online.includes(word)) this.available = true;
    else if (availability.offline.includes(word)) this.available = false;
    else return undefined;
    this.emit('availability', this.available);
    return this.available;
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
