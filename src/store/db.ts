// Opens the hub's SQLite database: pragmas for an SD card that may lose power, and the numbered
// migrations tracked by PRAGMA user_version (each in its own transaction).
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIGRATIONS } from './migrations/index.ts';

export type Db = Database.Database;

export class NewerDatabaseError extends Error {
  constructor(found: number, known: number) {
    super(`database schema version ${found} is newer than this hub knows (${known}); upgrade the hub or restore an older backup`);
    this.name = 'NewerDatabaseError';
  }
}

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

export function openDatabase(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
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
    throw err;
  }
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
