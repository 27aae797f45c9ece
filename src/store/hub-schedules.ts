// The hub_schedules table: the weekly program the hub runs for a device that has none of its own,
// and the occurrence of its events last applied and read back (src/runtime/commands/hub-schedules.ts).
// One row per device; a new program replaces the old one once its current event is applied.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.ts';
import type { ScheduleEvent } from '../domain/schedule-event.ts';

export interface HubProgram {
  /** As the API took them: times in UTC. */
  events: ScheduleEvent[];
  /** The device's zone when the program was stored; its local times are kept in this zone. */
  timeZone: string;
  /** The zone's offset from UTC (minutes) when the program was stored: UTC times + this = local times. */
  offsetMinutes: number;
}

export interface HubScheduleRecord {
  deviceId: string;
  commandId: string | null;
  program: HubProgram;
  /** Epoch ms of the occurrence last applied and read back; null when none was. */
  appliedOccurrenceMs: number | null;
  appliedAtMs: number | null;
  storedAtMs: number;
}

interface Row {
  device_id: string;
  command_id: string | null;
  program_json: string;
  applied_occurrence: number | null;
  applied_at: number | null;
  stored_at: number;
}

export class HubScheduleRepository {
  private readonly upsert: Statement;
  private readonly byDevice: Statement<[string]>;
  private readonly every: Statement<[]>;
  private readonly applied: Statement;
  private readonly remove: Statement<[string]>;
  private readonly removeFailed: Statement<[]>;

  constructor(db: Db) {
    this.upsert = db.prepare(`INSERT INTO hub_schedules (device_id, command_id, program_json, applied_occurrence, applied_at, stored_at)
      VALUES (@deviceId, @commandId, @program, @appliedOccurrenceMs, @appliedAtMs, @storedAtMs)
      ON CONFLICT (device_id) DO UPDATE SET command_id = excluded.command_id, program_json = excluded.program_json,
        applied_occurrence = excluded.applied_occurrence, applied_at = excluded.applied_at, stored_at = excluded.stored_at`);
    this.byDevice = db.prepare('SELECT * FROM hub_schedules WHERE device_id = ?');
    this.every = db.prepare('SELECT * FROM hub_schedules ORDER BY device_id');
    // Guarded by the command: an application finishing after its program was replaced records nothing.
    this.applied = db.prepare(`UPDATE hub_schedules SET applied_occurrence = @occurrence, applied_at = @now
      WHERE device_id = @deviceId AND command_id IS @commandId`);
    this.remove = db.prepare('DELETE FROM hub_schedules WHERE device_id = ?');
    // Looked up by the commands' unique id, row by row: the table has a row per scheduled device.
    this.removeFailed = db.prepare(`DELETE FROM hub_schedules
      WHERE EXISTS (SELECT 1 FROM commands WHERE id = hub_schedules.command_id AND state = 'FAILED')`);
  }

  /** Stores a device's program with the occurrence already applied; on disk when this returns. */
  save(record: HubScheduleRecord): void {
    this.upsert.run({ ...record, program: JSON.stringify(record.program) });
  }

  get(deviceId: string): HubScheduleRecord | undefined {
    const row = this.byDevice.get(deviceId) as Row | undefined;
    return row && toRecord(row);
  }

  all(): HubScheduleRecord[] {
    return (this.every.all() as Row[]).map(toRecord);
  }

  /** Records an occurrence as applied; false when the device's program is no longer this command's. */
  markApplied(deviceId: string, commandId: string | null, occurrenceMs: number, nowMs: number): boolean {
    return this.applied.run({ deviceId, commandId, occurrence: occurrenceMs, now: nowMs }).changes > 0;
  }

  delete(deviceId: string): boolean {
    return this.remove.run(deviceId).changes > 0;
  }

  /**
   * Drops programs whose SET_SCHEDULE command ended FAILED: the hub stopped between storing the
   * program and marking its command EXECUTED, and a failed command leaves nothing behind.
   */
  dropFailed(): number {
    return this.removeFailed.run().changes;
  }
}

function toRecord(row: Row): HubScheduleRecord {
  return {
    deviceId: row.device_id,
    commandId: row.command_id,
    program: JSON.parse(row.program_json) as HubProgram,
    appliedOccurrenceMs: row.applied_occurrence,
    appliedAtMs: row.applied_at,
    storedAtMs: row.stored_at,
  };
}
