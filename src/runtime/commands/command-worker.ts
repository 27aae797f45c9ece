// Carries out PENDING commands through the device's driver, at once and in order per device (one at a
// time per device, devices in parallel). A command is EXECUTED only when the device confirms; it
// FAILS with a reason on rejection, timeout, expiry, deletion or when the driver cannot do it.
//
// Nothing runs twice: before anything is sent, the attempt is recorded durably (started_at). After a
// crash, a PENDING command with an attempt may already have reached the device, so it fails with a
// reason instead of being sent again; one without an attempt resumes, or fails when past its deadline.
//
// A card that is full or read-only (store/storage-health.ts) stops nothing: a command is not sent
// until its attempt could be recorded, and an outcome that could not be written is kept in memory
// and written (then told) once the card takes writes again. Killed meanwhile, the hub finds the
// attempt and fails the command as above: never twice.
//
// Its time to live is a duration, counted on the monotonic clock from what was left of it when the
// worker took it up (at creation, or at a start from the stored deadline): a step of the wall clock
// (NTP after a boot without a battery clock) neither expires it nor stretches it. The stored deadline
// is a date, re-based on a step (clockStepped) so that what a restart finds and what the command says
// stay true. A command is sent only with its whole confirmation budget ahead of it, so it is never
// carried out by the device and FAILED by its deadline.
import type { Logger } from 'pino';
import { CHARGER_BINDING, type DeviceRecord } from '../../domain/device.ts';
import { formatTimestamp, monotonicMs, type Clock } from '../../domain/time.ts';
import { KIND_LABEL, type CommandType } from '../../domain/vocabulary.ts';
import type { CommandRecord } from '../../store/commands.ts';
import type { Store } from '../../store/store.ts';
import { FIRST_PAGE } from '../../store/devices.ts';
import type { HubEvents } from '../events/hub-events.ts';
import { boundedSignal } from '../bounded-signal.ts';
import { CommandFailure, DeviceNotReached, type CommandExecutor, type CommandShape } from './executor.ts';

export interface CommandWorkerSettings {
  /** Longest wait for a device's confirmation, unless the driver's command says otherwise. */
  confirmTimeoutMs: number;
  /** How long stop() lets a running command finish before failing it. */
  stopGraceMs: number;
  /** First wait before a command whose device could not be reached (nothing sent) is tried again; it doubles up to retryMaxMs. */
  retryMinMs: number;
  retryMaxMs: number;
}

export const DEFAULT_COMMAND_WORKER_SETTINGS: CommandWorkerSettings = {
  confirmTimeoutMs: 30_000,
  stopGraceMs: 5_000,
  retryMinMs: 1_000,
  retryMaxMs: 15_000,
};

/** Vehicle commands a charger can carry out for the vehicle plugged into it. */
const CHARGER_CAN_DO: readonly CommandType[] = ['CHARGING_START', 'CHARGING_STOP', 'SET_CHARGING_CURRENT'];

/** A household's devices of one kind fit in one page. */

interface DeviceQueue {
  waiting: CommandRecord[];
  running: { command: CommandRecord; abort: AbortController; done: Promise<void> } | undefined;
}

/** An outcome the store could not take yet (the card is full or read-only). */
interface HeldOutcome {
  command: CommandRecord;
  state: 'EXECUTED' | 'FAILED';
  reason: string | null;
  atMs: number;
}

interface Target {
  executor: CommandExecutor;
  device: DeviceRecord;
}

export interface CommandWorkerDeps {
  store: Store;
  executors: readonly CommandExecutor[];
  events: HubEvents;
  clock: Clock;
  log: Logger;
  settings?: Partial<CommandWorkerSettings>;
}

export class CommandWorker {
  private readonly queues = new Map<string, DeviceQueue>();
  private readonly settings: CommandWorkerSettings;
  private readonly log: Logger;
  private stopping = false;
  /** Commands whose device is unreachable: nothing of them was sent, so a stop leaves them PENDING. */
  private readonly waitingForDevice = new Set<string>();
  private started = false;
  private readonly held = new Map<string, HeldOutcome>();
  private cancelHeldRetry: (() => void) | undefined;
  /** Each taken-up command's deadline on the monotonic clock. */
  private readonly deadlines = new Map<string, number>();
  /** Commands waiting for their device, with who carries them out: their reason names the deadline. */
  private readonly waitingOn = new Map<string, { command: CommandRecord; target: Target }>();

