// Drives every device whose binding names an MQTT definition, through one client to the configured
// broker: listens on their topics, writes what they report (batched, like the Modbus poller), marks
// them offline on a last will or after silence, answers refreshes, carries out their commands and
// probes a device for pairing. Subscriptions are renewed on every reconnection.
import type { IPublishPacket, MqttClient } from 'mqtt';
import type { DeviceRecord, DriverBinding } from '../../domain/device.ts';
import { monotonicMs, type Clock } from '../../domain/time.ts';
import type { VendorCatalog } from '../../domain/vendors.ts';
import type { CommandType } from '../../domain/vocabulary.ts';
import type { Logger } from '../../log.ts';
import type { Store } from '../../store/store.ts';
import type { BrokerLink } from '../../transport/broker-link.ts';
import { CommandFailure, type CommandExecutor, type CommandShape } from '../commands/executor.ts';
import type { HubEvents } from '../events/hub-events.ts';
import { DeviceUnreachableError } from '../devices/live.ts';
import { StateWriter } from '../devices/state-writer.ts';
import { sessionTable, syncSessions } from '../devices/driven-sync.ts';
import { runMqttCommand } from './mqtt-commands.ts';
import type { MqttDriverRegistry } from './mqtt-registry.ts';
import { MqttSession, type Route } from './mqtt-session.ts';
import { boundedSignal, type BoundedSignal } from '../bounded-signal.ts';
import { topicMatches } from './series.ts';

export interface MqttRuntimeSettings {
  flushMs: number;
  /** How often devices added by another process (import, CLI) are picked up. */
  resyncMs: number;
  /** Silence after which a device without a last will is shown offline. */
  defaultStaleAfterMs: number;
  refreshTimeoutMs: number;
  probeTimeoutMs: number;
}

export const DEFAULT_MQTT_SETTINGS: MqttRuntimeSettings = {
  flushMs: 1000,
  resyncMs: 15_000,
  defaultStaleAfterMs: 5 * 60_000,
  refreshTimeoutMs: 5000,
  probeTimeoutMs: 10_000,
};

export interface MqttRuntimeDeps {
  store: Store;
  registry: MqttDriverRegistry;
  link: BrokerLink;
  events: HubEvents;
  clock: Clock;
  log: Logger;
  settings?: Partial<MqttRuntimeSettings>;
}

/** What a probe heard from a device that is not added yet. */
export interface ProbeResult {
  values: Record<string, unknown>;
  staticValues: Record<string, unknown>;
}

/**
 * Why a probe heard nothing: SILENT (nothing on the device's topics), OFFLINE (its bridge says so),
 * BROKER (the hub could not listen: no broker connection, or the subscription failed).
 */
export class ProbeFailure extends Error {
  constructor(readonly reason: 'SILENT' | 'OFFLINE' | 'BROKER', message: string) {
    super(message);
    this.name = 'ProbeFailure';
  }
}

export class MqttRuntime implements CommandExecutor {
  readonly name = 'mqtt';
  readonly writer: StateWriter;
  readonly settings: MqttRuntimeSettings;
  private readonly sessions = new Map<string, MqttSession>();
  /** Routes by the filter subscribed: a topic, or a wildcard filter (a list's slots, SeriesSpec). */
  private readonly routes = new Map<string, Route[]>();
  /** The filters of `routes` with wildcards, by the levels before their first wildcard: a topic heard
   * is matched against those under its own leading levels only (a fleet hub has thousands). */
  private readonly wildcards = new Map<string, Set<string>>();
  /**
   * Sessions whose lists (SeriesSpec) changed since the last flush, with when: assembled and written
   * once a flush, not once a message. evcc's curve is hundreds of topics; assembling and comparing
   * the device's state for each of them grew with the square of the slots.
   */
  private readonly seriesChanged = new Map<MqttSession, number>();
  private timers: NodeJS.Timeout[] = [];
  private readonly log: Logger;
  private attached: MqttClient | undefined;

