// Weekly programs the hub runs itself, for HVACs whose driver has no SET_SCHEDULE but can set a
// temperature or a mode (an air conditioner without a program of its own, a setpoint register).
//
// It sits in front of the runtime that drives such a device, as the command worker's executor: it
// takes SET_SCHEDULE (stores the program once the event in force is applied and read back) and passes
// every other command to that runtime. Events are applied through the same runtime's execute (the
// write and read-back the command worker uses), one at a time per device with the device's commands.
//
// Durable: the program and the occurrence last applied are in SQLite (hub_schedules) before the
// command is EXECUTED and after each application. After a restart or a power cut the hub applies the
// event in force if that occurrence was not applied yet, and never replays the events it missed.
// A step of the wall clock (ClockWatch) is a wake too: the event in force at the new time is applied
// unless it is the very occurrence applied last. An occurrence stored in the future (the clock went
// back past it) is not a reason to hold anything back; while the clock is not set (1970 on a fresh
// image) nothing is applied, as the event "in force" would be a guess.
// A device that refuses or is offline is tried again with back-off until the next event is due.
// Times: hub-program.ts.
import type { Logger } from 'pino';
import type { DeviceRecord } from '../../domain/device.ts';
import type { Clock } from '../../domain/time.ts';
import { formatTimestamp } from '../../domain/time.ts';
import type { CommandType } from '../../domain/vocabulary.ts';
import type { ScheduleEvent } from '../../domain/schedule-event.ts';
import type { HubProgram, HubScheduleRecord } from '../../store/hub-schedules.ts';
import type { Store } from '../../store/store.ts';
import type { HubEvents } from '../events/hub-events.ts';
import type { ClockWatch } from '../clock/clock-watch.ts';
import { commandValues } from './command-values.ts';
import { CommandFailure, type CommandExecutor, type CommandShape } from './executor.ts';
import { occurrencesAround, programActions, programProblem, type Occurrence, type ProgramAction } from './hub-program.ts';
import { hubTimeZone, offsetMinutes } from './schedules.ts';

export interface HubScheduleSettings {
  /** The longest the timer sleeps: a clock set forward or back is noticed within this. */
  maxSleepMs: number;
  /** The first wait before an event that failed is tried again; it doubles up to retryMaxMs. */
  retryMinMs: number;
  retryMaxMs: number;
  /** Longest wait for the device to confirm one write of an event. */
  confirmTimeoutMs: number;
  /** How long an event due waits for an unreachable device (just after a start, before its first poll). */
  reachWaitMs: number;
}

export const DEFAULT_HUB_SCHEDULE_SETTINGS: HubScheduleSettings = {
  maxSleepMs: 60_000,
  retryMinMs: 30_000,
  retryMaxMs: 15 * 60_000,
  confirmTimeoutMs: 30_000,
  reachWaitMs: 20_000,
};

export interface HubSchedulesDeps {
  store: Store;
  /** The runtimes that drive devices (Modbus, MQTT, OCPP); events are written through them. */
  executors: readonly CommandExecutor[];
  clock: Clock;
  log: Logger;
  /** Tells when a device is reached again; without it an unreachable device is tried again later. */
  events?: HubEvents;
  settings?: Partial<HubScheduleSettings>;
  /** The zone of a device whose binding names none (default: the hub's). */
  timeZone?: string;
  /** Steps of the wall clock wake the timer; nothing is applied until the clock is set. */
  clockWatch?: ClockWatch;
}

interface Retry {
  occurrenceMs: number;
  attempt: number;
  atMs: number;
}

export class HubSchedules implements CommandExecutor {
  readonly name = 'hub-schedule';
  private readonly settings: HubScheduleSettings;
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  /** Per device: the tail of its writes (commands and events), so they never interleave. */
  private readonly locks = new Map<string, Promise<void>>();
  private readonly retries = new Map<string, Retry>();
  /** Applications the timer started, per device. */
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();

  constructor(private readonly deps: HubSchedulesDeps) {
    this.settings = { ...DEFAULT_HUB_SCHEDULE_SETTINGS, ...deps.settings };
    this.log = deps.log.child({ part: 'hub-schedules' });
  }

  // --- as the command worker's executor ---

  /** A device gets a hub-run schedule when its driver cannot keep one but can set a temperature or a mode. */
  handles(device: DeviceRecord): boolean {
    const inner = this.innerOf(device);
    if (!inner || device.kind !== 'hvac') return false;
    const supported = inner.supportedCommands(device);
    return !supported.includes('SET_SCHEDULE') && (supported.includes('SET_TEMPERATURE') || supported.includes('SET_MODE'));
  }

