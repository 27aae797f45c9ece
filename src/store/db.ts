// Opens the hub's SQLite database: pragmas for an SD card that may lose power, and the numbered
// migrations tracked by PRAGMA user_version (each in its own transaction).
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { MIGRATIONS } from './migrations/index.ts';
import { classifyStorageFault, isStorageError, type StorageFaultKind } from './storage-fault.ts';
import { backupBeforeMigration, migrationBackups } from './migration-backup.ts';
import type { Logger } from '../log.ts';

export type Db = Database.Database;

export class NewerDatabaseError extends Error {
  /** `path`: the database file, when it is one; its backups a release this old can open are named. */
  constructor(readonly found: number, readonly known: number, path?: string) {
    super(`${path ?? 'the database'} has schema version ${found}, newer than this hub knows (${known}): a newer release migrated it; the hub has not changed it. ${newerNextStep(known, path)}`);
    this.name = 'NewerDatabaseError';
  }
}

/** What to do with a database from a newer release: run that release again, or go back to a backup this one opens. */
function newerNextStep(known: number, path: string | undefined): string {
  const install = 'Install the newer release again (from its checkout: sudo systemd/install.sh)';
  if (!path) return `${install}, or restore an older backup.`;
  const usable = migrationBackups(path).filter((backup) => backup.version <= known);
  if (usable.length === 0) return `${install}; no backup taken before a migration that this release can open lies beside it.`;
  return `${install}, or go back to the data as it was before that migration (what was written since is lost): stop the hub, move ${basename(path)} and its -wal and -shm files aside, and copy one of these backups to ${path}: ${usable.map((backup) => backup.path).join(', ')}.`;
}

export interface OpenOptions {
  /** Where the migration a start runs is said (its backup, each step and its time). */
  log?: Logger;
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

export function openDatabase(path: string, options: OpenOptions = {}): Db {
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
    migrate(db, { ...options, backup: path !== ':memory:' });
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

/**
 * Brings the database to SCHEMA_VERSION, one transaction per step. With `backup`, a database that
 * holds data (version above 0) is first copied beside itself (migration-backup.ts): a failed backup
 * stops the start before anything is migrated.
 */
export function migrate(db: Db, options: OpenOptions & { backup?: boolean } = {}): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) throw new NewerDatabaseError(current, SCHEMA_VERSION, db.memory ? undefined : db.name);
  if (current === SCHEMA_VERSION) return;
  const { log } = options;
  const versions = { database: db.name, fromVersion: current, toVersion: SCHEMA_VERSION };
  if (options.backup && current > 0) {
    const backup = backupBeforeMigration(db, current, SCHEMA_VERSION);
    log?.info({ ...versions, backup }, 'database backed up before its migration');
  }
  if (current > 0) log?.info(versions, 'migrating the database');
  const names = migrationNames();
  const started = performance.now();
  for (let version = current + 1; version <= SCHEMA_VERSION; version++) {
    const step = MIGRATIONS[version - 1]!;
    const stepStarted = performance.now();
    db.transaction(() => {
      db.exec(step);
      db.pragma(`user_version = ${version}`);
    }).immediate();
    // A new database's steps are not news; an existing one's are what an installer looks for.
    if (current > 0) log?.info({ step: version, name: names[version - 1] ?? `migration ${version}`, ms: Math.round(performance.now() - stepStarted) }, 'migration step done');
  }
  if (current > 0) log?.info({ ...versions, ms: Math.round(performance.now() - started) }, 'database migrated');
}

/** The migrations' file names (006-tariff-ledger), for the log: the numbered files beside index. */
function migrationNames(): string[] {
  try {
    return readdirSync(new URL('./migrations/', import.meta.url))
      .filter((name) => /^\d{3}-.+\.[jt]s$/.test(name))
      .sort()
      .map((name) => name.replace(/\.[jt]s$/, ''));
  } catch {
    return [];
  }
}