  constructor(private readonly deps: MqttRuntimeDeps) {
    this.settings = { ...DEFAULT_MQTT_SETTINGS, ...deps.settings };
    this.log = deps.log.child({ part: 'mqtt' });
    this.writer = new StateWriter(deps.store.db, deps.store.devices, deps.events, deps.store.storage);
    deps.link.on('connect', (client: MqttClient) => this.onConnect(client));
  }

  registerVendors(catalog: VendorCatalog): void {
    this.deps.registry.registerVendors(catalog);
  }

  handles(device: DeviceRecord): boolean {
    return device.driver !== null && this.deps.registry.has(device.driver.type);
  }

  start(): void {
    this.sync();
    this.timers.push(setInterval(() => this.flush(), this.settings.flushMs));
    this.timers.push(setInterval(() => this.checkSilence(), Math.min(5000, this.settings.defaultStaleAfterMs / 4)));
    this.timers.push(setInterval(() => this.sync(), this.settings.resyncMs));
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.flush();
    this.sessions.clear();
    this.routes.clear();
    this.wildcards.clear();
  }

  flush(): void {
    for (const [session, atMs] of this.seriesChanged) {
      if (this.sessions.get(session.device.id) !== session) continue; // removed meanwhile
      const values = session.settleSeries();
      if (Object.keys(values).length > 0) this.writer.reportValues(session.device.id, values, Object.keys(values), atMs);
    }
    this.seriesChanged.clear();
    this.writer.flush();
  }

  /** Stops listening to a deleted device. */
  remove(deviceId: string): void {
    const session = this.sessions.get(deviceId);
    if (!session) return;
    this.sessions.delete(deviceId);
    this.writer.forget(deviceId);
    const client = this.deps.link.client;
    for (const [topic] of session.routes()) {
      const left = (this.routes.get(topic) ?? []).filter((r) => r.session !== session);
      if (left.length > 0) {
        this.routes.set(topic, left);
      } else {
        this.routes.delete(topic);
        if (isWildcard(topic)) this.wildcards.get(fixedPart(topic))?.delete(topic);
        if (client?.connected) client.unsubscribe(topic);
      }
    }
  }

  supportedCommands(device: DeviceRecord): readonly CommandType[] {
    const session = this.sessionOf(device);
    return session ? (Object.keys(session.definition.commands ?? {}) as CommandType[]) : [];
  }

  commandShape(device: DeviceRecord, type: CommandType): CommandShape | undefined {
    const spec = this.sessionOf(device)?.definition.commands?.[type];
    if (!spec) return undefined;
    return { value: spec.value, stateField: spec.confirm.by === 'state' ? spec.confirm.field : undefined };
  }

  /** Whether a command may be sent now: the device is not shown offline (see MqttSession.isSilent). */
  isReachable(device: DeviceRecord): boolean {
    const session = this.sessionOf(device);
    return session !== undefined && this.deps.link.connected && !session.isSilent(this.mono(), this.settings.defaultStaleAfterMs);
  }

  async execute(device: DeviceRecord, type: CommandType, payload: unknown, signal: AbortSignal): Promise<void> {
    const session = this.sessionOf(device);
    const spec = session?.definition.commands?.[type];
    if (!session || !spec) throw new CommandFailure(`${type} is not supported by this device's driver.`);
    const client = await this.deps.link.whenConnected(signal).catch(() => {
      throw new CommandFailure('The hub could not reach its MQTT broker before the command\'s time was up.');
    });
    // Not AbortSignal.any with AbortSignal.timeout: on Node 20 the timeout inside it may be collected
    // before it fires (nodejs/node#57736), and the wait would never end.
    const bounded = boundedSignal(signal, spec.timeoutMs);
    try {
      await runMqttCommand(client, session, type, spec, payload, bounded.signal);
    } finally {
      bounded.done();
    }
  }

