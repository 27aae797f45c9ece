// The commands table: every asynchronous command, in execution order (seq), with its state.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.ts';
import type { CommandState, CommandType, DeviceKind } from '../domain/vocabulary.ts';

export interface CommandRecord {
  seq: number;
  id: string;
  deviceId: string;
  deviceKind: DeviceKind;
  userId: string;
  type: CommandType;
  state: CommandState;
  payload: unknown;
  createdAtMs: number;
  lastUpdatedMs: number;
  expiresAtMs: number;
  failedReason: string | null;
  /** When the worker began sending it to the device; null while it waits its turn. */
  startedAtMs: number | null;
  /** While PENDING: why it has not run yet (its device is unreachable); null when nothing holds it. */
  waitingReason: string | null;
}

export type NewCommand = Omit<CommandRecord, 'seq' | 'state' | 'lastUpdatedMs' | 'failedReason' | 'startedAtMs' | 'waitingReason'>;

interface CommandRow {
  seq: number;
  id: string;
  device_id: string;
  device_kind: DeviceKind;
  user_id: string;
  type: CommandType;
  state: CommandState;
  payload_json: string | null;
  created_at: number;
  last_updated: number;
  expires_at: number;
  failed_reason: string | null;
  started_at: number | null;
  waiting_reason: string | null;
}

export class CommandRepository {
  private readonly insert: Statement;
  private readonly byId: Statement<[string]>;
  private readonly ofDeviceInState: Statement<[string, string]>;
  private readonly ofDevice: Statement<[string]>;
  private readonly pending: Statement<[]>;
  private readonly finish: Statement;
  private readonly failPendingOfDevice: Statement;
  private readonly byState: Statement<[]>;
  private readonly start: Statement;
  private readonly unstart: Statement<[string]>;
  private readonly wait: Statement;
  private readonly shift: Statement<[number]>;

  constructor(db: Db) {
    this.insert = db.prepare(`INSERT INTO commands (id, device_id, device_kind, user_id, type, state, payload_json,
      created_at, last_updated, expires_at) VALUES (@id, @deviceId, @deviceKind, @userId, @type, 'PENDING', @payload,
      @createdAtMs, @createdAtMs, @expiresAtMs)`);
    this.byId = db.prepare('SELECT * FROM commands WHERE id = ?');
    this.ofDeviceInState = db.prepare('SELECT * FROM commands WHERE device_id = ? AND state = ? ORDER BY seq');
    this.ofDevice = db.prepare('SELECT * FROM commands WHERE device_id = ? ORDER BY seq');
    this.pending = db.prepare("SELECT * FROM commands WHERE state = 'PENDING' ORDER BY seq");
    this.finish = db.prepare(`UPDATE commands SET state = @state, failed_reason = @reason, last_updated = @now
      WHERE id = @id AND state = 'PENDING'`);
    this.failPendingOfDevice = db.prepare(`UPDATE commands SET state = 'FAILED', failed_reason = @reason,
      last_updated = @now WHERE device_id = @deviceId AND state = 'PENDING'`);
    this.byState = db.prepare('SELECT state, COUNT(*) AS n FROM commands GROUP BY state');
    this.start = db.prepare("UPDATE commands SET started_at = @now WHERE id = @id AND state = 'PENDING'");
    this.unstart = db.prepare("UPDATE commands SET started_at = NULL WHERE id = ? AND state = 'PENDING'");
    this.wait = db.prepare("UPDATE commands SET waiting_reason = @reason WHERE id = @id AND state = 'PENDING'");
    this.shift = db.prepare("UPDATE commands SET expires_at = expires_at + ? WHERE state = 'PENDING'");
  }

  /**
   * Moves the deadlines of PENDING commands by `stepMs`: the wall clock stepped, and a deadline
   * is a date standing for a time to live, which a step does not use up (nor give back).
   */
  shiftPendingDeadlines(stepMs: number): number {
    return this.shift.run(Math.round(stepMs)).changes;
  }

  /** How many commands are in each state (for metrics). */
  countByState(): Record<CommandState, number> {
    const counts: Record<CommandState, number> = { PENDING: 0, EXECUTED: 0, FAILED: 0 };
    for (const row of this.byState.all() as { state: CommandState; n: number }[]) counts[row.state] = row.n;
    return counts;
  }

  /** Stores a new PENDING command; it is on disk when this returns (synchronous = FULL). */
  create(command: NewCommand): CommandRecord {
    const payload = command.payload === undefined ? null : JSON.stringify(command.payload);
    const { lastInsertRowid } = this.insert.run({ ...command, payload });
    return { ...command, seq: Number(lastInsertRowid), state: 'PENDING', lastUpdatedMs: command.createdAtMs, failedReason: null, startedAtMs: null, waitingReason: null };
  }

  get(id: string): CommandRecord | undefined {
    const row = this.byId.get(id) as CommandRow | undefined;
    return row && toRecord(row);
  }

  /** A device's commands in execution order, in one state or in all. */
  ofDeviceId(deviceId: string, state: CommandState | 'ALL'): CommandRecord[] {
    const rows = state === 'ALL' ? this.ofDevice.all(deviceId) : this.ofDeviceInState.all(deviceId, state);
    return (rows as CommandRow[]).map(toRecord);
  }

  /** Every PENDING command of the hub, in execution order. */
  allPending(): CommandRecord[] {
    return (this.pending.all() as CommandRow[]).map(toRecord);
  }

  /** Records, durably, that the command is about to be sent; false when it is no longer PENDING. */
  markStarted(id: string, nowMs: number): boolean {
    return this.start.run({ id, now: nowMs }).changes > 0;
  }

  /** Takes back an attempt that sent nothing (the device could not be reached): after a crash the
   * command may then run, since it cannot have reached the device. */
  markNotStarted(id: string): void {
    this.unstart.run(id);
  }

  /** Why a PENDING command waits (null: it no longer does); written only when it changes. */
  markWaiting(id: string, reason: string | null): void {
    this.wait.run({ id, reason });
  }

  /** Moves a PENDING command to its final state; false when it was no longer PENDING. */
  complete(id: string, state: 'EXECUTED' | 'FAILED', reason: string | null, nowMs: number): boolean {
    return this.finish.run({ id, state, reason: state === 'FAILED' ? reason : null, now: nowMs }).changes > 0;
  }

  /** Fails every PENDING command of a device (it was deleted); returns how many. */
  failPending(deviceId: string, reason: string, nowMs: number): number {
    return this.failPendingOfDevice.run({ deviceId, reason, now: nowMs }).changes;
  }
}

function toRecord(row: CommandRow): CommandRecord {
  return {
    seq: row.seq,
    id: row.id,
    deviceId: row.device_id,
    deviceKind: row.device_kind,
    userId: row.user_id,
    type: row.type,
    state: row.state,
    payload: row.payload_json === null ? undefined : JSON.parse(row.payload_json),
    createdAtMs: row.created_at,
    lastUpdatedMs: row.last_updated,
    expiresAtMs: row.expires_at,
    failedReason: row.failed_reason,
    startedAtMs: row.started_at,
    waitingReason: row.state === 'PENDING' ? row.waiting_reason : null,
  };
}