  constructor(private readonly deps: CommandWorkerDeps) {
    this.settings = { ...DEFAULT_COMMAND_WORKER_SETTINGS, ...deps.settings };
    this.log = deps.log.child({ part: 'commands' });
  }

  /** Resumes what a previous run left PENDING. */
  start(): void {
    this.started = true;
    const now = this.deps.clock.now();
    for (const command of this.deps.store.commands.allPending()) {
      if (command.startedAtMs !== null) {
        this.finish(command, 'FAILED', 'The hub restarted while this command was being sent; it is not sent again, '
          + 'so that it cannot run twice. Check the device and submit it again if needed.');
      } else if (command.expiresAtMs <= now) {
        this.finish(command, 'FAILED', 'Expired: the hub was not running before the command\'s deadline.');
      } else {
        this.enqueue(command);
      }
    }
  }

  /** A new PENDING command (already stored). */
  enqueue(command: CommandRecord): void {
    if (this.stopping || !this.started) return; // picked up from the store at the next start
    if (!this.deadlines.has(command.id)) this.deadlines.set(command.id, this.mono() + (command.expiresAtMs - this.deps.clock.now()));
    let queue = this.queues.get(command.deviceId);
    if (!queue) {
      queue = { waiting: [], running: undefined };
      this.queues.set(command.deviceId, queue);
    }
    queue.waiting.push(command);
    if (!queue.running) this.drain(command.deviceId, queue);
  }

  /**
   * A stored command that nothing can carry out (no local path for it): FAILED at once with the
   * reason, told like any other outcome, never queued.
   */
  failAtOnce(command: CommandRecord, reason: string): void {
    this.finish(command, 'FAILED', reason);
  }

  /** The device is gone: its pending commands were failed by the store; stop the running one. */
  deviceDeleted(deviceId: string): void {
    const queue = this.queues.get(deviceId);
    if (!queue) return;
    for (const command of queue.waiting) this.deadlines.delete(command.id);
    queue.waiting = [];
    queue.running?.abort.abort(new CommandFailure('The device was deleted before it confirmed the command.'));
  }

  /**
   * Lets commands being carried out finish within the grace period, then fails them; queued ones,
   * and one that waits for its device to become reachable (nothing was sent), stay PENDING and are
   * ended at once: they run after the next start.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    const running = [...this.queues.values()].flatMap((q) => (q.running ? [q.running] : []));
    for (const queue of this.queues.values()) queue.waiting = [];
    for (const r of running) if (this.waitingForDevice.has(r.command.id)) r.abort.abort(HUB_STOPPING);
    if (running.length === 0) return;
    const grace = setTimeout(() => {
      for (const r of running) r.abort.abort(new CommandFailure('The hub stopped before the device confirmed the command.'));
    }, this.settings.stopGraceMs);
    await Promise.allSettled(running.map((r) => r.done));
    clearTimeout(grace);
    this.cancelHeldRetry?.();
    this.cancelHeldRetry = undefined;
    if (this.held.size > 0) this.writeHeld();
    if (this.held.size > 0) {
      this.log.error({ commands: [...this.held.keys()] }, 'stopped with command outcomes the storage did not take: after a restart they fail as interrupted, never run twice');
    }
  }

  /**
   * The wall clock stepped by `stepMs`: the stored deadlines of PENDING commands move with it, so
   * that a restart counts the time to live they have left, not the step, and a waiting command's
   * reason names a deadline still ahead. The monotonic deadlines in memory do not move.
   */
  clockStepped(stepMs: number): void {
    try {
      const moved = this.deps.store.commands.shiftPendingDeadlines(stepMs);
      if (moved > 0) this.log.info({ commands: moved, stepS: Math.round(stepMs / 1000) }, 'pending commands\' deadlines moved with the clock');
    } catch (err) {
      // Not stored: the monotonic deadlines still hold while the hub runs.
      if (!this.deps.store.storage.report(err)) throw err;
    }
    for (const { command, target } of this.waitingOn.values()) this.markWaiting(command, target, undefined);
  }

  /** Outcomes waiting for the storage to take writes, for metrics and tests. */
  get heldOutcomes(): number {
    return this.held.size;
  }

  /** Commands waiting or running, for metrics and tests. */
  get busy(): number {
    let n = 0;
    for (const queue of this.queues.values()) n += queue.waiting.length + (queue.running ? 1 : 0);
    return n + this.held.size;
  }

