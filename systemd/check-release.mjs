// Run by install.sh before it switches the hub to a release (an upgrade, or --rollback to the
// previous one): does that release's code, with its own node_modules, open the hub's database? It
// never changes the database: it reads its schema version, refuses one newer than the release
// knows (exit 3, naming the backups the release can open), and migrates and opens a consistent copy
// in a scratch directory (exit 0), so that a migration or a missing native binding fails here and
// not at the hub's start under systemd.
//   node check-release.mjs RELEASE_DIR DATABASE SCRATCH_DIR
// It lies in each release; the backups are listed by this file's own release's code, which knows
// their names (a release from before they existed does not).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [releaseArg, database, scratch] = process.argv.slice(2);
if (!releaseArg || !database || !scratch) {
  console.error('usage: node check-release.mjs RELEASE_DIR DATABASE SCRATCH_DIR');
  process.exit(2);
}
const release = resolve(releaseArg);
const fromRelease = (path) => import(pathToFileURL(join(release, path)).href);

async function backupsOf(path, known) {
  try {
    const { migrationBackups } = await import(new URL('./dist/src/store/migration-backup.js', import.meta.url).href);
    return migrationBackups(path).filter((backup) => backup.version <= known).map((backup) => backup.path);
  } catch {
    return [];
  }
}

try {
  // The whole daemon's imports (drivers, transports, native bindings) load, without starting it.
  await fromRelease('dist/src/daemon.js');
  const { SCHEMA_VERSION } = await fromRelease('dist/src/store/db.js');
  const { Store } = await fromRelease('dist/src/store/store.js');
  if (!existsSync(database)) {
    console.log(`database: none yet at ${database} (this release creates schema ${SCHEMA_VERSION} at its first start)`);
    process.exit(0);
  }
  const Database = createRequire(join(release, 'package.json'))('better-sqlite3');
  const live = new Database(database, { readonly: true, fileMustExist: true });
  let found;
  const copy = join(scratch, 'hub.db');
  try {
    found = live.pragma('user_version', { simple: true });
    if (found > SCHEMA_VERSION) {
      const backups = await backupsOf(database, SCHEMA_VERSION);
      console.error(`${database} has schema version ${found}, newer than this release knows (${SCHEMA_VERSION}): a newer release migrated it, and this one would refuse to start on it. Nothing was changed.`);
      console.error(backups.length > 0
        ? `To run this release anyway, go back to the data as it was before that migration (what was written since is lost): stop the hub, move ${database} and its -wal and -shm files aside, copy one of these backups in its place (owned by the service user) and run this again: ${backups.join(', ')}`
        : 'No backup taken before a migration that this release can open lies beside it.');
      process.exit(3);
    }
    // A consistent snapshot, under SQLite's read lock, whether or not the hub runs.
    live.prepare('VACUUM INTO ?').run(copy);
  } finally {
    live.close();
  }
  // Store.open migrates the copy and prepares every repository's statements against it.
  Store.open(copy).close();
  console.log(found === SCHEMA_VERSION
    ? `database: ${database}, schema ${found}, which this release opens as it is (checked on a copy)`
    : `database: ${database}, schema ${found}; this release migrates it to ${SCHEMA_VERSION} at its start, backing it up first (the migration ran on a copy: ok)`);
} catch (err) {
  console.error(`this release cannot open the hub's database: ${err.message}`);
  process.exit(1);
}
