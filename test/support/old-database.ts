// A hub database as an older release left it: the first `version` migrations, and one API key.
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../src/store/migrations/index.ts';

export const OLD_DATABASE_KEY_NAME = 'kitchen';

export function databaseAt(path: string, version: number): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  for (let step = 1; step <= version; step++) {
    db.exec(MIGRATIONS[step - 1]!);
    db.pragma(`user_version = ${step}`);
  }
  db.prepare("INSERT INTO api_keys (id, name, hash, created_at) VALUES ('k1', ?, X'00', 0)").run(OLD_DATABASE_KEY_NAME);
  db.close();
}

/** The schema version of the database at `path`, read without changing it. */
export function schemaVersionOf(path: string): number {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
}