  /**
   * Asks the device for fresh values when its bridge can, and returns what the store then holds. A
   * refresh is a live read: a device the hub has not heard from (never, or not lately) is given the
   * refresh's time to speak, and is otherwise unreachable, whatever its stored (imported) state says.
   */
  async refresh(device: DeviceRecord): Promise<DeviceRecord> {
    const session = this.sessionOf(device);
    // A binding that cannot be opened (the log says why) reaches nothing.
    if (!session) throw new DeviceUnreachableError(device.id, 'its driver binding is not usable');
    const client = this.deps.link.client;
    if (!client?.connected) throw new DeviceUnreachableError(device.id, 'the hub is not connected to its MQTT broker');
    if (session.available === false) this.unreachable(session, 'the device reports itself offline');
    const signal = AbortSignal.timeout(this.settings.refreshTimeoutMs);
    const asks = session.definition.refresh ?? [];
    if (asks.length > 0) {
      const fresh = session.waitForState(() => true, session.messages, signal).catch(() => {});
      for (const step of asks) await client.publishAsync(session.fill(step.topic), session.fill(step.payload), { qos: 0 });
      await fresh;
    } else if (!session.isHeard(this.mono(), this.settings.defaultStaleAfterMs)) {
      // A session opened a moment ago (a device just imported) hears the retained values soon.
      await session.waitForWord(session.messages, signal).catch(() => {});
    }
    if (!session.isHeard(this.mono(), this.settings.defaultStaleAfterMs)) this.unreachable(session, 'the device has not been heard from');
    this.flush();
    return this.deps.store.devices.get(device.id) ?? device;
  }

  /** A refresh found the device unreachable: it is shown offline (and its commands wait) until it speaks. */
  private unreachable(session: MqttSession, reason: string): never {
    session.listeningSinceMs = undefined; // no more benefit of the doubt: it was given its chance
    this.writer.reportOnline(session.device.id, false);
    this.flush();
    throw new DeviceUnreachableError(session.device.id, reason);
  }

  /**
   * Listens on a device's topics before it is added (pairing): resolves with what it heard once a
   * state message arrived and the retained ones had a moment to follow; rejects when nothing came.
   */
  async probe(binding: DriverBinding, kind: DeviceRecord['kind'], signal: AbortSignal): Promise<ProbeResult> {
    const definition = this.deps.registry.definitionFor(binding);
    const draft: DeviceRecord = {
      id: `probe-${Math.random().toString(36).slice(2)}`, kind, userId: '', vendor: '', name: null, model: null, isOnline: false,
      lastUpdatedMs: null, locationId: null, hvacType: null, staticData: {}, state: null, driver: binding, createdAtMs: 0,
    };
    const session = new MqttSession(draft, definition, this.log);
    // A device the hub drives already (paired again): what its session heard is the answer, since
    // the broker does not resend retained values for topics this client is subscribed to.
    const topics = JSON.stringify(session.routes().map(([topic]) => topic).sort());
    for (const driven of this.sessions.values()) {
      if (driven.definition.type !== definition.type || driven.messages === 0) continue;
      if (JSON.stringify(driven.routes().map(([topic]) => topic).sort()) !== topics) continue;
      if (driven.available === false) throw new ProbeFailure('OFFLINE', 'the device reports itself offline');
      return { values: { ...driven.values }, staticValues: { ...driven.staticValues } };
    }
    // A hand-made bound, not AbortSignal.any with AbortSignal.timeout: on Node 20 the timeout inside
    // it may be collected before it fires (nodejs/node#57736), and a silent device's probe never ended.
    const connecting = boundedSignal(signal, this.settings.probeTimeoutMs);
    const client = await this.deps.link.whenConnected(connecting.signal)
      .catch(() => { throw new ProbeFailure('BROKER', `not connected to the broker ${this.deps.link.broker}`); })
      .finally(() => connecting.done());
    const routes = session.routes();
    const onMessage = (topic: string, payload: Buffer) => {
      for (const [filter, route] of routes) {
        if (filter !== topic && !(isWildcard(filter) && topicMatches(filter, topic))) continue;
        if (route.kind === 'state') session.onState(route.topic, payload, this.mono(), route.dialects);
        else if (route.kind === 'series') session.onSeries(route.series, topic, payload, this.mono());
        else if (route.kind === 'availability') session.onAvailability(payload, route.source);
      }
    };
    client.on('message', onMessage);
    // A topic can carry several routes (a state topic that also confirms a command): it is asked for
    // once, since a SUBSCRIBE naming a filter twice gets one grant for it from some brokers (aedes),
    // which mqtt.js takes for a protocol error and drops the connection.
    const own = [...new Set(routes.map(([t]) => t))].filter((t) => !this.routes.has(t));
    let waiting: BoundedSignal | undefined;
    try {
      const wait = boundedSignal(signal, this.settings.probeTimeoutMs);
      waiting = wait;
      const heard = session.waitForState(() => true, 0, wait.signal);
      heard.catch(() => {}); // awaited below; an early failure must not leave it unhandled
      try {
        if (own.length > 0) await client.subscribeAsync(own, { qos: 0 });
        for (const step of session.listenSteps()) await client.publishAsync(step.topic, step.payload, { qos: 0 });
        for (const step of definition.refresh ?? []) await client.publishAsync(session.fill(step.topic), session.fill(step.payload), { qos: 0 });
      } catch (err) {
        throw new ProbeFailure('BROKER', `the broker did not take the subscription: ${(err as Error).message}`);
      }
      await heard.catch(() => {
        throw new ProbeFailure('SILENT', 'nothing was heard on the device\'s topics; check its MQTT settings');
      });
      // Retained values of the other topics arrive together; give them a moment.
      await new Promise((resolve) => setTimeout(resolve, 300));
      if (session.available === false) throw new ProbeFailure('OFFLINE', 'the device reports itself offline');
      session.settleSeries();
      return { values: { ...session.values }, staticValues: { ...session.staticValues } };
    } finally {
      waiting?.done();
      client.off('message', onMessage);
      if (own.length > 0 && client.connected) client.unsubscribe(own);
    }
  }

