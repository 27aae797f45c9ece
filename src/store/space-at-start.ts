// A start on a card that is full. SQLite cannot even open the database then: in WAL mode its first
// connection makes the shared-memory index (hub.db-shm, 32 kB) and the lock file is written before
// that (data-dir-lock.ts), and a start writes (the configured key and devices, outcomes a crash
// left). Exiting would only loop under systemd (Restart=), every few seconds, with the reason in the
// journal alone; so the hub waits, listening, for the space a running hub asks before it takes writes
// again (storage-health.ts), says why at a low rate, and opens the database once it is there.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../log.ts';
import { DatabaseRefusedError } from './db.ts';
import { describeStorageFault, freeSpace } from './storage-fault.ts';
import { DEFAULT_STORAGE_SETTINGS, formatBytes } from './storage-health.ts';

export interface SpaceAtStartSettings {
  /** Free space needed before the database is opened. */
  neededBytes: number;
  /** How often the free space is looked at while waiting. */
  pollMs: number;
  /** How often the log says again that the hub waits. */
  logEveryMs: number;
}

export const DEFAULT_SPACE_AT_START: SpaceAtStartSettings = {
  neededBytes: DEFAULT_STORAGE_SETTINGS.reserveBytes,
  pollMs: 1_000,
  logEveryMs: 60_000,
};

export interface SpaceAtStartOptions {
  log: Logger;
  /** Ends the wait (the hub is told to stop). */
  signal: AbortSignal;
  /** At every look while waiting, with what /health says (the systemd status line, the watchdog). */
  waiting: (problems: string[]) => void;
  settings?: Partial<SpaceAtStartSettings>;
}

/** Whether the card refused for want of space (ENOSPC on the lock, SQLITE_FULL opening the database). */
export function isFullAtStart(err: unknown): boolean {
  return err instanceof DatabaseRefusedError && err.fault === 'full';
}

/**
 * Runs `open` (take the data directory and open the database) once the file system of `dir` has
 * room; while it has not, or `open` finds it full, waits and looks again. Anything else `open`
 * throws is thrown.
 */
export async function openWhenThereIsSpace<T>(dir: string, open: () => T, options: SpaceAtStartOptions): Promise<T> {
  const settings = { ...DEFAULT_SPACE_AT_START, ...options.settings };
  const log = options.log.child({ part: 'storage' });
  let waitingSince: number | undefined;
  let saidAt = -Infinity;
  for (;;) {
    // A data directory not made yet (a first start) has no file system to ask: it is tried.
    const space = freeSpace(dir);
    if (!space || space.freeBytes >= settings.neededBytes) {
      try {
        const opened = open();
        if (waitingSince !== undefined) log.info({ dir, freeBytes: space?.freeBytes, waitedMs: Math.round(performance.now() - waitingSince) }, 'the data file system has room again: starting');
        return opened;
      } catch (err) {
        if (!isFullAtStart(err)) throw err;
      }
    }
    // Durations (how long it waited, when it last said so): monotonic, the wall clock steps.
    const now = performance.now();
    waitingSince ??= now;
    const free = space ? `, ${formatBytes(space.freeBytes)} free of ${formatBytes(space.totalBytes)}` : '';
    const problems = [
      `${describeStorageFault('full')}${free}`,
      `not started: the hub opens its database once ${formatBytes(settings.neededBytes)} are free on ${dir}`,
    ];
    if (now - saidAt >= settings.logEveryMs) {
      saidAt = now;
      log.error({ dir, freeBytes: space?.freeBytes, neededBytes: settings.neededBytes, waitingMs: Math.round(now - waitingSince) },
        `the data file system is full: the hub waits for ${formatBytes(settings.neededBytes)} of free space before it opens its database, `
        + 'and answers 503 meanwhile; free space on it (old logs, backups: du -xh /var/lib /var/log | sort -h | tail) and it starts within seconds');
    }
    options.waiting(problems);
    await sleep(settings.pollMs, undefined, { signal: options.signal });
  }
}
