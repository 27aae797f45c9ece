// Creating a command, the one way every front door does it (the API's command operations, Home
// Assistant's command topics): stored PENDING, durably, before anyone is told, then handed to the
// runtime, whose worker carries it out. So a command from any source is listed by the API and ends
// EXECUTED or FAILED with its reason, like any other.
import { randomUUID } from 'node:crypto';
import type { DeviceRecord } from '../../domain/device.ts';
import type { Clock } from '../../domain/time.ts';
import type { ClockWatch } from '../clock/clock-watch.ts';
import type { CommandType } from '../../domain/vocabulary.ts';
import type { Logger } from '../../log.ts';
import type { CommandRecord } from '../../store/commands.ts';
import type { Store } from '../../store/store.ts';

export interface CommandIntake {
  store: Store;
  clock: Clock;
  log: Logger;
  /** Told of the stored command (the hub runtime hands it to the worker). */
  commandCreated(command: CommandRecord): void;
  /** How long the command may wait for its device before it fails as expired. */
  ttlMs: number;
  /** Looked at before the command is dated: a step not yet noticed would move its fresh deadline. */
  clockWatch?: Pick<ClockWatch, 'check'>;
}

/** Stores a PENDING command for the device, then hands it on; `source` is for the log only. */
export function createCommand(intake: CommandIntake, device: DeviceRecord, type: CommandType, payload?: unknown, source = 'api'): CommandRecord {
  // A step of the wall clock just before this moves the deadlines of the commands already stored
  // (command-worker.ts, clockStepped): noticed now, before this one is dated on the new clock.
  intake.clockWatch?.check();
  const now = intake.clock.now();
  // Refused (StorageUnavailable, a 503 at the API) while the card takes no writes: a command is
  // never acknowledged unless it is on disk.
  const record = intake.store.storage.write(() => intake.store.commands.create({
    id: randomUUID(),
    deviceId: device.id,
    deviceKind: device.kind,
    userId: device.userId,
    type,
    payload,
    createdAtMs: now,
    expiresAtMs: now + intake.ttlMs,
  }));
  intake.log.info({ command: record.id, device: device.id, type, source }, 'command queued');
  intake.commandCreated(record);
  return record;
}
