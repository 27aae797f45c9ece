// The store: one database, one repository per table, and the few writes that span tables.
import { openDatabase, type Db, type OpenOptions } from './db.ts';
import { ExternalWrites } from './external-writes.ts';
import { DeviceMembership } from './device-membership.ts';
import { DeviceRepository } from './devices.ts';
import { CommandRepository } from './commands.ts';
import { ApiKeyRepository } from './api-keys.ts';
import { ConnectSessionRepository } from './connect-sessions.ts';
import { DeviceImageRepository } from './device-images.ts';
import { OcppRepository, type OcppCredential } from './ocpp.ts';
import { HouseholdSeriesRepository } from './household-series.ts';
import { TariffLedgerRepository } from './tariff-ledger.ts';
import { HubScheduleRepository } from './hub-schedules.ts';
import { StorageHealth } from './storage-health.ts';
import { dirname } from 'node:path';
import { stampedStaticData, type DeviceRecord, type DriverBinding } from '../domain/device.ts';
import { OCPP_BINDING, splitOcppBinding } from '../domain/ocpp-binding.ts';

export class Store {
  readonly devices: DeviceRepository;
  readonly commands: CommandRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly connectSessions: ConnectSessionRepository;
  readonly deviceImages: DeviceImageRepository;
  readonly ocpp: OcppRepository;
  readonly hubSchedules: HubScheduleRepository;
  readonly tariffLedger: TariffLedgerRepository;
  readonly householdSeries: HouseholdSeriesRepository;
  readonly membership: DeviceMembership;
  /** Whether the data file system takes writes; the write paths report faults to it. */
  readonly storage: StorageHealth;
  private readonly externalWrites: ExternalWrites;
  private lookedThisTurn = false;
  /** How many times sync() found that another process had written: a cheap "anything new?" for pollers. */
  externalWriteCount = 0;
  private readonly nextTurn = () => {
    this.lookedThisTurn = false;
  };

  constructor(readonly db: Db) {
    this.externalWrites = new ExternalWrites(db);
    this.devices = new DeviceRepository(db);
    this.commands = new CommandRepository(db);
    this.apiKeys = new ApiKeyRepository(db);
    this.connectSessions = new ConnectSessionRepository(db);
    this.deviceImages = new DeviceImageRepository(db);
    this.ocpp = new OcppRepository(db);
    this.hubSchedules = new HubScheduleRepository(db);
    this.tariffLedger = new TariffLedgerRepository(db);
    this.householdSeries = new HouseholdSeriesRepository(db);
    this.membership = new DeviceMembership(db);
    this.storage = new StorageHealth(db, db.memory ? '.' : dirname(db.name));
  }

  /** `options.log`: where a migration run at this open is said (the daemon passes its log). */
  static open(path: string, options: OpenOptions = {}): Store {
    return new Store(openDatabase(path, options));
  }

  /**
   * Catches up with writes by other processes (the hub CLI: an import, a revoked key): when another
   * connection committed, the repositories forget what they remember. The API calls it at the start
   * of every request and the runtime before it acts on a device.
   *
   * It looks once per turn of the event loop (external-writes.ts reads the WAL index then; about
   * 6 µs of a detail read when done for every request). The requests handled in one turn were
   * read from their sockets together, so a key revoked by the CLI fails for every request read
   * after the turn in which the revocation committed: well under a millisecond on a quiet hub.
   */
  sync(): void {
    if (this.lookedThisTurn) return;
    this.lookedThisTurn = true;
    setImmediate(this.nextTurn);
    if (!this.externalWrites.happened()) return;
    this.externalWriteCount++;
    this.devices.forgetAll();
    this.apiKeys.forgetAll();
  }

  /**
   * Deletes a device for good: its row, image and hub-run program go, its pending commands fail, it
   * stays deleted.
   */
  deleteDevice(device: DeviceRecord, nowMs: number): number {
    return this.db.transaction(() => {
      this.devices.delete(device, nowMs);
      this.deviceImages.delete(device.id);
      this.ocpp.forgetDevice(device.id);
      this.hubSchedules.delete(device.id);
      this.tariffLedger.forget(device.id);
      return this.commands.failPending(device.id, 'Device was deleted', nowMs);
    })();
  }

  /**
   * Writes a checked import in one transaction: devices and their images, all or nothing. A device
   * whose record gives no staticData.lastUpdated gets one (see stampedStaticData). OCPP chargers'
   * credentials (password hashes) are written with their devices.
   */
  importDevices(devices: readonly DeviceRecord[], images: ReadonlyMap<string, Buffer>, nowMs: number, ocppCredentials: readonly OcppCredential[] = []): void {
    this.db.transaction(() => {
      this.devices.save(devices.map((device) => {
        const staticData = stampedStaticData(device, this.devices.get(device.id), nowMs);
        return staticData === device.staticData ? device : { ...device, staticData };
      }));
      for (const [deviceId, png] of images) this.deviceImages.set(deviceId, png, nowMs);
      for (const credential of ocppCredentials) this.ocpp.setCredential(credential, nowMs);
    })();
  }

  /**
   * Ends a live connect session by adding the device it paired; false (nothing written) when it was
   * used or expired. The device's static data is stamped on the record itself: the caller goes on
   * to announce that very record (a `connect` event), which must show what is stored.
   */
  completeConnectSession(token: string, device: DeviceRecord, nowMs: number): boolean {
    return this.db.transaction(() => {
      if (!this.connectSessions.consume(token, nowMs)) return false;
      device.staticData = stampedStaticData(device, undefined, nowMs);
      // An OCPP charger's password goes into its credentials as a hash, never into the binding.
      if (device.driver?.type === OCPP_BINDING && typeof device.driver['password'] === 'string') {
        const split = splitOcppBinding(device.driver);
        device.driver = split.binding;
        this.ocpp.setCredential({ chargePointId: String(split.binding['chargePointId']), deviceId: device.id, passwordHash: split.passwordHash }, nowMs);
      }
      this.devices.save([device]);
      return true;
    })();
  }

  /**
   * Ends a vehicle connect session with its car, in one transaction: the car added, or (the same car
   * connected again by its owner) its binding replaced by the new login. False when the session was
   * used or expired meanwhile (nothing changed).
   */
  completeVehicleConnect(token: string, nowMs: number, car: { add: DeviceRecord } | { renew: string; driver: DriverBinding }): boolean {
    return this.db.transaction(() => {
      if (!this.connectSessions.consume(token, nowMs)) return false;
      if ('add' in car) {
        car.add.staticData = stampedStaticData(car.add, undefined, nowMs);
        this.devices.save([car.add]);
      } else if (!this.devices.updateDriver(car.renew, car.driver)) {
        throw new Error('the car to renew is gone');
      }
      return true;
    })();
  }

  /**
   * New bindings for several devices at once, all or none: the cars of one maker account share a
   * login whose refresh token rotates, so no car may keep a token its siblings have already spent.
   */
  updateDrivers(bindings: ReadonlyMap<string, DriverBinding>): void {
    this.db.transaction(() => {
      for (const [id, binding] of bindings) this.devices.updateDriver(id, binding);
    })();
  }

  close(): void {
    this.storage.stop();
    if (this.db.open) this.db.close();
    // After SQLite let go of its locks: closing any descriptor of the -shm file drops every POSIX
    // lock this process holds on it, SQLite's included (external-writes.ts).
    this.externalWrites.close();
  }
}