  /** Publishes on the hub's broker (events); false when not connected (nothing is queued). */
  publish(topic: string, payload: string, qos: 0 | 1, retain = false): boolean {
    const client = this.deps.link.client;
    if (!client?.connected) return false;
    client.publish(topic, payload, { qos, retain });
    return true;
  }

  private sessionOf(device: DeviceRecord): MqttSession | undefined {
    return this.sessions.get(device.id) ?? (this.handles(device) ? this.open(device) : undefined);
  }

  private onConnect(client: MqttClient): void {
    if (this.attached !== client) {
      this.attached = client;
      client.on('message', (topic, payload, packet) => this.onMessage(topic, payload, packet));
    }
    const topics = [...this.routes.keys()];
    if (topics.length > 0) client.subscribe(topics, { qos: 0 }, () => this.announce(client, [...this.sessions.values()]));
  }

  /** Tells bridges what to report from now on (the definitions' onListen steps), once subscribed. */
  private announce(client: MqttClient, sessions: readonly MqttSession[]): void {
    for (const session of sessions) {
      for (const step of session.listenSteps()) if (client.connected) client.publish(step.topic, step.payload, { qos: 0 });
    }
  }

  private onMessage(topic: string, payload: Buffer, packet: IPublishPacket): void {
    const routes = this.routesOf(topic);
    if (routes.length === 0) return;
    const now = this.deps.clock.now();
    const mono = this.mono();
    for (const route of routes) {
      const session = route.session;
      try {
        if (route.kind === 'state') {
          const update = session.onState(route.topic, payload, mono, route.dialects);
          this.writer.reportValues(session.device.id, update.values, update.mapped, now);
        } else if (route.kind === 'series') {
          if (session.onSeries(route.series, topic, payload, mono)) this.seriesChanged.set(session, now);
          this.writer.reportOnline(session.device.id, true);
        } else if (route.kind === 'availability') {
          const before = session.available;
          const online = session.onAvailability(payload, route.source);
          // A bridge that (re)starts forgets what it was told (ebusd's poll priorities live in memory).
          if (online === true && before !== true && this.attached?.connected) this.announce(this.attached, [session]);
          if (online !== undefined) this.writer.reportOnline(session.device.id, online && !session.isSilent(mono, this.settings.defaultStaleAfterMs));
        } else {
          session.onReply(topic, payload, packet);
        }
      } catch (err) {
        session.log.warn({ err: { type: (err as Error).name, message: (err as Error).message }, topic }, 'mqtt: message not understood');
      }
    }
  }

