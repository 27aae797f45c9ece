// hub keys with a scope: create for one household (read-only or not), names unique among active keys,
// revoke by name ending exactly one key, list showing each key's scope; and a database from before
// names were unique (two active keys of one name) that keeps working and says which keys share a name.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runHub } from '../../src/cli/hub.ts';
import { Store } from '../../src/store/store.ts';
import { hashKey } from '../../src/store/api-keys.ts';
import { MIGRATIONS } from '../../src/store/migrations/index.ts';

function workspace(t: TestContext) {
  const dir = mkdtempSync(join(tmpdir(), 'hub-cli-keys-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const out: string[] = [];
  const err: string[] = [];
  const run = async (...argv: string[]) => {
    out.length = 0;
    err.length = 0;
    return runHub(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, { HUB_DATA_DIR: dir });
  };
  const open = () => Store.open(join(dir, 'hub.db'));
  const keyIn = (lines: string[]) => lines.join('\n').match(/heh_[A-Za-z0-9_-]{43}/)![0];
  return { dir, out, err, run, open, keyIn };
}

test('keys create --user scopes a key to one household, --read-only makes it read-only; list shows both', async (t) => {
  const w = workspace(t);
  assert.equal(await w.run('keys', 'create', 'kitchen-tablet', '--user', 'household-3'), 0);
  assert.match(w.out.join('\n'), /Created key "kitchen-tablet" \(.*\), user household-3\. Store it now/);
  const tablet = w.keyIn(w.out);
  assert.equal(await w.run('keys', 'create', 'wall-display', '--read-only', '--user=household-3'), 0);
  assert.match(w.out.join('\n'), /user household-3, read-only/);
  const display = w.keyIn(w.out);
  assert.equal(await w.run('keys', 'create', 'partner'), 0);
  assert.match(w.out.join('\n'), /every household/);

  assert.equal(await w.run('keys', 'list'), 0);
  const listed = w.out.join('\n');
  assert.match(listed, /kitchen-tablet +created .* active {2}user household-3$/m);
  assert.match(listed, /wall-display +created .* active {2}user household-3, read-only$/m);
  assert.match(listed, /partner +created .* active {2}every household$/m);
  assert.doesNotMatch(listed, /heh_/);

  const store = w.open();
  t.after(() => store.close());
  assert.deepEqual(store.apiKeys.identify(tablet) && { ...store.apiKeys.identify(tablet), id: '' }, { id: '', userId: 'household-3', readOnly: false });
  assert.deepEqual(store.apiKeys.identify(display) && { ...store.apiKeys.identify(display), id: '' }, { id: '', userId: 'household-3', readOnly: true });
});

test('keys create refuses what it cannot make: a taken name, --read-only without --user, an empty or unknown option', async (t) => {
  const w = workspace(t);
  assert.equal(await w.run('keys', 'create', 'kitchen-tablet'), 0);
  assert.equal(await w.run('keys', 'create', 'kitchen-tablet', '--user', 'household-3'), 1);
  assert.match(w.err.join('\n'), /An active key is already named "kitchen-tablet"; names are unique\. Choose another name, or revoke that key first/);
  assert.deepEqual(w.out, [], 'no key shown');
  assert.equal(await w.run('keys', 'create', 'display', '--read-only'), 2);
  assert.match(w.err.join('\n'), /--read-only needs --user/);
  assert.equal(await w.run('keys', 'create', 'display', '--user', ' '), 2);
  assert.equal(await w.run('keys', 'create', 'display', '--usr', 'household-3'), 2);
  assert.match(w.err.join('\n'), /unknown option --usr/);
  assert.equal(await w.run('keys', 'create', 'display', '--user'), 2);
  const store = w.open();
  t.after(() => store.close());
  assert.deepEqual(store.apiKeys.list().map((k) => k.name), ['kitchen-tablet'], 'only the first key was made');
});

test('keys revoke NAME revokes exactly that one key; the name is free again afterwards', async (t) => {
  const w = workspace(t);
  assert.equal(await w.run('keys', 'create', 'kitchen-tablet'), 0);
  const first = w.keyIn(w.out);
  assert.equal(await w.run('keys', 'create', 'kitchen-tablet-2'), 0);
  const other = w.keyIn(w.out);
  assert.equal(await w.run('keys', 'revoke', 'kitchen-tablet'), 0);
  assert.deepEqual(w.out, ['Revoked 1 key.']);
  assert.equal(await w.run('keys', 'revoke', 'kitchen-tablet'), 1);
  assert.match(w.err.join('\n'), /No active key with id or name "kitchen-tablet"/);
  // A revoked key's name may be given to a new key.
  assert.equal(await w.run('keys', 'create', 'kitchen-tablet', '--user', 'household-3'), 0);
  const second = w.keyIn(w.out);
  const store = w.open();
  t.after(() => store.close());
  assert.equal(store.apiKeys.verify(first), false);
  assert.equal(store.apiKeys.verify(second), true);
  assert.equal(store.apiKeys.verify(other), true, 'a key whose name only begins the same is untouched');
});

test('a database from before names were unique keeps both keys of one name working, and says which share it', async (t) => {
  const w = workspace(t);
  // Two active keys named alike, as `keys create` made them before migration 010, then migrated.
  const path = join(w.dir, 'hub.db');
  const raw = new (await import('better-sqlite3')).default(path);
  for (const sql of MIGRATIONS.slice(0, 9)) raw.exec(sql);
  raw.pragma('user_version = 9');
  const keys = ['heh_old-key-one-0123456789abcdef', 'heh_old-key-two-0123456789abcdef'];
  const ids = keys.map((key, i) => {
    const id = randomUUID();
    raw.prepare('INSERT INTO api_keys (id, name, hash, created_at) VALUES (?, ?, ?, ?)').run(id, 'kitchen-tablet', hashKey(key), i);
    return id;
  });
  raw.close();

  assert.equal(await w.run('keys', 'list'), 0);
  const shared = w.out.filter((line) => /\(name shared with another active key: revoke by id\)$/.test(line));
  assert.equal(shared.length, 2);
  assert.ok(w.out.every((line) => / every household/.test(line)), 'keys from before stay the partner\'s');
  // A fresh look at the database after each CLI run: what the CLI wrote, not what a store remembers.
  const verified = (key: string) => {
    const store = w.open();
    try {
      return store.apiKeys.identify(key);
    } finally {
      store.close();
    }
  };
  for (const key of keys) assert.equal(verified(key)?.userId, null, 'both still work, unscoped');

  assert.equal(await w.run('keys', 'revoke', 'kitchen-tablet'), 1);
  assert.match(w.err.join('\n'), new RegExp(`2 active keys are named "kitchen-tablet"; none was revoked\\. Revoke one by its id: ${ids[0]}, ${ids[1]}`));
  for (const key of keys) assert.ok(verified(key), 'none revoked');
  assert.equal(await w.run('keys', 'create', 'kitchen-tablet'), 1, 'the name is taken');

  assert.equal(await w.run('keys', 'revoke', ids[0]!), 0);
  assert.equal(await w.run('keys', 'list'), 0);
  assert.equal(w.out.filter((line) => /name shared/.test(line)).length, 0);
  assert.equal(await w.run('keys', 'revoke', 'kitchen-tablet'), 0, 'one left: by name again');
  for (const key of keys) assert.equal(verified(key), undefined);
});

test('hub --help shows the scope options of keys create', async (t) => {
  const w = workspace(t);
  await w.run('--help');
  assert.match([...w.out, ...w.err].join('\n'), /keys create NAME \[--user USER \[--read-only\]\]/);
});
