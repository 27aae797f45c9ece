// The copy of the database the hub takes before a migration it is about to run: a migration is one
// way (an older release refuses the migrated file), so the file as it was stays beside it, named
// for its versions (hub.db.v5-before-v9.20261127T160312Z.bak), readable by the service user alone.
import { closeSync, fsyncSync, openSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type Database from 'better-sqlite3';

/** How many backups taken before migrations are kept beside the database (the newest). */
export const KEPT_MIGRATION_BACKUPS = 3;

export interface MigrationBackup {
  path: string;
  /** The schema version of the database the backup holds. */
  version: number;
}

const BACKUP_NAME = /^\.v(\d+)-before-v(\d+)\.[0-9TZ]+\.bak$/;

function stamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

/**
 * Writes a consistent copy of the open database (VACUUM INTO, under SQLite's read lock) beside it,
 * under a temporary name first: a backup that has its final name is complete. The file is made
 * 0600 before SQLite writes into it (it holds every key hash and device secret). Older backups past
 * the newest KEPT_MIGRATION_BACKUPS are removed.
 */
export function backupBeforeMigration(db: Database.Database, from: number, to: number, now = new Date()): string {
  const path = `${db.name}.v${from}-before-v${to}.${stamp(now)}.bak`;
  const partial = `${path}.partial`;
  // VACUUM INTO takes an empty file; created here, with the mode a backup must have.
  closeSync(openSync(partial, 'w', 0o600));
  try {
    db.prepare('VACUUM INTO ?').run(partial);
    const fd = openSync(partial, 'r');
    try { fsyncSync(fd); } finally { closeSync(fd); }
    renameSync(partial, path);
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
  for (const old of migrationBackups(db.name).slice(KEPT_MIGRATION_BACKUPS)) rmSync(old.path, { force: true });
  return path;
}

/** The backups taken before migrations that lie beside the database at `path`, newest first. */
export function migrationBackups(path: string): MigrationBackup[] {
  const dir = dirname(path);
  const base = basename(path);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.startsWith(base) && BACKUP_NAME.test(name.slice(base.length)))
    .map((name) => ({ path: join(dir, name), version: Number(BACKUP_NAME.exec(name.slice(base.length))![1]), mtimeMs: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.mtimeMs - a.mtimeMs || b.path.localeCompare(a.path))
    .map(({ path: backup, version }) => ({ path: backup, version }));
}
