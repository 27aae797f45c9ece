// Opens the hub's SQLite database: pragmas for an SD card that may lose power, and the numbered
// migrations tracked by PRAGMA user_version (each in its own transaction).
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIGRATIONS } from './migrations/index.ts';
import { classifyStorageFault, isStorageError, type StorageFaultKind } from './storage-fault.ts';

export type Db = Database.Database;

export class NewerDatabaseError extends Error {
  constructor(found: number, known: number) {
    super(`database schema version ${found} is newer than this hub knows (${known}); upgrade the hub or restore an older backup`);
    this.name = 'NewerDatabaseError';
  }
}

/**
 * A database the hub will not open: the message names the file, says the hub has not changed it, and
 * names the next step. (Start-up exits non-zero with it; the file stays as it was.)
 */
export class DatabaseRefusedError extends Error {
  /** `fault`: the card refused (full, read-only, failing), rather than the file: a full one is waited out at start (daemon.ts). */
  constructor(message: string, readonly fault?: StorageFaultKind) {
    super(message);
    this.name = 'DatabaseRefusedError';
  }
}

const NEXT_STEP = 'restore a good backup with `hub restore BACKUP-FILE`, or move the file aside to start with an empty database';

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

export function openDatabase(path: string): Db {
  if (path !== ':memory:') {
    mkdirSync(dirname(path), { recursive: true });
    // SQLite would take an empty file as a new database and the hub start with no devices; an empty
    // hub.db is almost always a write or a restore that failed.
    if (existsSync(path) && statSync(path).size === 0) {
      throw new DatabaseRefusedError(`${path} is empty (0 bytes), which is usually a write or a restore that failed; the hub has not changed it. To go on, ${NEXT_STEP}.`);
    }
  }
  let db: Db;
  try {
    db = new Database(path);
  } catch (err) {
    throw refusal(path, err);
  }
  try {
    db.pragma('journal_mode = WAL');
    // FULL: every commit (an acknowledged command above all) is on disk before we answer.
    // State writes are batched by the scheduler, so the extra fsync costs one per batch.
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    // Temporary tables (the live telemetry stamps, devices.ts) and sorts stay in memory: never the card.
    db.pragma('temp_store = MEMORY');
    // Few, large, sequential writes: the WAL grows to about 1000 pages (4 MB) before a checkpoint
    // copies them into the database, so a page rewritten many times in between reaches its place
    // once; afterwards the WAL file is cut back to 4 MB instead of staying as large as it grew.
    db.pragma('wal_autocheckpoint = 1000');
    db.pragma('journal_size_limit = 4194304');
    db.pragma('busy_timeout = 5000');
    // better-sqlite3 builds SQLite with a 16 MB page cache; on a gateway that is memory the hub holds
    // for pages the kernel's own cache keeps anyway (a start-up scan of 10,000 devices filled 9 MB
    // of it). 2 MB keeps the indexes' upper levels and the pages in use; the API's answers are
    // remembered above the store (devices.ts), so reads rarely reach SQLite at all.
    db.pragma('cache_size = -2000');
    migrate(db);
    return db;
  } catch (err) {
    db.close();
    throw refusal(path, err);
  }
}

/** Says what SQLite's refusal means for this file and what to do, in the installer's words. */
function refusal(path: string, err: unknown): unknown {
  const code = String((err as { code?: unknown } | null)?.code ?? '');
  const said = `SQLite says: ${(err as Error).message}`;
  if (code === 'SQLITE_NOTADB') {
    return new DatabaseRefusedError(`${path} is not a hub database (${said}); the hub has not changed it. To go on, ${NEXT_STEP}.`);
  }
  if (code.startsWith('SQLITE_CORRUPT')) {
    return new DatabaseRefusedError(`${path} is damaged (${said}); the hub has not changed it. To go on, ${NEXT_STEP}.`);
  }
  if (isStorageError(err)) {
    const dir = dirname(path);
    const kind = classifyStorageFault(err, dir);
    if (kind === 'read-only') {
      return new DatabaseRefusedError(`the data directory ${dir} is read-only (${said}): its file system was mounted read-only, often after I/O errors of a worn SD card; the hub has not changed ${path}. Check the card, remount it read-write (or replace it and restore a backup) and start the hub again.`, kind);
    }
    if (kind === 'full') {
      return new DatabaseRefusedError(`the data file system of ${path} is full (${said}); the hub has not changed it. Free space on it (old logs, backups) and start the hub again.`, kind);
    }
    return new DatabaseRefusedError(`${path} cannot be opened or written (${said}); the hub has not changed it. Check that ${dir} exists and the hub may write there, and the card for I/O errors (dmesg).`, kind);
  }
  return err;
}

export function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) throw new NewerDatabaseError(current, SCHEMA_VERSION);
  for (let version = current + 1; version <= SCHEMA_VERSION; version++) {
    const step = MIGRATIONS[version - 1]!;
    db.transaction(() => {
      db.exec(step);
      db.pragma(`user_version = ${version}`);
    }).immediate();
  }
}