  /** The routes of a topic heard: its own, and those of the wildcard filters it matches. */
  private routesOf(topic: string): Route[] {
    const exact = this.routes.get(topic) ?? [];
    if (this.wildcards.size === 0) return exact;
    const matched: Route[] = [];
    for (let end = topic.indexOf('/'); end !== -1; end = topic.indexOf('/', end + 1)) {
      for (const filter of this.wildcards.get(topic.slice(0, end)) ?? []) if (topicMatches(filter, topic)) matched.push(...(this.routes.get(filter) ?? []));
    }
    return matched.length === 0 ? exact : [...exact, ...matched];
  }

  /**
   * Monotonic ms: silence is a duration, so a step of the wall clock (NTP after a boot without a
   * battery clock) never shows a device offline that spoke a moment ago. `clock.now()` dates values.
   */
  private mono(): number {
    return monotonicMs(this.deps.clock);
  }

  /** Devices silent for longer than their definition allows are shown offline. */
  private checkSilence(): void {
    const now = this.mono();
    for (const session of this.sessions.values()) {
      if (!session.isSilent(now, this.settings.defaultStaleAfterMs)) continue;
      // Logged once, on the change: a command waiting for the device says so on its own.
      if (this.writer.current(session.device.id)?.isOnline) {
        const silentForS = session.lastMessageAtMs === undefined ? undefined : Math.round((now - session.lastMessageAtMs) / 1000);
        session.log.warn({ silentForS }, silentForS === undefined ? 'mqtt: device not heard from since the hub started listening, shown offline' : 'mqtt: device silent, shown offline');
      }
      this.writer.reportOnline(session.device.id, false);
    }
  }

  /** Picks up devices added (import, CLI, pairing) and drops deleted ones. */
  sync(): void {
    syncSessions(this.deps.store.devices.driven(), sessionTable(this.sessions, {
      handles: (device) => this.handles(device), open: (device) => this.open(device), remove: (id) => this.remove(id),
    }));
  }

  private open(device: DeviceRecord): MqttSession | undefined {
    const log = this.log.child({ device: device.id });
    try {
      const session = new MqttSession(device, this.deps.registry.definitionFor(device.driver!), log);
      // Silence is counted from now, not from the epoch; but the device is not heard until it speaks.
      session.listeningSinceMs = this.mono();
      this.sessions.set(device.id, session);
      this.writer.track(device);
      const fresh: string[] = [];
      for (const [topic, route] of session.routes()) {
        const list = this.routes.get(topic);
        if (list) list.push(route);
        else {
          this.routes.set(topic, [route]);
          if (isWildcard(topic)) {
            const fixed = fixedPart(topic);
            const filters = this.wildcards.get(fixed);
            if (filters) filters.add(topic);
            else this.wildcards.set(fixed, new Set([topic]));
          }
          fresh.push(topic);
        }
      }
      const client = this.deps.link.client;
      if (client?.connected) {
        if (fresh.length > 0) client.subscribe(fresh, { qos: 0 }, () => this.announce(client, [session]));
        else this.announce(client, [session]);
      }
      return session;
    } catch (err) {
      log.warn({ err: { type: (err as Error).name, message: (err as Error).message } }, 'mqtt: device has an unusable driver binding, not driven');
      return undefined;
    }
  }
}

function isWildcard(filter: string): boolean {
  return /[+#]/.test(filter);
}

/** A wildcard filter's levels before its first wildcard level (`a/b/+/1` → `a/b`). */
function fixedPart(filter: string): string {
  const levels = filter.split('/');
  return levels.slice(0, levels.findIndex((level) => level === '+' || level === '#')).join('/');
}
