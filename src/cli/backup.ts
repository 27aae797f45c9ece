// `hub backup FILE` and `hub restore FILE`: SQLite's online backup API, safe while the daemon runs
// (it copies page by page under SQLite's own locking, so the copy is consistent). A backup holds
// every device secret as the hub stores it, so it is readable by its owner only (0600), from its
// first byte. A restore replaces the database under the hub's feet, so it is refused while a hub
// runs on the data directory (hub.lock names it).
import { closeSync, existsSync, linkSync, openSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { runningHubPid } from '../store/data-dir-lock.ts';
import type { Store } from '../store/store.ts';
import { SCHEMA_VERSION, migrate } from '../store/db.ts';
import type { CliIo } from './io.ts';

/** Prints progress every 10 %; SQLite reports only between steps, so `done` prints the end. */
function progressLine(io: CliIo) {
  let lastPercent = -1;
  const report = (percent: number) => {
    if (percent >= lastPercent + 10 || (percent === 100 && lastPercent < 100)) {
      lastPercent = percent;
      io.out(`  ${percent}%`);
    }
  };
  return {
    step: ({ totalPages, remainingPages }: { totalPages: number; remainingPages: number }) => {
      report(totalPages === 0 ? 100 : Math.floor(((totalPages - remainingPages) / totalPages) * 100));
      return 256; // pages per step: small steps keep the daemon responsive meanwhile
    },
    done: () => report(100),
  };
}

export async function runBackup(store: Store, args: string[], io: CliIo): Promise<number> {
  const [file] = args;
  if (!file) {
    io.err('usage: npm run hub -- backup FILE');
    return 2;
  }
  if (existsSync(file)) {
    io.err(`${file} exists; choose a new file name.`);
    return 1;
  }
  io.out(`Backing up to ${file}…`);
  // Written under a temporary name made 0600 before SQLite opens it (SQLite gives its journal the
  // database file's mode), then linked into place: link() never replaces a file that appeared
  // meanwhile, and an interrupted backup never leaves a half-written FILE.
  const partial = `${file}.partial-${process.pid}`;
  try {
    closeSync(openSync(partial, 'wx', 0o600));
    const progress = progressLine(io);
    await store.db.backup(partial, { progress: progress.step });
    progress.done();
    linkSync(partial, file);
  } catch (err) {
    io.err(`Cannot write ${file}: ${(err as NodeJS.ErrnoException).syscall === 'link' && (err as NodeJS.ErrnoException).code === 'EEXIST' ? 'it exists; choose a new file name' : (err as Error).message}`);
    return 1;
  } finally {
    rmSync(partial, { force: true });
  }
  io.out(`Backup written: ${file} (readable by its owner only: it holds every device secret)`);
  return 0;
}

export async function runRestore(store: Store, args: string[], io: CliIo): Promise<number> {
  const [file] = args;
  if (!file) {
    io.err('usage: npm run hub -- restore FILE');
    return 2;
  }
  const dataDir = dirname(store.db.name);
  const hubPid = runningHubPid(dataDir);
  if (hubPid !== undefined) {
    io.err(`A hub is running on ${dataDir} (PID ${hubPid}, as its hub.lock says): stop it first (on an installed hub: sudo systemctl stop home-energy-hub), then restore. Nothing was changed.`);
    return 1;
  }
  let source: Database.Database;
  try {
    source = new Database(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    io.err(`Cannot open ${file}: ${(err as Error).message}`);
    return 1;
  }
  try {
    const problem = checkBackup(source);
    if (problem) {
      io.err(`${file} cannot be restored: ${problem}. Nothing was changed.`);
      return 1;
    }
    io.out(`Restoring from ${file}…`);
    // The backup API writes into the live database under its write lock; the daemon's connection
    // sees the restored content on its next read.
    const progress = progressLine(io);
    await source.backup(store.db.name, { progress: progress.step });
    progress.done();
    store.db.pragma('journal_mode = WAL');
    migrate(store.db); // a backup from an older hub is brought up to this hub's schema
    io.out('Restored. Restart the hub so that its drivers start from the restored devices.');
    return 0;
  } finally {
    source.close();
  }
}

/** Why a file is not a usable hub backup, or null when it is one. */
function checkBackup(db: Database.Database): string | null {
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version === 0) return 'it is not a hub database';
    if (version > SCHEMA_VERSION) return `it comes from a newer hub (schema ${version}, this hub knows ${SCHEMA_VERSION})`;
    const check = db.pragma('integrity_check', { simple: true });
    if (check !== 'ok') return 'it is damaged (integrity check failed)';
    const tables = db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ('devices', 'commands', 'api_keys')").pluck().get() as number;
    if (tables !== 3) return 'it is not a hub database';
    return null;
  } catch {
    return 'it is not an SQLite database';
  }
}