  private drain(deviceId: string, queue: DeviceQueue): void {
    const command = queue.waiting.shift();
    if (!command || this.stopping) {
      if (queue.waiting.length === 0 && !queue.running) this.queues.delete(deviceId);
      return;
    }
    const abort = new AbortController();
    const done = this.run(command, abort.signal).finally(() => {
      queue.running = undefined;
      this.drain(deviceId, queue);
    });
    queue.running = { command, abort, done };
  }

  /** Monotonic ms, for durations; `clock.now()` is for the dates that are stored. */
  private mono(): number {
    return monotonicMs(this.deps.clock);
  }

  /** What is left of the command's time to live, measured on the monotonic clock. */
  private leftMs(command: CommandRecord): number {
    const deadline = this.deadlines.get(command.id);
    return deadline === undefined ? command.expiresAtMs - this.deps.clock.now() : deadline - this.mono();
  }

  /** The command's deadline as the wall clock reads now, for what is shown. */
  private deadlineAt(command: CommandRecord): number {
    return this.deps.clock.now() + this.leftMs(command);
  }

  /**
   * How long the device is given to confirm: the worker's budget, or the whole time to live of a
   * command that has less (a short-lived command is still sent while its time is untouched).
   */
  private budgetMs(command: CommandRecord): number {
    // A stored deadline moved back by a step (clockStepped) may fall before the creation date: the
    // time to live is then unknown here, and the worker's budget stands.
    const ttlMs = command.expiresAtMs - command.createdAtMs;
    return ttlMs > 0 ? Math.min(this.settings.confirmTimeoutMs, ttlMs) : this.settings.confirmTimeoutMs;
  }

  private async run(command: CommandRecord, signal: AbortSignal): Promise<void> {
    const log = this.log.child({ command: command.id, device: command.deviceId, type: command.type });
    const expiresIn = this.leftMs(command);
    if (expiresIn <= 0) {
      this.finish(command, 'FAILED', 'Expired before the device could be reached.');
      return;
    }
    this.deps.store.sync(); // a device rebound or removed by the CLI is seen as it is now
    const device = this.deps.store.devices.get(command.deviceId);
    if (!device) {
      this.finish(command, 'FAILED', 'The device was deleted before the command ran.');
      return;
    }
    const target = this.targetOf(device, command.type);
    if (typeof target === 'string') {
      log.info({ reason: target }, 'command not supported');
      this.finish(command, 'FAILED', target);
      return;
    }
    // An unreachable device keeps its command until it answers again or the command expires. A
    // hand-made bound, not AbortSignal.any with AbortSignal.timeout: on Node 20 the timeout inside it
    // may be collected before it fires (nodejs/node#57736), and the command would wait past its
    // deadline. Its timer is a plain setTimeout, let go of when the command ends.
    const bound = boundedSignal(signal, expiresIn);
    try {
      await this.carryOut(command, target, device, signal, bound.signal, log);
    } finally {
      bound.done();
    }
  }

  /** Waits for the device while it is unreachable (until `expiry`), then tries, again after a device not reached. */
  private async carryOut(command: CommandRecord, target: Target, device: DeviceRecord, signal: AbortSignal, expiry: AbortSignal, log: Logger): Promise<void> {
    if (!target.executor.isReachable(target.device)) {
      this.markWaiting(command, target, log);
      const back = await this.waitReachable(target, expiry, command.id);
      this.noteWaiting(command.id, null);
      if (!back) {
        if (signal.reason === HUB_STOPPING) return; // PENDING: carried out after the next start
        this.finish(command, 'FAILED', signal.aborted ? reasonOf(signal) : 'Expired: the device was unreachable until the command\'s deadline.');
        return;
      }
    }
    // A device that has just gone away may still count as reachable until its poller notices: when
    // the attempt finds it cannot reach the device and sent nothing, the command waits for the device
    // (with back-off) and is tried again until its deadline, as for a device known to be offline.
    for (let retryMs = this.settings.retryMinMs; ; retryMs = Math.min(retryMs * 2, this.settings.retryMaxMs)) {
      const outcome = await this.attempt(command, target, device, signal, log);
      if (!(outcome instanceof DeviceNotReached)) return;
      const left = this.leftMs(command);
      if (left <= retryMs) {
        this.finish(command, 'FAILED', `Expired: the device was unreachable until the command's deadline (${outcome.message})`.slice(0, 300));
        return;
      }
      log.info({ reason: outcome.message, retryInMs: retryMs }, 'device not reached, nothing sent; the command waits for it');
      this.waitingForDevice.add(command.id);
      this.markWaiting(command, target, log);
      const paused = await this.pause(retryMs, expiry);
      this.waitingForDevice.delete(command.id);
      const back = paused && (await this.waitReachable(target, expiry, command.id));
      this.noteWaiting(command.id, null);
      if (!back) {
        if (signal.reason === HUB_STOPPING) return; // PENDING: carried out after the next start
        this.finish(command, 'FAILED', signal.aborted ? reasonOf(signal) : 'Expired: the device was unreachable until the command\'s deadline.');
        return;
      }
    }
  }

