// Polls every device that has a Modbus driver binding, each at its own interval, and hands what it
// reads to the StateWriter, which writes in batches. A device that fails is retried later and later
// (exponential back-off), so a dead device costs its bus at most one timeout per back-off period
// and never stalls the others. Refreshes ask the same devices, ahead of the polls on their line.
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { DeviceRecord } from '../../domain/device.ts';
import { monotonicMs, type Clock } from '../../domain/time.ts';
import type { Store } from '../../store/store.ts';
import { endpointOf } from '../../transport/endpoint.ts';
import type { LinePool } from '../../transport/line-pool.ts';
import { ModbusExceptionError } from '../../transport/modbus-errors.ts';
import type { LineOptions, Priority } from '../../transport/modbus-line.ts';
import { DeviceReader } from './modbus-reader.ts';
import type { DriverRegistry } from './modbus-registry.ts';
import { StateWriter } from '../devices/state-writer.ts';
import { syncSessions } from '../devices/driven-sync.ts';
import type { HubEvents } from '../events/hub-events.ts';

export interface SchedulerSettings {
  /** How often due polls are started. */
  tickMs: number;
  /** How often pending state is written (one transaction each time). */
  flushMs: number;
  /** How often the list of driven devices is re-read from the store (imports, CLI additions). */
  resyncMs: number;
  defaultPollMs: number;
  /** Per request, unless the binding sets timeoutMs. */
  requestTimeoutMs: number;
  maxBackoffMs: number;
  /** Consecutive failed polls before a device is shown offline (one lost answer is not an outage). */
  offlineAfterFailures: number;
}

export const DEFAULT_SCHEDULER_SETTINGS: SchedulerSettings = {
  tickMs: 100,
  flushMs: 1000,
  resyncMs: 15_000,
  defaultPollMs: 5000,
  requestTimeoutMs: 1000,
  maxBackoffMs: 60_000,
  offlineAfterFailures: 2,
};

interface Session {
  device: DeviceRecord;
  reader: DeviceReader;
  mapped: string[];
  intervalMs: number;
  timeoutMs: number;
  /** On the monotonic clock, as every time the poller keeps: a wall-clock step never stops polling. */
  nextPollAt: number;
  failures: number;
  /** Static data still to be read: when the device is first reached and when it comes back online. */
  staticPending: boolean;
  inFlight: Promise<void> | undefined;
  log: Logger;
}

export interface PollResult {
  deviceId: string;
  ok: boolean;
  error?: Error;
  /** How long the read took, queueing on its line included. */
  ms?: number;
}

