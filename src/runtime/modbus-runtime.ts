// The Runtime the API talks to, backed by the Modbus poll scheduler: refresh is a live read with a
// bounded time, deletions stop polling. Devices whose binding is not a Modbus driver (or that have
// none) are answered from the store, as before.
import type { Logger } from 'pino';
import type { DeviceRecord } from '../domain/device.ts';
import type { Clock } from '../domain/time.ts';
import type { VendorCatalog } from '../domain/vendors.ts';
import type { Store } from '../store/store.ts';
import type { CommandRecord } from '../store/commands.ts';
import { LinePool } from '../transport/line-pool.ts';
import { DeviceUnreachableError, type Runtime } from './live.ts';
import type { DriverRegistry } from './driver-registry.ts';
import { DEFAULT_SCHEDULER_SETTINGS, PollScheduler, type SchedulerSettings } from './scheduler.ts';

export interface ModbusRuntimeDeps {
  store: Store;
  registry: DriverRegistry;
  log: Logger;
  clock: Clock;
  settings?: Partial<SchedulerSettings>;
  /** Upper bound of a refresh, queueing included. */
  refreshTimeoutMs?: number;
}

export class ModbusRuntime implements Runtime {
  readonly scheduler: PollScheduler;
  readonly pool: LinePool;
  private readonly refreshTimeoutMs: number;

  constructor(private readonly deps: ModbusRuntimeDeps) {
    const log = deps.log.child({ part: 'modbus' });
    this.pool = new LinePool(log);
    this.scheduler = new PollScheduler(deps.store, deps.registry, this.pool, log, deps.clock, { ...DEFAULT_SCHEDULER_SETTINGS, ...deps.settings });
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

  // Command execution belongs to the command worker; Modbus commands are an optional capability of
  // the driver definitions (DeviceReader.execute) for it to use.
  commandCreated(_command: CommandRecord): void {}

  deviceDeleted(device: DeviceRecord): void {
    this.scheduler.remove(device.id);
  }
}