  /** One try: EXECUTED or FAILED, or the DeviceNotReached that left the command PENDING for another try. */
  private async attempt(command: CommandRecord, target: Target, device: DeviceRecord, signal: AbortSignal, log: Logger): Promise<DeviceNotReached | undefined> {
    // Sent only with the whole confirmation budget ahead: a device that took the command after its
    // deadline would have carried out a command stored FAILED. Nothing was sent, so failing is true.
    const timeoutMs = this.budgetMs(command);
    if (this.leftMs(command) < timeoutMs) {
      log.info({ leftMs: Math.round(this.leftMs(command)), budgetMs: timeoutMs }, 'too little time left to confirm; not sent');
      this.finish(command, 'FAILED', signal.aborted ? reasonOf(signal)
        : `Expired: less time was left before the command's deadline than the device is given to confirm (${Math.round(timeoutMs / 1000)} s), so it was not sent.`);
      return undefined;
    }
    const started = await this.recordStart(command, signal);
    if (started === 'expired') {
      this.finish(command, 'FAILED', signal.aborted ? reasonOf(signal) : 'Expired: the hub\'s storage took no writes until the command\'s deadline, so it was not sent.');
      return undefined;
    }
    if (!started) return undefined; // no longer PENDING (deleted)
    // Bounded by hand for the reason given in run(); its timer is cleared whatever the outcome.
    const bound = boundedSignal(signal, timeoutMs);
    const timedOut = () => bound.signal.aborted && !signal.aborted;
    const sentAt = this.mono();
    try {
      await target.executor.execute(target.device, command.type, command.payload, bound.signal);
      this.finish(command, 'EXECUTED', null);
      log.info({ ms: Math.round(this.mono() - sentAt), via: target.device.id === device.id ? undefined : target.device.id }, 'command executed');
    } catch (err) {
      if (err instanceof DeviceNotReached && !signal.aborted && !timedOut()) {
        try {
          this.deps.store.commands.markNotStarted(command.id);
        } catch (storeErr) {
          // Left marked as started: after a crash it fails rather than runs, the safe side.
          if (!this.deps.store.storage.report(storeErr)) throw storeErr;
        }
        return err;
      }
      let reason: string;
      if (signal.aborted) reason = reasonOf(signal);
      else if (timedOut()) reason = `The device did not confirm within ${Math.round(timeoutMs / 1000)} s.`;
      else if (err instanceof CommandFailure) reason = err.message;
      else reason = 'The command could not be sent to the device.';
      if (!(err instanceof CommandFailure) && !timedOut() && !signal.aborted) log.warn({ err }, 'command failed unexpectedly');
      else log.info({ reason }, 'command failed');
      this.finish(command, 'FAILED', reason);
    } finally {
      bound.done();
    }
    return undefined;
  }

  /**
   * The command waits for its device: said in the log and on the command itself (the API's
   * `waitingReason`), so that a command held by an offline device does not look about to run.
   */
  private markWaiting(command: CommandRecord, target: Target, log: Logger | undefined): void {
    const { device } = target;
    const what = device.id === command.deviceId ? 'the device' : `${KIND_LABEL[device.kind]} ${device.id}, which carries it out,`;
    const until = formatTimestamp(this.deadlineAt(command));
    const reason = `Waiting: ${what} is offline; the command is sent when it is reachable again, `
      + `and fails if it is not by ${until}.`;
    log?.warn({ via: device.id === command.deviceId ? undefined : device.id, until }, 'device offline; the command waits for it');
    this.noteWaiting(command.id, reason);
    this.waitingOn.set(command.id, { command, target });
  }

  /** Why the command waits (null: it no longer does). Only shown, so a card that refuses it stops nothing. */
  private noteWaiting(commandId: string, reason: string | null): void {
    if (reason === null) this.waitingOn.delete(commandId);
    try {
      this.deps.store.commands.markWaiting(commandId, reason);
    } catch (err) {
      if (!this.deps.store.storage.report(err)) throw err;
    }
  }

