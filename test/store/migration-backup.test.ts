// Before the hub migrates a database that holds data it copies it beside itself (a migration is one
// way), logs the copy and every step; a database from a newer release is refused naming the backups
// this release can open.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { openDatabase, NewerDatabaseError, SCHEMA_VERSION } from '../../src/store/db.ts';
import { KEPT_MIGRATION_BACKUPS, migrationBackups } from '../../src/store/migration-backup.ts';
import { databaseAt } from '../support/old-database.ts';
import { createLogger } from '../../src/log.ts';

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'hub-db-backup-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function recordingLogger() {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger('info', new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } }));
  return { log, lines };
}

test('opening a database of an older schema backs it up beside itself (0600, the old version) before it migrates, and logs the backup and each step', (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'hub.db');
  databaseAt(path, 5);
  const { log, lines } = recordingLogger();
  const db = openDatabase(path, { log });
  t.after(() => db.close());
  assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);

  const backups = migrationBackups(path);
  assert.equal(backups.length, 1);
  assert.match(backups[0]!.path, new RegExp(`hub\\.db\\.v5-before-v${SCHEMA_VERSION}\\.\\d{8}T\\d{6}Z\\.bak$`));
  assert.equal(statSync(backups[0]!.path).mode & 0o777, 0o600);
  const copy = new Database(backups[0]!.path, { readonly: true });
  assert.equal(copy.pragma('user_version', { simple: true }), 5, 'the data as it was before the migration');
  assert.equal(copy.prepare('SELECT name FROM api_keys').pluck().get(), 'kitchen');
  copy.close();
  assert.deepEqual(readdirSync(dir).filter((name) => name.endsWith('.partial')), [], 'no partial copy left');

  const said = lines.find((line) => line['msg'] === 'database backed up before its migration');
  assert.ok(said, 'the backup is logged');
  assert.equal(said['backup'], backups[0]!.path);
  assert.equal(said['fromVersion'], 5);
  assert.equal(said['toVersion'], SCHEMA_VERSION);
  const steps = lines.filter((line) => line['msg'] === 'migration step done');
  assert.deepEqual(steps.map((line) => line['step']), Array.from({ length: SCHEMA_VERSION - 5 }, (_, i) => 6 + i));
  assert.equal(steps[0]!['name'], '006-tariff-ledger');
  for (const step of steps) assert.equal(typeof step['ms'], 'number');
  assert.ok(lines.some((line) => line['msg'] === 'database migrated' && line['fromVersion'] === 5 && typeof line['ms'] === 'number'));
});

test('a new database and an up-to-date one are not backed up, and nothing is logged for them', (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'hub.db');
  const { log, lines } = recordingLogger();
  openDatabase(path, { log }).close();
  openDatabase(path, { log }).close();
  assert.deepEqual(migrationBackups(path), []);
  assert.deepEqual(lines, []);
});

test('only the newest backups taken before migrations are kept', (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'hub.db');
  const old = Array.from({ length: KEPT_MIGRATION_BACKUPS }, (_, i) => join(dir, `hub.db.v${i + 1}-before-v${i + 2}.2026010${i + 1}T000000Z.bak`));
  old.forEach((file, i) => { writeFileSync(file, ''); utimesSync(file, 1_700_000_000 + i, 1_700_000_000 + i); });
  writeFileSync(join(dir, 'hub.db.mine.bak'), 'a backup of the installer\'s own');
  databaseAt(path, 8);
  openDatabase(path).close();
  const kept = migrationBackups(path).map((backup) => backup.path);
  assert.equal(kept.length, KEPT_MIGRATION_BACKUPS);
  assert.match(kept[0]!, /v8-before-v/, 'the new one');
  assert.ok(!kept.includes(old[0]!), 'the oldest went');
  assert.ok(readdirSync(dir).includes('hub.db.mine.bak'), 'a file of another name is left alone');
});

test('a database from a newer release is refused, naming the file and the backups this release can open', (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'hub.db');
  databaseAt(path, 5);
  openDatabase(path).close(); // the backup of the v5 data
  const raw = new Database(path);
  raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
  raw.close();
  const [backup] = migrationBackups(path);
  assert.throws(() => openDatabase(path), (err: Error) => {
    assert.ok(err instanceof NewerDatabaseError);
    assert.match(err.message, new RegExp(`^${path.replace(/[.]/g, '\\.')} has schema version ${SCHEMA_VERSION + 1}, newer than this hub knows \\(${SCHEMA_VERSION}\\)`));
    assert.ok(err.message.includes(backup!.path), err.message);
    assert.match(err.message, /the hub has not changed it/);
    return true;
  });
});