export class PollScheduler extends EventEmitter {
  readonly writer: StateWriter;
  /** Completed polls, for the bench. */
  polls = 0;
  private readonly sessions = new Map<string, Session>();
  private timers: NodeJS.Timeout[] = [];
  private lastSyncAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: Store,
    private readonly registry: DriverRegistry,
    private readonly pool: LinePool,
    private readonly log: Logger,
    private readonly clock: Clock,
    readonly settings: SchedulerSettings = DEFAULT_SCHEDULER_SETTINGS,
    events?: HubEvents,
  ) {
    super();
    this.writer = new StateWriter(store.db, store.devices, events, store.storage);
  }

  /** Whether this runtime drives the device (its binding names a Modbus definition). */
  handles(device: DeviceRecord): boolean {
    return device.driver !== null && this.registry.has(device.driver.type);
  }

  start(): void {
    this.sync();
    this.timers.push(setInterval(() => this.tick(), this.settings.tickMs));
    this.timers.push(setInterval(() => this.flush(), this.settings.flushMs));
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    const inFlight = [...this.sessions.values()].map((s) => s.inFlight).filter(Boolean);
    await this.pool.closeAll(); // fails queued requests at once, so in-flight polls end quickly
    await Promise.allSettled(inFlight);
    this.flush();
    this.sessions.clear();
  }

  /** Devices being polled. */
  get deviceCount(): number {
    return this.sessions.size;
  }

  /** Stops polling a device (deleted); its line stays for the devices that share it. */
  remove(deviceId: string): void {
    this.sessions.delete(deviceId);
    this.writer.forget(deviceId);
  }

  /** Reads the device now, ahead of polls on its line, writes the result and returns the stored record. */
  async refresh(device: DeviceRecord, timeoutMs: number): Promise<{ ok: boolean; error?: Error; record: DeviceRecord | undefined }> {
    const session = this.sessions.get(device.id) ?? this.open(device);
    if (!session) return { ok: false, error: new Error('no usable driver binding'), record: device };
    const result = await this.poll(session, 'command', this.mono() + timeoutMs);
    this.flush();
    return { ...result, record: this.store.devices.get(device.id) };
  }

  /** Whether the device answered its last poll (or has not failed enough to count as offline). */
  isReachable(deviceId: string): boolean {
    const session = this.sessions.get(deviceId);
    return session !== undefined && session.failures < this.settings.offlineAfterFailures;
  }

  /** Writes a command value through the device's driver, ahead of polls on its line. */
  async write(device: DeviceRecord, command: string, value: number, timeoutMs: number): Promise<void> {
    const session = this.sessions.get(device.id) ?? this.open(device);
    if (!session) throw new Error('no usable driver binding');
    await session.reader.execute(command, value, { priority: 'command', deadline: this.mono() + timeoutMs, timeoutMs: session.timeoutMs });
  }

  /** Writes pending state now. */
  flush(): void {
    const written = this.writer.flush();
    if (written.length > 0) this.emit('written', written);
  }

  /** Monotonic ms, for durations; `clock.now()` is for the dates that are stored. */
  private mono(): number {
    return monotonicMs(this.clock);
  }

  private tick(): void {
    const now = this.mono();
    if (now - this.lastSyncAt >= this.settings.resyncMs) this.sync();
    for (const session of this.sessions.values()) {
      if (session.inFlight || now < session.nextPollAt) continue;
      session.inFlight = this.poll(session, 'poll', now + session.timeoutMs * 3).then(() => {
        session.inFlight = undefined;
      });
    }
  }

  /** Picks up devices added (import, CLI, pairing) and drops deleted ones. */
  sync(): void {
    this.lastSyncAt = this.mono();
    syncSessions(this.store.devices.driven(), {
      handles: (device) => this.handles(device),
      bindingOf: (id) => this.sessions.get(id)?.device.driver,
      ids: () => this.sessions.keys(),
      open: (device) => this.open(device),
      remove: (id) => this.remove(id),
    });
  }

  private open(device: DeviceRecord): Session | undefined {
    const log = this.log.child({ device: device.id });
    try {
      const binding = device.driver!;
      const definition = this.registry.definitionFor(binding);
      const line = this.pool.get(endpointOf(binding), lineOptionsOf(definition.line, binding));
      const reader = new DeviceReader(definition, binding, device.kind, line);
      const session: Session = {
        device,
        reader,
        mapped: Object.keys(definition.kinds[device.kind]?.fields ?? {}),
        intervalMs: positive(binding['pollIntervalMs']) ?? definition.defaults?.pollIntervalMs ?? this.settings.defaultPollMs,
        timeoutMs: positive(binding['timeoutMs']) ?? definition.line?.timeoutMs ?? this.settings.requestTimeoutMs,
        // Spread first polls over one interval so that a restart does not hit every bus at once.
        nextPollAt: this.mono() + Math.floor(Math.random() * 250),
        failures: 0,
        staticPending: true,
        inFlight: undefined,
        log,
      };
      if (!definition.kinds[device.kind]) throw new Error(`driver ${definition.type} cannot read a ${device.kind}`);
      this.sessions.set(device.id, session);
      this.writer.track(device);
      return session;
    } catch (err) {
      log.warn({ err }, 'modbus: device has an unusable driver binding, not polled');
      return undefined;
    }
  }

  private async poll(session: Session, priority: Priority, deadline: number): Promise<PollResult> {
    const id = session.device.id;
    const started = this.mono();
    try {
      const values = await session.reader.readState({ priority, deadline, timeoutMs: session.timeoutMs });
      if (!this.sessions.has(id) && priority === 'poll') return { deviceId: id, ok: false };
      this.writer.reportValues(id, values, session.mapped, this.clock.now());
      if (session.failures >= this.settings.offlineAfterFailures) session.staticPending = true;
      session.failures = 0;
      if (session.staticPending && priority === 'poll') {
        // First reached, or back online: read what the device says of itself (model, capacity…).
        session.staticPending = false;
        await session.reader.readStatic({ priority, deadline, timeoutMs: session.timeoutMs })
          .then((read) => this.writer.reportStatic(id, read, this.clock.now()))
          .catch((err: Error) => session.log.debug({ err }, 'modbus: static data not read'));
      }
      // Fixed rate: the next poll is due one interval after this one was due, not after it ended,
      // unless the device fell more than an interval behind.
      if (priority === 'poll') session.nextPollAt = Math.max(session.nextPollAt + session.intervalMs, started);
      this.polls++;
      session.log.debug({ values, ms: this.mono() - started }, 'modbus: polled');
      const result = { deviceId: id, ok: true, ms: this.mono() - started };
      this.emit('polled', result);
      return result;
    } catch (err) {
      const error = err as Error;
      const busy = err instanceof ModbusExceptionError && (session.reader.definition.busyExceptions ?? []).includes(err.code);
      if (!busy) session.failures++;
      const backoff = Math.min(session.intervalMs * 2 ** Math.max(0, session.failures - 1), this.settings.maxBackoffMs);
      session.nextPollAt = this.mono() + backoff;
      if (session.failures >= this.settings.offlineAfterFailures) this.writer.reportOnline(id, false);
      const level = session.failures === 1 || session.failures === this.settings.offlineAfterFailures ? 'warn' : 'debug';
      session.log[level]({ err: error, failures: session.failures, retryInMs: backoff }, 'modbus: poll failed');
      const result = { deviceId: id, ok: false, error, ms: this.mono() - started };
      this.emit('polled', result);
      return result;
    }
  }
}

/** The definition's line needs, with the binding's own pauses on top (an installer may know better). */
function lineOptionsOf(defaults: Partial<LineOptions> | undefined, binding: Record<string, unknown>): Partial<LineOptions> {
  const options: Partial<LineOptions> = { ...defaults };
  for (const key of ['pauseAfterConnectMs', 'pauseBetweenMs'] as const) {
    const value = binding[key];
    if (typeof value === 'number' && value >= 0) options[key] = value;
  }
  return options;
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && value > 0 ? value : undefined;
}
