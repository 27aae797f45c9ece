// The Runtime the API talks to, backed by the Modbus poll scheduler: refresh is a live read with a
// bounded time, deletions stop polling. Devices whose binding is not a Modbus driver (or that have
// none) are answered from the store, as before.
import type { Logger } from 'pino';
import type { DeviceRecord } from '../../domain/device.ts';
import { monotonicMs, type Clock } from '../../domain/time.ts';
import type { VendorCatalog } from '../../domain/vendors.ts';
import type { Store } from '../../store/store.ts';
import type { CommandRecord } from '../../store/commands.ts';
import { LinePool } from '../../transport/line-pool.ts';
import { DeviceUnreachableError, type Runtime } from '../devices/live.ts';
import type { DriverRegistry } from './modbus-registry.ts';
import { DEFAULT_SCHEDULER_SETTINGS, PollScheduler, type SchedulerSettings } from './modbus-poller.ts';
import { COMMAND_TYPES, type CommandType } from '../../domain/vocabulary.ts';
import { CommandFailure, DeviceNotReached, type CommandExecutor, type CommandShape } from '../commands/executor.ts';
import { ModbusNotConnectedError } from '../../transport/modbus-errors.ts';
import { commandValues } from '../commands/command-values.ts';
import type { HubEvents } from '../events/hub-events.ts';

export interface ModbusRuntimeDeps {
  store: Store;
  registry: DriverRegistry;
  log: Logger;
  clock: Clock;
  settings?: Partial<SchedulerSettings>;
  /** Upper bound of a refresh, queueing included. */
  refreshTimeoutMs?: number;
  events?: HubEvents;
}

export class ModbusRuntime implements Runtime, CommandExecutor {
  readonly name = 'modbus';
  readonly scheduler: PollScheduler;
  readonly pool: LinePool;
  private readonly refreshTimeoutMs: number;

  constructor(private readonly deps: ModbusRuntimeDeps) {
    const log = deps.log.child({ part: 'modbus' });
    // The lines measure their pauses and deadlines on the hub's monotonic clock, as the poller does.
    this.pool = new LinePool(log, undefined, () => monotonicMs(deps.clock));
    this.scheduler = new PollScheduler(deps.store, deps.registry, this.pool, log, deps.clock, { ...DEFAULT_SCHEDULER_SETTINGS, ...deps.settings }, deps.events);
    this.refreshTimeoutMs = deps.refreshTimeoutMs ?? 5000;
  }

  /** Declares the makers the Modbus drivers reach ('homePower' FRONIUS, SMA, HUAWEI). */
  registerVendors(catalog: VendorCatalog): void {
    this.deps.registry.registerVendors(catalog);
  }

  handles(device: DeviceRecord): boolean {
    return this.scheduler.handles(device);
  }

  start(): void {
    this.scheduler.start();
  }

  stop(): Promise<void> {
    return this.scheduler.stop();
  }

  async refresh(device: DeviceRecord): Promise<DeviceRecord> {
    if (!this.handles(device)) return device;
    const result = await this.scheduler.refresh(device, this.refreshTimeoutMs);
    if (!result.ok) throw new DeviceUnreachableError(device.id, result.error?.message ?? 'device did not answer');
    return result.record ?? device;
  }

  // New commands reach the command worker, which calls execute() below.
  commandCreated(_command: CommandRecord): void {}

  supportedCommands(device: DeviceRecord): readonly CommandType[] {
    if (!this.handles(device)) return [];
    try {
      const commands = this.deps.registry.definitionFor(device.driver!).commands ?? {};
      return COMMAND_TYPES.filter((type) => commands[type]?.value !== undefined);
    } catch {
      return [];
    }
  }

  commandShape(device: DeviceRecord, type: CommandType): CommandShape | undefined {
    if (!this.handles(device)) return undefined;
    try {
      const def = this.deps.registry.definitionFor(device.driver!).commands?.[type];
      return def?.value ? { value: def.value, stateField: def.confirmField } : undefined;
    } catch {
      return undefined;
    }
  }

  isReachable(device: DeviceRecord): boolean {
    return this.scheduler.isReachable(device.id);
  }

  /** Writes the value; the device's write response and then a read-back of the field confirm it. */
  async execute(device: DeviceRecord, type: CommandType, payload: unknown, signal: AbortSignal): Promise<void> {
    const definition = this.deps.registry.definitionFor(device.driver!);
    const def = definition.commands?.[type];
    if (!def?.value) throw new CommandFailure(`${type} is not supported by this device's driver.`);
    const [value] = commandValues(def.value, type, payload, {});
    if (typeof value !== 'number') throw new CommandFailure(`${type}: a Modbus register takes a number.`);
    const deadline = () => Math.max(1, this.refreshTimeoutMs);
    try {
      await this.scheduler.write(device, type, value, deadline());
      if (signal.aborted) throw signal.reason;
      if (!def.confirmField) return;
      const result = await this.scheduler.refresh(device, deadline());
      if (!result.ok) throw new CommandFailure('The device took the value but did not answer the read-back.');
      const shown = result.record?.state?.[def.confirmField] ?? this.scheduler.writer.current(device.id)?.state?.[def.confirmField];
      if (typeof shown !== 'number' || Math.abs(shown - value) > 1e-6 * Math.max(1, Math.abs(value))) {
        throw new CommandFailure(`The device did not take the value: it reads back ${String(shown)} instead of ${value}.`);
      }
    } catch (err) {
      if (err instanceof CommandFailure) throw err;
      if (err instanceof ModbusNotConnectedError) throw new DeviceNotReached(`The device could not be reached: ${err.message}`.slice(0, 200));
      const code = (err as { code?: number }).code;
      throw new CommandFailure(typeof code === 'number' && err instanceof Error && err.name === 'ModbusExceptionError'
        ? `The device rejected the write (Modbus exception ${code}).`
        : `The device could not be written: ${(err as Error).message}`.slice(0, 200));
    }
  }

  deviceDeleted(device: DeviceRecord): void {
    this.remove(device.id);
  }

  /** A deleted device: polling stops. */
  remove(deviceId: string): void {
    this.scheduler.remove(deviceId);
  }

  /** A device added in this process: polled at once rather than at the next resync. */
  sync(): void {
    this.scheduler.sync();
  }
}