  /** Waits `ms` unless `signal` aborts first; false when it aborted. */
  private pause(ms: number, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        resolve(false);
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * The commands the device can be offered, with what each takes: those of its own driver, and for
   * a vehicle the charging commands of the charger its binding names or, when its owner has this one
   * vehicle, of the owner's chargers. Whether that charger then has this car plugged in is decided
   * when the command runs (targetOf), as for a command from the API.
   */
  offers(device: DeviceRecord): Map<CommandType, CommandShape> {
    const out = new Map<CommandType, CommandShape>();
    const add = (executor: CommandExecutor, target: DeviceRecord, only?: readonly CommandType[]) => {
      for (const type of executor.supportedCommands(target)) {
        if (out.has(type) || (only && !only.includes(type))) continue;
        out.set(type, executor.commandShape?.(target, type) ?? {});
      }
    };
    const own = this.deps.executors.find((e) => e.handles(device));
    if (own) add(own, device);
    if (device.kind !== 'vehicle') return out;
    const named = device.driver?.['chargerId'];
    let chargers: DeviceRecord[] = [];
    if (typeof named === 'string') {
      const charger = this.deps.store.devices.get(named.toLowerCase());
      if (charger?.kind === 'charger') chargers = [charger];
    } else if (this.deps.store.devices.list({ kind: 'vehicle', ownerId: device.userId }, FIRST_PAGE).total === 1) {
      chargers = this.deps.store.devices.list({ kind: 'charger', ownerId: device.userId }, FIRST_PAGE).items;
    }
    for (const charger of chargers) {
      const executor = this.deps.executors.find((e) => e.handles(charger));
      if (executor) add(executor, charger, CHARGER_CAN_DO);
    }
    return out;
  }

  /** Which runtime and device carry the command out, or why none can. */
  private targetOf(device: DeviceRecord, type: CommandType): Target | string {
    const executor = this.deps.executors.find((e) => e.handles(device));
    const supported = executor?.supportedCommands(device) ?? [];
    if (executor && supported.includes(type)) return { executor, device };
    // A vehicle whose bridge cannot command it is stopped or started through the charger it is plugged into.
    if (device.kind === 'vehicle' && CHARGER_CAN_DO.includes(type)) {
      const own = executor ? `the vehicle's driver (${device.driver?.type}) cannot do it` : 'no driver reaches the vehicle itself';
      const charger = this.chargerOf(device);
      if (typeof charger === 'string') return `${type} is not supported: ${own}, and ${charger}.`;
      const chargerExecutor = this.deps.executors.find((e) => e.handles(charger));
      if (chargerExecutor?.supportedCommands(charger).includes(type)) return { executor: chargerExecutor, device: charger };
      return `${type} is not supported: ${own}, nor can its charger ${charger.id} (driver ${charger.driver?.type ?? 'none'}).`;
    }
    if (!executor) return 'The hub has no driver that reaches this device, so it cannot carry out commands.';
    return supported.length === 0
      ? `${type} is not supported: the device's driver (${device.driver?.type}) accepts no commands.`
      : `${type} is not supported by the device's driver (${device.driver?.type}); it supports ${supported.join(', ')}.`;
  }

  /**
   * The charger a vehicle is plugged into: the one its binding names (a driver's `chargerId`, or a
   * `charger` binding for a vehicle no driver reaches), else its owner's only charger with a vehicle
   * plugged in, but only when that vehicle can be no other: acting on a charger for the wrong car
   * stops or starts someone else's charging. So the owner must have this one vehicle on the hub, and
   * the vehicle must not report itself unplugged (a car can charge elsewhere).
   */
  private chargerOf(vehicle: DeviceRecord): DeviceRecord | string {
    const named = vehicle.driver?.['chargerId'];
    if (typeof named === 'string') {
      // Ids are kept in lower case, and a binding written by hand may not be.
      const charger = this.deps.store.devices.get(named.toLowerCase());
      return charger?.kind === 'charger' ? charger : `the charger its binding names (${named}) is not on this hub`;
    }
    // A vehicle without a binding cannot take a chargerId: it is bound to the charger instead.
    const hint = vehicle.driver
      ? `; set chargerId in the vehicle's binding (driver ${vehicle.driver.type}) to the id of the charger it charges at`
      : `; bind the vehicle, which has no driver, to the charger it charges at: {"type":"${CHARGER_BINDING}","chargerId":"<id of the charger>"}`;
    const plugged = this.deps.store.devices
      .list({ kind: 'charger', ownerId: vehicle.userId, isOnline: true }, FIRST_PAGE)
      .items.filter((c) => c.state?.['isPlugged'] === true);
    if (plugged.length !== 1) {
      return `${plugged.length === 0 ? 'no charger of its owner reports' : `${plugged.length} chargers of its owner report`} a plugged-in vehicle${hint}`;
    }
    const charger = plugged[0]!;
    const vehicles = this.deps.store.devices.list({ kind: 'vehicle', ownerId: vehicle.userId }, FIRST_PAGE).total;
    if (vehicles > 1) return `its owner has ${vehicles} vehicles on this hub, so the hub cannot tell which one is plugged into charger ${charger.id}${hint}`;
    if (vehicle.state?.['isPlugged'] === false || vehicle.state?.['chargingState'] === 'UNPLUGGED') {
      return `the vehicle reports that it is not plugged in, so the vehicle at charger ${charger.id} is not this one${hint}`;
    }
    return charger;
  }

  private async waitReachable(target: Target, signal: AbortSignal, commandId: string): Promise<boolean> {
    this.waitingForDevice.add(commandId);
    try {
      return await this.pollReachable(target, signal);
    } finally {
      this.waitingForDevice.delete(commandId);
    }
  }

  private async pollReachable(target: Target, signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted) {
      if (target.executor.isReachable(target.device)) return true;
      try {
        // Reachability also returns without a stored change (a broker reconnecting, a retained
        // message equal to the stored state), so the check is repeated twice a second.
        await this.deps.events.next((e) => e.type !== 'command' && e.device.id === target.device.id, 500, signal);
      } catch {
        // timed out (check again) or aborted (the loop ends)
      }
    }
    return false;
  }