  supportedCommands(device: DeviceRecord): readonly CommandType[] {
    const supported = this.innerOf(device)?.supportedCommands(device) ?? [];
    return [...supported, 'SET_SCHEDULE'];
  }

  /** What the device's own runtime says its commands take (Home Assistant offers within it). */
  commandShape(device: DeviceRecord, type: CommandType): CommandShape | undefined {
    return this.innerOf(device)?.commandShape?.(device, type);
  }

  isReachable(device: DeviceRecord): boolean {
    return this.innerOf(device)?.isReachable(device) ?? false;
  }

  execute(device: DeviceRecord, type: CommandType, payload: unknown, signal: AbortSignal): Promise<void> {
    const inner = this.innerOf(device);
    if (!inner) return Promise.reject(new CommandFailure('The hub has no driver that reaches this device.'));
    if (type === 'SET_SCHEDULE') return this.setProgram(inner, device, payload, signal);
    return this.exclusive(device.id, signal, () => inner.execute(device, type, payload, signal));
  }

  // --- the timer ---

  /** Drops programs a crash left unconfirmed, then applies what is due and sleeps until the next event. */
  start(): void {
    const dropped = this.deps.store.hubSchedules.dropFailed();
    if (dropped > 0) this.log.info({ dropped }, 'programs whose SET_SCHEDULE failed were dropped');
    this.started = true;
    this.deps.clockWatch?.on('step', this.onClock);
    this.deps.clockWatch?.on('trusted', this.onClock);
    this.wake();
  }

  private readonly onClock = (): void => this.wake();

  /** Stops the timer and the applications in flight (their event is applied after the next start). */
  async stop(): Promise<void> {
    this.started = false;
    this.deps.clockWatch?.off('step', this.onClock);
    this.deps.clockWatch?.off('trusted', this.onClock);
    clearTimeout(this.timer);
    this.timer = undefined;
    const running = [...this.running.values()];
    for (const r of running) r.abort.abort(new CommandFailure('The hub stopped.'));
    await Promise.allSettled(running.map((r) => r.done));
    this.retries.clear();
  }

  /** The device is gone (its program went with it in the store): nothing more is applied to it. */
  deviceDeleted(deviceId: string): void {
    this.retries.delete(deviceId);
    this.running.get(deviceId)?.abort.abort(new CommandFailure('The device was deleted.'));
  }

  /** Applies every event that is due and not applied yet, then sleeps until the next one (capped). */
  wake(): void {
    if (!this.started) return;
    clearTimeout(this.timer);
    const { store, clock } = this.deps;
    store.sync(); // a device deleted by the CLI is seen as it is now
    const now = clock.now();
    let wakeAt = now + this.settings.maxSleepMs;
    if (this.deps.clockWatch && !this.deps.clockWatch.trusted) {
      // Which event is in force is not known yet: looked at again when the clock is set ('trusted').
      this.timer = setTimeout(() => this.wake(), this.settings.maxSleepMs);
      this.timer.unref?.();
      return;
    }
    for (const record of store.hubSchedules.all()) {
      const device = store.devices.get(record.deviceId);
      if (!device) {
        try {
          store.hubSchedules.delete(record.deviceId);
        } catch (err) {
          // The card takes no writes: the program of a gone device is dropped at a later wake.
          if (!store.storage.report(err)) throw err;
        }
        continue;
      }
      // Rebound to a driver that keeps its own program, or no runtime drives it now (no broker
      // configured): nothing is applied, and the program is kept for when it is driven again.
      if (!this.handles(device)) continue;
      let around: { current: Occurrence; next: Occurrence };
      try {
        around = occurrencesAround(programActions(record.program), record.program.timeZone, now);
      } catch (err) {
        this.log.warn({ device: device.id, reason: (err as Error).message }, 'a stored program cannot be run');
        continue;
      }
      wakeAt = Math.min(wakeAt, around.next.atMs);
      const { current } = around;
      // Applied already: never twice. Only that very occurrence counts: one stored later than the one
      // in force was applied before the clock went back, and the event in force now is applied.
      if (record.appliedOccurrenceMs === current.atMs) {
        this.retries.delete(device.id);
        continue;
      }
      if (this.running.has(device.id)) continue;
      const retry = this.retries.get(device.id);
      if (retry?.occurrenceMs === current.atMs && retry.atMs > now) {
        wakeAt = Math.min(wakeAt, retry.atMs);
        continue;
      }
      this.apply(device, record, current);
    }
    this.timer = setTimeout(() => this.wake(), Math.max(1, wakeAt - now));
    this.timer.unref?.();
  }

