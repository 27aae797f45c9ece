// ExternalWrites: another connection's commits are always seen, this connection's never count, and
// neither a checkpoint nor a WAL restart by the other side hides a commit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Db } from '../../src/store/db.ts';
import { ExternalWrites } from '../../src/store/external-writes.ts';

function twoConnections(t: { after: (fn: () => void) => void }): { hub: Db; cli: Db; writes: ExternalWrites } {
  const dir = mkdtempSync(join(tmpdir(), 'hub-external-'));
  const hub = openDatabase(join(dir, 'hub.db'));
  const cli = openDatabase(join(dir, 'hub.db'));
  const writes = new ExternalWrites(hub);
  t.after(() => {
    hub.close();
    cli.close();
    writes.close(); // after SQLite's connections (see external-writes.ts)
    rmSync(dir, { recursive: true, force: true });
  });
  return { hub, cli, writes };
}

const note = (db: Db, text: string) => db.prepare('INSERT INTO api_keys (id, name, hash, created_at) VALUES (?, ?, ?, 0)').run(text, text, Buffer.from(text));

test('a commit by another connection is seen once; looks without one see nothing', (t) => {
  const { cli, writes } = twoConnections(t);
  assert.equal(writes.happened(), false);
  note(cli, 'a');
  assert.equal(writes.happened(), true);
  assert.equal(writes.happened(), false);
  assert.equal(writes.happened(), false);
});

test("this connection's own commits are not another process's", (t) => {
  const { hub, cli, writes } = twoConnections(t);
  note(hub, 'own');
  assert.equal(writes.happened(), false);
  note(hub, 'own again');
  note(cli, 'theirs');
  assert.equal(writes.happened(), true);
});

test('commits around checkpoints and WAL restarts by the other side are all seen', (t) => {
  const { cli, writes } = twoConnections(t);
  for (let i = 0; i < 20; i++) {
    note(cli, `n${i}`);
    if (i % 3 === 0) cli.pragma('wal_checkpoint(TRUNCATE)');
    if (i % 5 === 0) cli.pragma('wal_checkpoint(RESTART)');
    assert.equal(writes.happened(), true, `commit ${i}`);
    assert.equal(writes.happened(), false, `after commit ${i}`);
  }
});

test('an in-memory database has no -shm file: every look asks SQLite, and nothing is external', () => {
  const db = openDatabase(':memory:');
  const writes = new ExternalWrites(db);
  note(db, 'x');
  assert.equal(writes.happened(), false);
  db.close();
  writes.close();
});