  /**
   * Records, durably, that the command is about to be sent: true, false when it is no longer
   * PENDING, 'expired' when the storage took no writes until its deadline (nothing was sent).
   */
  private async recordStart(command: CommandRecord, signal: AbortSignal): Promise<boolean | 'expired'> {
    const { storage } = this.deps.store;
    for (;;) {
      try {
        return this.deps.store.commands.markStarted(command.id, this.deps.clock.now());
      } catch (err) {
        if (!storage.report(err)) throw err;
      }
      const left = this.leftMs(command);
      // Bounded by hand for the reason given in run(); the timer is let go of either way.
      const deadline = boundedSignal(signal, Math.max(1, left));
      const back = await new Promise<boolean>((resolve) => {
        if (deadline.signal.aborted) return resolve(false);
        const cancel = storage.whenWritable(() => {
          deadline.signal.removeEventListener('abort', onAbort);
          resolve(true);
        });
        const onAbort = () => {
          cancel();
          resolve(false);
        };
        deadline.signal.addEventListener('abort', onAbort, { once: true });
      }).finally(deadline.done);
      if (!back) return 'expired';
    }
  }

  private finish(command: CommandRecord, state: 'EXECUTED' | 'FAILED', reason: string | null, atMs = this.deps.clock.now()): void {
    this.deadlines.delete(command.id);
    this.waitingOn.delete(command.id);
    let done: boolean;
    try {
      done = this.deps.store.commands.complete(command.id, state, reason, atMs);
    } catch (err) {
      if (!this.deps.store.storage.report(err)) throw err;
      // Kept, and written (then told) when the card takes writes again, with the time it happened.
      this.held.set(command.id, { command, state, reason, atMs });
      this.cancelHeldRetry ??= this.deps.store.storage.whenWritable(() => {
        this.cancelHeldRetry = undefined;
        this.writeHeld();
      });
      return;
    }
    if (!done) return;
    const stored = this.deps.store.commands.get(command.id);
    if (stored) this.deps.events.emit({ type: 'command', command: stored, atMs });
  }

  /** Writes the outcomes the storage did not take, in the order they happened. */
  private writeHeld(): void {
    const held = [...this.held.values()];
    this.held.clear();
    for (const outcome of held) this.finish(outcome.command, outcome.state, outcome.reason, outcome.atMs);
  }
}

/** The abort reason of a command that waits for its device when the hub stops: it stays PENDING. */
const HUB_STOPPING = new CommandFailure('The hub is stopping; the command waits for the next start.');

function reasonOf(signal: AbortSignal): string {
  return signal.reason instanceof CommandFailure ? signal.reason.message : 'The command was cancelled.';
}
