// Polls every device whose binding names an HTTP definition, each at its own interval and one
// request at a time, and hands what it reads to the StateWriter (batched, like the Modbus poller).
// A device that fails is asked again later and later (exponential back-off); one that refuses the
// hub's credentials is shown offline with that reason and asked again only at the longest back-off,
// so an expired token is a line in the log, not a crash loop; one that asks the hub to wait (429,
// Retry-After) is left alone that long. Refreshes are live reads; commands go through the device's
// definition and are confirmed by reading the state back.
import type { Logger } from 'pino';
import type { DeviceRecord } from '../../domain/device.ts';
import { monotonicMs, type Clock } from '../../domain/time.ts';
import type { VendorCatalog } from '../../domain/vendors.ts';
import type { CommandType } from '../../domain/vocabulary.ts';
import type { Store } from '../../store/store.ts';
import { commandValues } from '../commands/command-values.ts';
import { CommandFailure, DeviceNotReached, type CommandExecutor, type CommandShape } from '../commands/executor.ts';
import { syncSessions, sessionTable } from '../devices/driven-sync.ts';
import type { HubEvents } from '../events/hub-events.ts';
import { DeviceUnreachableError } from '../devices/live.ts';
import { StateWriter } from '../devices/state-writer.ts';
import type { HttpCommand } from './definition.ts';
import type { HttpDriverRegistry } from './http-registry.ts';
import { AuthRefusedError, HttpReader, RateLimitedError, RequestLane } from './http-reader.ts';
import { missingSecrets, missingSecretsReason, targetOf } from './http-registry.ts';
import { boundedSignal } from '../bounded-signal.ts';
import { neverConnected } from '../../transport/http-device.ts';

export interface HttpRuntimeSettings {
  tickMs: number;
  flushMs: number;
  resyncMs: number;
  maxBackoffMs: number;
  /** Consecutive failed polls before a device is shown offline (one lost answer is not an outage). */
  offlineAfterFailures: number;
  refreshTimeoutMs: number;
}

export const DEFAULT_HTTP_SETTINGS: HttpRuntimeSettings = {
  tickMs: 250,
  flushMs: 1000,
  resyncMs: 15_000,
  maxBackoffMs: 5 * 60_000,
  offlineAfterFailures: 2,
  refreshTimeoutMs: 10_000,
};

export interface HttpRuntimeDeps {
  store: Store;
  registry: HttpDriverRegistry;
  events?: HubEvents;
  clock: Clock;
  log: Logger;
  settings?: Partial<HttpRuntimeSettings>;
}

/** The longest wait a device's Retry-After may ask for, unless the longest back-off is longer. */
const RETRY_AFTER_MAX_MS = 3_600_000;

interface Session {
  device: DeviceRecord;
  reader: HttpReader;
  laneKey: string;
  mapped: string[];
  intervalMs: number;
  timeoutMs: number;
  /** On the monotonic clock: a step of the wall clock never stops polling. */
  nextPollAt: number;
  failures: number;
  /** Why the device is shown offline, for refreshes and the log; undefined while it answers. */
  offlineReason: string | undefined;
  /** The device refused the credentials: not asked again (by a refresh either) before nextPollAt. */
  authRefused: boolean;
  staticPending: boolean;
  inFlight: Promise<void> | undefined;
  log: Logger;
}

export class HttpRuntime implements CommandExecutor {
  readonly name = 'http';
  readonly writer: StateWriter;
  readonly settings: HttpRuntimeSettings;
  /** Completed and failed polls since start (metrics, tests). */
  polls = 0;
  pollErrors = 0;
  private readonly sessions = new Map<string, Session>();
  /**
   * Devices whose binding cannot be used, with the binding and why: told once per binding (not at
   * every resync) and given as their offline reason (an imported Envoy without its token).
   */
  private readonly unusable = new Map<string, { binding: string; reason: string }>();
  /** One lane per device address: records of one gateway (PV, meter, battery) share it. */
  private readonly lanes = new Map<string, RequestLane>();
  private timers: NodeJS.Timeout[] = [];
  private lastSyncAt = Number.NEGATIVE_INFINITY;
  private readonly log: Logger;
  /** Aborts requests in flight when the runtime stops. */
  private stopping = new AbortController();

  constructor(private readonly deps: HttpRuntimeDeps) {
    this.settings = { ...DEFAULT_HTTP_SETTINGS, ...deps.settings };
    this.log = deps.log.child({ part: 'http' });
    this.writer = new StateWriter(deps.store.db, deps.store.devices, deps.events, deps.store.storage);
  }

