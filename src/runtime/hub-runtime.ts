// The Runtime the API talks to: refreshes go to the family runtime that drives the device (Modbus,
// HTTP, MQTT, OCPP: whichever handles its binding), new commands to the command worker, deletions to
// everything that holds the device. It knows the families only through FamilyRuntime.
import { CHARGER_BINDING, type DeviceRecord } from '../domain/device.ts';
import type { CommandRecord } from '../store/commands.ts';
import type { CommandWorker } from './commands/command-worker.ts';
import type { CommandShape } from './commands/executor.ts';
import type { CommandType } from '../domain/vocabulary.ts';
import type { HubSchedules } from './commands/hub-schedules.ts';
import type { DeviceWatcher } from './events/device-watcher.ts';
import { DeviceUnreachableError, type Runtime } from './devices/live.ts';
import type { FamilyRuntime } from './families/driver-family.ts';
import { unboundReason } from './devices/unbound-reason.ts';

export interface HubRuntimeParts {
  /** The runtimes of the families this configuration built, in the order they are asked. */
  families: readonly FamilyRuntime[];
  /** Whether a broker is configured (mqtt.url): without one, no MQTT family was built, and a refusal says why. */
  brokerConfigured: boolean;
  worker: CommandWorker;
  watcher: DeviceWatcher;
  schedules?: HubSchedules | undefined;
}

export class HubRuntime implements Runtime {
  constructor(private readonly parts: HubRuntimeParts) {}

  /**
   * Why the device is offline, when its family keeps a reason (HTTP: credentials refused, certificate
   * changed; the others only know silence), or when no family drives it at all: no binding, a car
   * reached only through its charger, a binding no driver here runs.
   */
  offlineReason(device: DeviceRecord): string | undefined {
    const family = this.parts.families.find((f) => f.handles(device));
    if (family) return family.offlineReason?.(device.id);
    return unboundReason(device) ?? this.noDriverReason(device);
  }

  private noDriverReason(device: DeviceRecord): string | undefined {
    if (device.driver === null) return undefined;
    return this.parts.brokerConfigured ? `no driver of this hub runs bindings of type "${device.driver.type}"`
      : `no driver of this hub runs bindings of type "${device.driver.type}" (MQTT drivers need a broker: mqtt.url)`;
  }

  refresh(device: DeviceRecord): Promise<DeviceRecord> {
    const family = this.parts.families.find((f) => f.handles(device));
    if (family) return family.refresh(device);
    // Without a binding there is nothing to read, and the stored data is the answer (decided); a
    // vehicle bound only to the charger it charges at has nothing of its own to read either. A
    // binding that no driver here runs reaches nothing: its stored data is no live read.
    if (device.driver === null || device.driver.type === CHARGER_BINDING) return Promise.resolve(device);
    return Promise.reject(new DeviceUnreachableError(device.id, this.noDriverReason(device)!));
  }

  offers(device: DeviceRecord): ReadonlyMap<CommandType, CommandShape> {
    return this.parts.worker.offers(device);
  }

  commandFailed(command: CommandRecord, reason: string): void {
    this.parts.worker.failAtOnce(command, reason);
  }

  commandCreated(command: CommandRecord): void {
    this.parts.worker.enqueue(command);
  }

  deviceDeleted(device: DeviceRecord): void {
    for (const family of this.parts.families) family.remove(device.id);
    this.parts.worker.deviceDeleted(device.id);
    this.parts.schedules?.deviceDeleted(device.id);
    this.parts.watcher.deleted(device);
  }

  /** A device added in this process (pairing): driven and announced at once. */
  deviceAdded(device: DeviceRecord): void {
    for (const family of this.parts.families) if (family.handles(device)) family.sync();
    this.parts.watcher.added(device);
  }
}
