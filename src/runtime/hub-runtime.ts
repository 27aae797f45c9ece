// The Runtime the API talks to: refreshes go to the runtime that drives the device (Modbus poller or
// HTTP or MQTT), new commands to the command worker, deletions to everything that holds the device.
import { CHARGER_BINDING, type DeviceRecord } from '../domain/device.ts';
import type { CommandRecord } from '../store/commands.ts';
import type { CommandWorker } from './commands/command-worker.ts';
import type { CommandShape } from './commands/executor.ts';
import type { CommandType } from '../domain/vocabulary.ts';
import type { HubSchedules } from './commands/hub-schedules.ts';
import type { DeviceWatcher } from './events/device-watcher.ts';
import { DeviceUnreachableError, type Runtime } from './live.ts';
import type { ModbusRuntime } from './modbus/modbus-runtime.ts';
import type { HttpRuntime } from './http/http-runtime.ts';
import type { MqttRuntime } from './mqtt/mqtt-runtime.ts';
import type { OcppRuntime } from './ocpp/ocpp-runtime.ts';
import type { CloudRuntime } from './cloud/cloud-runtime.ts';

export interface HubRuntimeParts {
  modbus: ModbusRuntime;
  http?: HttpRuntime | undefined;
  mqtt: MqttRuntime | undefined;
  ocpp?: OcppRuntime | undefined;
  cloud?: CloudRuntime | undefined;
  worker: CommandWorker;
  watcher: DeviceWatcher;
  schedules?: HubSchedules | undefined;
}

export class HubRuntime implements Runtime {
  constructor(private readonly parts: HubRuntimeParts) {}

  refresh(device: DeviceRecord): Promise<DeviceRecord> {
    const { modbus, http, mqtt, ocpp } = this.parts;
    if (modbus.handles(device)) return modbus.refresh(device);
    if (http?.handles(device)) return http.refresh(device);
    if (mqtt?.handles(device)) return mqtt.refresh(device);
    if (ocpp?.handles(device)) return ocpp.refresh(device);
    if (this.parts.cloud?.handles(device)) return this.parts.cloud.refresh(device);
    // Without a binding there is nothing to read, and the stored data is the answer (decided); a
    // vehicle bound only to the charger it charges at has nothing of its own to read either. A
    // binding that no driver here runs reaches nothing: its stored data is no live read.
    if (device.driver === null || device.driver.type === CHARGER_BINDING) return Promise.resolve(device);
    const why = mqtt ? `no driver of this hub runs bindings of type "${device.driver.type}"`
      : `no driver of this hub runs bindings of type "${device.driver.type}" (MQTT drivers need a broker: mqtt.url)`;
    return Promise.reject(new DeviceUnreachableError(device.id, why));
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
    this.parts.modbus.deviceDeleted(device);
    this.parts.http?.remove(device.id);
    this.parts.mqtt?.remove(device.id);
    this.parts.ocpp?.remove(device.id);
    this.parts.cloud?.remove(device.id);
    this.parts.worker.deviceDeleted(device.id);
    this.parts.schedules?.deviceDeleted(device.id);
    this.parts.watcher.deleted(device);
  }

  /** A device added in this process (pairing): driven and announced at once. */
  deviceAdded(device: DeviceRecord): void {
    if (this.parts.http?.handles(device)) this.parts.http.sync();
    if (this.parts.mqtt?.handles(device)) this.parts.mqtt.sync();
    if (this.parts.ocpp?.handles(device)) this.parts.ocpp.sync();
    this.parts.watcher.added(device);
  }
}
