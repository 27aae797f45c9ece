// The store: one database, one repository per table, and the few writes that span tables.
import { openDatabase, type Db } from './db.ts';
import { ExternalWrites } from './external-writes.ts';
import { DeviceRepository } from './devices.ts';
import { CommandRepository } from './commands.ts';
import { ApiKeyRepository } from './api-keys.ts';
import { ConnectSessionRepository } from './connect-sessions.ts';
import { VehicleImageRepository } from './vehicle-images.ts';
import type { DeviceRecord } from '../domain/device.ts';

export class Store {
  readonly devices: DeviceRepository;
  readonly commands: CommandRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly connectSessions: ConnectSessionRepository;
  readonly vehicleImages: VehicleImageRepository;
  private readonly externalWrites: ExternalWrites;

  constructor(readonly db: Db) {
    this.externalWrites = new ExternalWrites(db);
    this.devices = new DeviceRepository(db);
    this.commands = new CommandRepository(db);
    this.apiKeys = new ApiKeyRepository(db);
    this.connectSessions = new ConnectSessionRepository(db);
    this.vehicleImages = new VehicleImageRepository(db);
  }

  static open(path: string): Store {
    return new Store(openDatabase(path));
  }

  /**
   * Catches up with writes by other processes (the hub CLI: an import, a revoked key): when another
   * connection committed, the repositories forget what they remember. Cheap (external-writes.ts):
   * the API calls it at the start of every request, so a key revoked by the CLI fails on the next
   * request, and the runtime calls it before it acts on a device.
   */
  sync(): void {
    if (!this.externalWrites.happened()) return;
    this.devices.forgetAll();
    this.apiKeys.forgetAll();
  }

  /** Deletes a device for good: its row and image go, its pending commands fail, it stays deleted. */
  deleteDevice(device: DeviceRecord, nowMs: number): number {
    return this.db.transaction(() => {
      this.devices.delete(device, nowMs);
      this.vehicleImages.delete(device.id);
      return this.commands.failPending(device.id, 'Device was deleted', nowMs);
    })();
  }

  /** Writes a checked import in one transaction: devices and their images, all or nothing. */
  importDevices(devices: readonly DeviceRecord[], images: ReadonlyMap<string, Buffer>, nowMs: number): void {
    this.db.transaction(() => {
      this.devices.save(devices);
      for (const [vehicleId, png] of images) this.vehicleImages.set(vehicleId, png, nowMs);
    })();
  }

  /** Ends a live connect session by adding the device it paired; false (nothing written) when it was used or expired. */
  completeConnectSession(token: string, device: DeviceRecord, nowMs: number): boolean {
    return this.db.transaction(() => {
      if (!this.connectSessions.consume(token, nowMs)) return false;
      this.devices.save([device]);
      return true;
    })();
  }

  close(): void {
    this.externalWrites.close();
    if (this.db.open) this.db.close();
  }
}