  registerVendors(catalog: VendorCatalog): void {
    this.deps.registry.registerVendors(catalog);
  }

  handles(device: DeviceRecord): boolean {
    return device.driver !== null && this.deps.registry.has(device.driver.type);
  }

  start(): void {
    this.stopping = new AbortController();
    this.sync();
    this.timers.push(setInterval(() => this.tick(), this.settings.tickMs));
    this.timers.push(setInterval(() => this.writer.flush(), this.settings.flushMs));
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.stopping.abort(new Error('the hub is stopping'));
    await Promise.allSettled([...this.sessions.values()].map((s) => s.inFlight));
    this.writer.flush();
    this.sessions.clear();
    this.lanes.clear();
  }

  /** Stops polling a deleted device. */
  remove(deviceId: string): void {
    const session = this.sessions.get(deviceId);
    this.sessions.delete(deviceId);
    this.unusable.delete(deviceId);
    this.writer.forget(deviceId);
    if (session && ![...this.sessions.values()].some((s) => s.laneKey === session.laneKey)) this.lanes.delete(session.laneKey);
  }

  /** Devices being polled. */
  get deviceCount(): number {
    return this.sessions.size;
  }

  /** Why the device is shown offline (an expired token…), or undefined while it answers. */
  offlineReason(deviceId: string): string | undefined {
    return this.sessions.get(deviceId)?.offlineReason ?? this.unusable.get(deviceId)?.reason;
  }

  /** When the device is next polled (wall clock as it reads now, ms), for tests and diagnostics. */
  nextPollAt(deviceId: string): number | undefined {
    const session = this.sessions.get(deviceId);
    return session && this.deps.clock.now() + (session.nextPollAt - this.mono());
  }

  /** Monotonic ms, for durations; `clock.now()` is for the dates that are stored. */
  private mono(): number {
    return monotonicMs(this.deps.clock);
  }

  /** A live read: the device is asked now; a device that does not answer is unreachable (503). */
  async refresh(device: DeviceRecord): Promise<DeviceRecord> {
    const session = this.sessionOf(device);
    if (!session) throw new DeviceUnreachableError(device.id, this.unusable.get(device.id)?.reason ?? 'its driver binding is not usable');
    // Credentials the device refused are not tried again before the longest back-off, by a refresh
    // either: an app refreshing every few seconds would otherwise lock a Powerwall account.
    if (session.authRefused && this.mono() < session.nextPollAt) throw new DeviceUnreachableError(device.id, session.offlineReason ?? 'the device refuses the hub\'s credentials');
    // The refresh's time includes waiting for a poll in flight (one request at a time per device).
    const bound = boundedSignal(this.stopping.signal, this.settings.refreshTimeoutMs);
    let error: string | undefined;
    try {
      if (session.inFlight) await Promise.race([session.inFlight, abortOf(bound.signal)]);
      error = bound.signal.aborted ? (bound.signal.reason as Error).message : await this.poll(session, bound.signal);
    } finally {
      bound.done();
    }
    this.writer.flush();
    if (error) throw new DeviceUnreachableError(device.id, error);
    return this.deps.store.devices.get(device.id) ?? device;
  }

  supportedCommands(device: DeviceRecord): readonly CommandType[] {
    const session = this.sessionOf(device);
    return session ? (Object.keys(session.reader.definition.commands ?? {}) as CommandType[]) : [];
  }

  /** What a command takes (an AC's setpoint range, its modes), for front ends such as Home Assistant. */
  commandShape(device: DeviceRecord, type: CommandType): CommandShape | undefined {
    const spec = this.sessionOf(device)?.reader.definition.commands?.[type];
    return spec ? httpCommandShape(spec) : undefined;
  }

  isReachable(device: DeviceRecord): boolean {
    const session = this.sessions.get(device.id);
    return session !== undefined && session.failures < this.settings.offlineAfterFailures && session.offlineReason === undefined;
  }

  /** Sends the command's request, then reads the state back until it shows the target. */
  async execute(device: DeviceRecord, type: CommandType, payload: unknown, signal: AbortSignal): Promise<void> {
    const session = this.sessionOf(device);
    const spec = session?.reader.definition.commands?.[type];
    if (!session || !spec) throw new CommandFailure(`${type} is not supported by this device's driver.`);
    // The payload is checked before anything is sent (a mode the device has no equivalent of).
    commandValues(spec.value, type, payload, session.reader.settings);
    const bound = boundedSignal(this.stopping.signal, undefined, signal);
    try {
      await this.carryOut(session, type, payload, bound.signal);
    } finally {
      bound.done();
    }
  }