  /** SET_SCHEDULE: the event in force is applied and read back, then the program is stored with it. */
  private async setProgram(inner: CommandExecutor, device: DeviceRecord, payload: unknown, signal: AbortSignal): Promise<void> {
    const events = (payload as { schedules?: ScheduleEvent[] } | undefined)?.schedules;
    if (!Array.isArray(events) || events.length === 0) throw new CommandFailure('The schedule is empty.');
    const supported = inner.supportedCommands(device);
    const problem = programProblem(events, supported.includes('SET_MODE'), supported.includes('SET_TEMPERATURE')) ?? eventProblem(inner, device, events);
    if (problem) throw new CommandFailure(problem);
    const now = this.deps.clock.now();
    const timeZone = this.zoneOf(device);
    const program: HubProgram = { events, timeZone, offsetMinutes: offsetMinutes(timeZone, now) };
    const { current } = occurrencesAround(programActions(program), timeZone, now);
    // The command being carried out: the worker runs one per device and recorded its attempt.
    const commandId = this.deps.store.commands.ofDeviceId(device.id, 'PENDING')
      .find((c) => c.type === 'SET_SCHEDULE' && c.startedAtMs !== null)?.id ?? null;
    await this.exclusive(device.id, signal, async () => {
      await applyAction(inner, device, current.action, signal);
      if (signal.aborted) throw signal.reason;
      try {
        this.deps.store.hubSchedules.save({
          deviceId: device.id, commandId, program, appliedOccurrenceMs: current.atMs, appliedAtMs: this.deps.clock.now(), storedAtMs: now,
        });
      } catch (err) {
        if (!this.deps.store.storage.report(err)) throw err;
        throw new CommandFailure(`The event in force was applied, but the hub's storage took no writes (${this.deps.store.storage.faultKind ?? 'failing'}), so the program was not stored and will not run; submit it again once storage is writable.`);
      }
    });
    this.retries.delete(device.id);
    this.log.info({ device: device.id, timeZone, events: events.length, ...describe(current) }, 'schedule stored; the event in force is applied');
    this.wake();
  }

  /** Applies an occurrence the timer found due; on failure, tries again later (until the next event). */
  private apply(device: DeviceRecord, record: HubScheduleRecord, occurrence: Occurrence): void {
    const abort = new AbortController();
    const log = this.log.child({ device: device.id });
    const run = async () => {
      const inner = this.innerOf(device);
      if (!inner) throw new CommandFailure('No driver of this hub reaches the device.');
      if (!(await this.waitReachable(inner, device, abort.signal))) throw new CommandFailure('The device is unreachable.');
      await this.exclusive(device.id, abort.signal, async () => {
        // Checked again in turn: a new program, or this occurrence applied meanwhile, ends it.
        const stored = this.deps.store.hubSchedules.get(device.id);
        if (!stored || stored.commandId !== record.commandId) return;
        if (stored.appliedOccurrenceMs === occurrence.atMs) return;
        const timeout = setTimeout(() => abort.abort(new CommandFailure(`The device did not confirm within ${Math.round(this.settings.confirmTimeoutMs / 1000)} s.`)), this.settings.confirmTimeoutMs);
        try {
          await applyAction(inner, device, occurrence.action, abort.signal);
        } finally {
          clearTimeout(timeout);
        }
        if (abort.signal.aborted) throw abort.signal.reason;
        this.deps.store.hubSchedules.markApplied(device.id, record.commandId, occurrence.atMs, this.deps.clock.now());
        log.info(describe(occurrence), 'schedule event applied');
      });
      this.retries.delete(device.id);
    };
    const done = run().catch((err: unknown) => {
      if (!this.started || this.deps.store.devices.get(device.id) === undefined) return;
      const previous = this.retries.get(device.id);
      const attempt = previous?.occurrenceMs === occurrence.atMs ? previous.attempt + 1 : 1;
      const waitMs = Math.min(this.settings.retryMinMs * 2 ** (attempt - 1), this.settings.retryMaxMs);
      this.retries.set(device.id, { occurrenceMs: occurrence.atMs, attempt, atMs: this.deps.clock.now() + waitMs });
      const reason = err instanceof CommandFailure ? err.message : `unexpected: ${(err as Error).message}`;
      log.warn({ ...describe(occurrence), reason, attempt, retryInS: Math.round(waitMs / 1000) },
        'schedule event not applied; tried again until the next event is due');
    }).finally(() => {
      this.running.delete(device.id);
      this.wake();
    });
    this.running.set(device.id, { abort, done });
  }

