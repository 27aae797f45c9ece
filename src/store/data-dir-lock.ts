// One hub per data directory. Two daemons on one database undo each other: the second demo revoked
// the first one's key, rebound every device to its own simulators and carried out the first one's
// pending commands. A daemon holds `hub.lock` in its data directory (its PID and when that process
// started) for as long as it runs; a second daemon is refused, naming the directory and the PID.
// A lock left by a hub that was killed (SIGKILL, a power cut) names a process that is gone, or a PID
// now used by another process (told apart by its start time): it is taken over, never blocking.
// The admin CLI (import, keys, devices) takes no lock: it works while the daemon runs, by design.
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DatabaseRefusedError } from './db.ts';

export const LOCK_FILE = 'hub.lock';

export class DataDirInUse extends Error {
  constructor(readonly dataDir: string, readonly pid: number) {
    super(`the data directory ${dataDir} is in use by another hub (PID ${pid}); two hubs must never share one `
      + `database: stop that hub, or give this one its own directory with HUB_DATA_DIR`);
  }
}

interface Holder {
  pid: number;
  /** The process's start time (field 22 of /proc/PID/stat), when the system tells it. */
  startTicks: string | null;
  /** Where the hub listens (`hub status` asks it there). */
  url?: string | undefined;
}

/** The start time of a process, which a recycled PID does not share; null where /proc is missing. */
function startTicksOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function isAlive(holder: Holder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (holder.startTicks === null) return true;
  const now = startTicksOf(holder.pid);
  return now === null || now === holder.startTicks;
}

function readHolder(path: string): Holder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<Holder>;
    return typeof parsed.pid === 'number' ? { pid: parsed.pid, startTicks: parsed.startTicks ?? null, url: typeof parsed.url === 'string' ? parsed.url : undefined } : undefined;
  } catch {
    return undefined; // gone, or half-written by a hub killed while writing it: not a live holder
  }
}

/** The hub running on this data directory (its PID, and where it listens), or undefined when none runs. */
export function runningHub(dataDir: string): { pid: number; url: string | undefined } | undefined {
  const holder = readHolder(join(resolve(dataDir), LOCK_FILE));
  return holder && isAlive(holder) ? { pid: holder.pid, url: holder.url } : undefined;
}

/** The PID of the hub running on this data directory, or undefined when none runs. */
export function runningHubPid(dataDir: string): number | undefined {
  return runningHub(dataDir)?.pid;
}

/**
 * The lock is the first thing a start writes: a card that is read-only or full is said in the same
 * words as the store's refusal (store/db.ts), not as a bare EROFS or ENOSPC.
 */
function cardRefusal(dir: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  const said = (err as Error).message;
  if (code === 'EROFS') {
    return new DatabaseRefusedError(`the data directory ${dir} is read-only (${said}): its file system was mounted read-only, often after I/O errors of a worn SD card; the hub has not changed anything in it. Check the card, remount it read-write (or replace it and restore a backup) and start the hub again.`, 'read-only');
  }
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new DatabaseRefusedError(`the data file system of ${dir} is full (${said}); the hub has not changed anything in it. Free space on it (old logs, backups) and start the hub again.`, 'full');
  }
  return err;
}

export class DataDirLock {
  private constructor(private readonly path: string) {}

  /** Takes the directory for this process, or throws DataDirInUse naming the hub that has it. */
  /** `url`: where this hub listens, for `hub status`. */
  static acquire(dataDir: string, url?: string): DataDirLock {
    const dir = resolve(dataDir);
    const path = join(dir, LOCK_FILE);
    const me: Holder = { pid: process.pid, startTicks: startTicksOf(process.pid), url };
    // Written whole under a name of this process, then linked into place: link() fails when the
    // lock exists, so no hub ever reads a lock half-written.
    const mine = `${path}.${process.pid}`;
    try {
      mkdirSync(dir, { recursive: true });
      writeFileSync(mine, `${JSON.stringify(me)}\n`, { mode: 0o644 });
    } catch (err) {
      // A full card may have let the file be made but not written: it is not left behind.
      try {
        rmSync(mine, { force: true });
      } catch {
        // read-only: nothing was made
      }
      throw cardRefusal(dir, err);
    }
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          linkSync(mine, path);
          return new DataDirLock(path);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        }
        const holder = readHolder(path);
        if (holder && holder.pid !== process.pid && isAlive(holder)) throw new DataDirInUse(dir, holder.pid);
        rmSync(path, { force: true }); // stale: its hub is gone
      }
      throw new Error(`could not take ${path}: another hub keeps taking it`);
    } finally {
      rmSync(mine, { force: true });
    }
  }

  /** Gives the directory back (at a clean stop); a lock another process took over is left alone. */
  release(): void {
    if (readHolder(this.path)?.pid !== process.pid) return;
    try {
      rmSync(this.path, { force: true });
    } catch {
      // A card turned read-only (or failing) keeps the lock: harmless, since the next start finds
      // this process gone and takes it over, and a stop must not fail for it.
    }
  }
}