  private async carryOut(session: Session, type: CommandType, payload: unknown, signal: AbortSignal): Promise<void> {
    const device = session.device;
    const spec = session.reader.definition.commands![type]!;
    const [value] = commandValues(spec.value, type, payload, session.reader.settings);
    const options = { timeoutMs: session.timeoutMs, signal };
    try {
      await session.reader.command(type, value!, options);
    } catch (err) {
      if (signal.aborted) throw err;
      if (neverConnected(err)) throw new DeviceNotReached(`The device could not be reached: ${(err as Error).message}`.slice(0, 200));
      throw new CommandFailure(`The device could not be set: ${(err as Error).message}`.slice(0, 200));
    }
    const expected = spec.confirm.equals?.[String(value)] ?? (spec.confirm.divide ? Number(value) / spec.confirm.divide : value);
    const error = await this.poll(session, options.signal);
    this.writer.flush();
    if (error) throw new CommandFailure(`The device took the setting but did not answer the read-back: ${error}`.slice(0, 200));
    const shown = this.writer.current(device.id)?.state?.[spec.confirm.field];
    if (String(shown) !== String(expected)) {
      throw new CommandFailure(`The device did not take the setting: ${spec.confirm.field} reads ${String(shown)} instead of ${String(expected)}.`);
    }
  }

  private tick(): void {
    const now = this.mono();
    if (now - this.lastSyncAt >= this.settings.resyncMs) this.sync();
    for (const session of this.sessions.values()) {
      if (session.inFlight || now < session.nextPollAt) continue;
      const bound = boundedSignal(this.stopping.signal, session.timeoutMs * 4);
      session.inFlight = this.poll(session, bound.signal).then(() => {
        bound.done();
        session.inFlight = undefined;
      });
    }
  }

  /** Reads the device; returns why it failed, or undefined. Schedules the next poll either way. */
  private async poll(session: Session, signal: AbortSignal): Promise<string | undefined> {
    const id = session.device.id;
    const kind = session.device.kind;
    const started = this.mono();
    const options = { timeoutMs: session.timeoutMs, signal };
    try {
      const values = await session.reader.readState(kind, options);
      if (!this.sessions.has(id)) return undefined;
      this.writer.reportValues(id, values, session.mapped, this.deps.clock.now());
      if (session.offlineReason || session.failures >= this.settings.offlineAfterFailures) {
        session.log.info('http: the device answers again');
        session.staticPending = true;
      }
      session.failures = 0;
      session.offlineReason = undefined;
      session.authRefused = false;
      if (session.staticPending) {
        session.staticPending = false;
        await session.reader.readStatic(kind, options)
          .then((read) => this.writer.reportStatic(id, read, this.deps.clock.now()))
          .catch((err: Error) => session.log.debug({ err: { message: err.message } }, 'http: static data not read'));
      }
      session.nextPollAt = Math.max(session.nextPollAt + session.intervalMs, started);
      this.polls++;
      return undefined;
    } catch (err) {
      const error = err as Error;
      // The hub stopping cut the request: the device did nothing wrong and is not shown offline.
      if (this.stopping.signal.aborted) return error.message;
      this.pollErrors++;
      if (err instanceof RateLimitedError) {
        // The device's own limit: not a failure, it answered; the next poll waits as long as asked.
        // Bounded: a Retry-After date read against a wall clock that is off (a gateway that has not
        // been set yet) could otherwise stop polling for days.
        const waitMs = Math.min(Math.max(err.retryAfterMs, session.intervalMs), Math.max(RETRY_AFTER_MAX_MS, this.settings.maxBackoffMs));
        session.nextPollAt = this.mono() + waitMs;
        session.log.info({ retryInMs: err.retryAfterMs }, 'http: the device asks the hub to wait');
        return error.message;
      }
      session.failures++;
      let backoff = Math.min(session.intervalMs * 2 ** Math.max(0, session.failures - 1), this.settings.maxBackoffMs);
      if (err instanceof AuthRefusedError) {
        // Asking again soon cannot help (and a Powerwall locks out repeated failed logins).
        backoff = this.settings.maxBackoffMs;
        if (session.offlineReason !== error.message) session.log.warn({ reason: error.message }, 'http: the device refuses the hub\'s credentials; shown offline');
        session.offlineReason = error.message;
        session.authRefused = true;
        this.writer.reportOnline(id, false);
      } else if (session.failures >= this.settings.offlineAfterFailures) {
        session.offlineReason = error.message;
        this.writer.reportOnline(id, false);
      }
      session.nextPollAt = this.mono() + backoff;
      const level = session.failures === 1 || session.failures === this.settings.offlineAfterFailures ? 'warn' : 'debug';
      session.log[level]({ err: { type: error.name, message: error.message }, failures: session.failures, retryInMs: backoff }, 'http: poll failed');
      return error.message;
    }
  }