  /** Whether the device is reached, waiting a while for it (its runtime polls it at start). */
  private async waitReachable(inner: CommandExecutor, device: DeviceRecord, signal: AbortSignal): Promise<boolean> {
    const { events, clock } = this.deps;
    const deadline = clock.now() + this.settings.reachWaitMs;
    while (!inner.isReachable(device)) {
      if (!events || signal.aborted || clock.now() >= deadline) return false;
      try {
        // Reachability also returns without a stored change, so it is looked at twice a second.
        await events.next((e) => e.type !== 'command' && e.device.id === device.id, 500, signal);
      } catch {
        // timed out (look again) or aborted (the loop ends)
      }
    }
    return true;
  }

  private innerOf(device: DeviceRecord): CommandExecutor | undefined {
    return this.deps.executors.find((e) => e !== this && e.handles(device));
  }

  private zoneOf(device: DeviceRecord): string {
    const zone = device.driver?.['timeZone'];
    return typeof zone === 'string' && zone !== '' ? zone : this.deps.timeZone ?? hubTimeZone();
  }

  /**
   * Runs `fn` after the device's earlier writes (commands or events) have finished. Aborted while it
   * waits its turn, it rejects at once and `fn` never runs: nothing is sent after a stop or a deadline.
   */
  private exclusive<T>(deviceId: string, signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    const before = this.locks.get(deviceId) ?? Promise.resolve();
    const result = before.then(() => {
      if (signal.aborted) throw signal.reason;
      return fn();
    });
    const tail = result.then(() => {}, () => {});
    this.locks.set(deviceId, tail);
    void tail.then(() => {
      if (this.locks.get(deviceId) === tail) this.locks.delete(deviceId);
    });
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      result.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }
}

/**
 * The first event the device's driver would refuse (a mode it has no equivalent of, a temperature
 * outside its range), checked against what its commands take before anything is written: a program
 * is refused as a whole, not event by event when each falls due.
 */
function eventProblem(inner: CommandExecutor, device: DeviceRecord, events: readonly ScheduleEvent[]): string | undefined {
  const supported = inner.supportedCommands(device);
  const refusal = (type: CommandType, payload: Record<string, unknown>): string | undefined => {
    if (!supported.includes(type)) return undefined;
    const value = inner.commandShape?.(device, type)?.value;
    if (!value) return undefined;
    try {
      commandValues(value, type, payload, {});
      return undefined;
    } catch (err) {
      if (err instanceof CommandFailure) return err.message;
      throw err;
    }
  };
  for (const [index, event] of events.entries()) {
    const reason = refusal('SET_MODE', { mode: event.mode })
      ?? (event.end ? refusal('SET_MODE', { mode: 'OFF' }) : undefined)
      ?? (event.temperature !== undefined ? refusal('SET_TEMPERATURE', { temperature: event.temperature }) : undefined);
    if (reason) return `schedules[${index}]: ${reason}`;
  }
  return undefined;
}

/** An event's mode first (a device may take a setpoint only in its mode), then its temperature. */
async function applyAction(inner: CommandExecutor, device: DeviceRecord, action: ProgramAction, signal: AbortSignal): Promise<void> {
  const supported = inner.supportedCommands(device);
  if (supported.includes('SET_MODE')) await inner.execute(device, 'SET_MODE', { mode: action.mode }, signal);
  if (action.temperature !== undefined && supported.includes('SET_TEMPERATURE')) {
    if (signal.aborted) throw signal.reason;
    await inner.execute(device, 'SET_TEMPERATURE', { temperature: action.temperature }, signal);
  }
}

function describe(occurrence: Occurrence): Record<string, unknown> {
  const { action } = occurrence;
  return {
    event: action.event, at: formatTimestamp(occurrence.atMs), mode: action.mode,
    ...(action.temperature !== undefined ? { temperature: action.temperature } : {}), ...(action.isEnd ? { end: true } : {}),
  };
}
