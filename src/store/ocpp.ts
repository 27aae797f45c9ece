// The OCPP tables: each charge point's credentials (a scrypt hash, never the password) and the
// transactions chargers report. Writes are single statements, durable before the charger is answered.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.ts';

export interface OcppCredential {
  chargePointId: string;
  deviceId: string;
  passwordHash: string;
}

export interface OcppTransaction {
  id: number;
  chargePointId: string;
  deviceId: string;
  connectorId: number;
  idTag: string;
  meterStartWh: number;
  startedAtMs: number;
  meterStopWh: number | null;
  stoppedAtMs: number | null;
  stopReason: string | null;
}

export type NewTransaction = Pick<OcppTransaction, 'chargePointId' | 'deviceId' | 'connectorId' | 'idTag' | 'meterStartWh' | 'startedAtMs'>;

interface TransactionRow {
  id: number;
  charge_point_id: string;
  device_id: string;
  connector_id: number;
  id_tag: string;
  meter_start_wh: number;
  started_at: number;
  meter_stop_wh: number | null;
  stopped_at: number | null;
  stop_reason: string | null;
}

export class OcppRepository {
  private readonly credentialOf: Statement<[string]>;
  private readonly credentialOfDevice: Statement<[string]>;
  private readonly upsertCredential: Statement;
  private readonly removeCredentialOfDevice: Statement<[string]>;
  private readonly insertTransaction: Statement;
  private readonly transactionByStart: Statement;
  private readonly transactionById: Statement<[number]>;
  private readonly runningOf: Statement<[string]>;
  private readonly stop: Statement;

  constructor(db: Db) {
    this.credentialOf = db.prepare('SELECT charge_point_id AS chargePointId, device_id AS deviceId, password_hash AS passwordHash FROM ocpp_credentials WHERE charge_point_id = ?');
    this.credentialOfDevice = db.prepare('SELECT charge_point_id AS chargePointId, device_id AS deviceId, password_hash AS passwordHash FROM ocpp_credentials WHERE device_id = ?');
    // A device takes its charge point id with it: its earlier row (another id) goes first.
    this.upsertCredential = db.prepare(`INSERT INTO ocpp_credentials (charge_point_id, device_id, password_hash, updated_at)
      VALUES (@chargePointId, @deviceId, @passwordHash, @nowMs)
      ON CONFLICT (charge_point_id) DO UPDATE SET device_id = excluded.device_id, password_hash = excluded.password_hash, updated_at = excluded.updated_at`);
    this.removeCredentialOfDevice = db.prepare('DELETE FROM ocpp_credentials WHERE device_id = ?');
    this.insertTransaction = db.prepare(`INSERT INTO ocpp_transactions (charge_point_id, device_id, connector_id, id_tag, meter_start_wh, started_at, received_at)
      VALUES (@chargePointId, @deviceId, @connectorId, @idTag, @meterStartWh, @startedAtMs, @nowMs)
      ON CONFLICT (charge_point_id, connector_id, started_at, meter_start_wh) DO NOTHING`);
    this.transactionByStart = db.prepare(`SELECT * FROM ocpp_transactions
      WHERE charge_point_id = @chargePointId AND connector_id = @connectorId AND started_at = @startedAtMs AND meter_start_wh = @meterStartWh`);
    this.transactionById = db.prepare('SELECT * FROM ocpp_transactions WHERE id = ?');
    this.runningOf = db.prepare('SELECT * FROM ocpp_transactions WHERE charge_point_id = ? AND stopped_at IS NULL ORDER BY id');
    this.stop = db.prepare(`UPDATE ocpp_transactions SET meter_stop_wh = @meterStopWh, stopped_at = @stoppedAtMs, stop_reason = @reason
      WHERE id = @id AND charge_point_id = @chargePointId AND stopped_at IS NULL`);
  }

  credential(chargePointId: string): OcppCredential | undefined {
    return this.credentialOf.get(chargePointId) as OcppCredential | undefined;
  }

  credentialOfDeviceId(deviceId: string): OcppCredential | undefined {
    return this.credentialOfDevice.get(deviceId) as OcppCredential | undefined;
  }

  /** Sets a device's charge point id and password hash (replacing what it had). Call inside a transaction with the device's save. */
  setCredential(credential: OcppCredential, nowMs: number): void {
    const earlier = this.credentialOfDeviceId(credential.deviceId);
    if (earlier && earlier.chargePointId !== credential.chargePointId) this.removeCredentialOfDevice.run(credential.deviceId);
    this.upsertCredential.run({ ...credential, nowMs });
  }

  /** The device is gone: its charger can no longer connect. */
  forgetDevice(deviceId: string): void {
    this.removeCredentialOfDevice.run(deviceId);
  }

  /**
   * Records a StartTransaction and returns its transaction; one sent again (the same connector,
   * timestamp and meter start) returns the transaction recorded the first time, with `isNew` false.
   */
  startTransaction(start: NewTransaction, nowMs: number): { transaction: OcppTransaction; isNew: boolean } {
    const isNew = this.insertTransaction.run({ ...start, nowMs }).changes > 0;
    return { transaction: toTransaction(this.transactionByStart.get(start) as TransactionRow), isNew };
  }

  transaction(id: number): OcppTransaction | undefined {
    const row = this.transactionById.get(id) as TransactionRow | undefined;
    return row && toTransaction(row);
  }

  /** The charge point's transactions that have not stopped, oldest first. */
  running(chargePointId: string): OcppTransaction[] {
    return (this.runningOf.all(chargePointId) as TransactionRow[]).map(toTransaction);
  }

  /** Ends a running transaction; false when it was not running (unknown, another charger's, or already stopped). */
  stopTransaction(chargePointId: string, id: number, meterStopWh: number, stoppedAtMs: number, reason: string): boolean {
    return this.stop.run({ chargePointId, id, meterStopWh, stoppedAtMs, reason }).changes > 0;
  }
}

function toTransaction(row: TransactionRow): OcppTransaction {
  return {
    id: row.id,
    chargePointId: row.charge_point_id,
    deviceId: row.device_id,
    connectorId: row.connector_id,
    idTag: row.id_tag,
    meterStartWh: row.meter_start_wh,
    startedAtMs: row.started_at,
    meterStopWh: row.meter_stop_wh,
    stoppedAtMs: row.stopped_at,
    stopReason: row.stop_reason,
  };
}