  /** Picks up devices added (import, CLI, pairing) and drops deleted ones. */
  sync(): void {
    this.lastSyncAt = this.mono();
    const driven = new Set(this.deps.store.devices.driven().map((d) => d.id));
    for (const id of this.unusable.keys()) {
      if (driven.has(id)) continue;
      this.unusable.delete(id);
      if (!this.sessions.has(id)) this.writer.forget(id);
    }
    syncSessions(this.deps.store.devices.driven(), sessionTable(this.sessions, {
      handles: (device) => this.handles(device), open: (device) => this.open(device), remove: (id) => this.remove(id),
    }));
  }

  private sessionOf(device: DeviceRecord): Session | undefined {
    return this.sessions.get(device.id) ?? (this.handles(device) ? this.open(device) : undefined);
  }

  private open(device: DeviceRecord): Session | undefined {
    const log = this.log.child({ device: device.id });
    try {
      const definition = this.deps.registry.get(device.driver!.type);
      const mapping = definition.kinds[device.kind];
      if (!mapping) throw new Error(`driver ${definition.type} cannot read a ${device.kind}`);
      const binding = device.driver!;
      const missing = missingSecrets(definition, binding);
      if (missing.length > 0) {
        // Not asked at all: without its secret the device could only refuse (and a Powerwall locks
        // out repeated failed logins). Shown offline with what to do until the secret is given.
        this.markUnusable(device, missingSecretsReason(device.id, missing), log);
        this.writer.track(device);
        this.writer.reportOnline(device.id, false);
        return undefined;
      }
      const target = targetOf(definition, binding);
      const laneKey = `${target.scheme}://${target.host}:${target.port}`;
      const lane = this.lanes.get(laneKey) ?? new RequestLane();
      this.lanes.set(laneKey, lane);
      const session: Session = {
        device,
        reader: new HttpReader(definition, binding, this.deps.clock, lane),
        laneKey,
        mapped: Object.keys(mapping.fields),
        intervalMs: positive(binding['pollIntervalMs']) ?? definition.defaults.pollIntervalMs,
        timeoutMs: positive(binding['timeoutMs']) ?? definition.defaults.timeoutMs,
        // Spread first polls so that a restart does not ask every device at once.
        nextPollAt: this.mono() + Math.floor(Math.random() * 250),
        failures: 0,
        offlineReason: undefined,
        authRefused: false,
        staticPending: true,
        inFlight: undefined,
        log,
      };
      this.sessions.set(device.id, session);
      this.unusable.delete(device.id);
      this.writer.track(device);
      return session;
    } catch (err) {
      this.markUnusable(device, (err as Error).message, log);
      return undefined;
    }
  }

  /** Keeps why the device's binding cannot be used; said in the log once per binding. */
  private markUnusable(device: DeviceRecord, reason: string, log: Logger): void {
    const binding = JSON.stringify(device.driver);
    if (this.unusable.get(device.id)?.binding !== binding) log.warn({ reason }, 'http: device has an unusable driver binding, not polled');
    this.unusable.set(device.id, { binding, reason });
  }
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && value > 0 ? value : undefined;
}

/** Resolves when the signal aborts (and not before). */
function abortOf(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/**
 * What a definition's command takes and where its result shows: the state field confirms it, and
 * holds `confirm.equals`' word for the device's word sent (mode 3 shows as COOL), else that word.
 */
export function httpCommandShape(spec: HttpCommand): CommandShape {
  const shape: CommandShape = { value: spec.value, stateField: spec.confirm.field };
  const equals = spec.confirm.equals;
  if (spec.value.from === 'payload-enum' && equals) {
    const words: Record<string, string> = {};
    for (const [word, deviceWord] of Object.entries(spec.value.map)) {
      const shown = equals[String(deviceWord)];
      if (shown !== undefined) words[word] = String(shown);
    }
    shape.stateWords = words;
  }
  return shape;
}
