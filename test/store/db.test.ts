// The database: migrations, refusal of a newer schema, durability settings, hashed keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase, NewerDatabaseError, SCHEMA_VERSION } from '../../src/store/db.ts';
import { Store } from '../../src/store/store.ts';
import { MIGRATIONS } from '../../src/store/migrations/index.ts';

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'hub-db-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('a new database is migrated to the current version, in WAL mode with synchronous FULL', (t) => {
  const path = join(tempDir(t), 'hub.db');
  const db = openDatabase(path);
  t.after(() => db.close());
  assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
  assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  assert.equal(db.pragma('synchronous', { simple: true }), 2, 'FULL');
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
  for (const table of ['api_keys', 'commands', 'connect_sessions', 'deleted_devices', 'devices', 'device_images']) assert.ok(tables.includes(table), table);
});

test('opening an up-to-date database again changes nothing', (t) => {
  const path = join(tempDir(t), 'hub.db');
  openDatabase(path).close();
  const db = openDatabase(path);
  t.after(() => db.close());
  assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
});

test('a database from a newer hub is refused, untouched', (t) => {
  const path = join(tempDir(t), 'hub.db');
  openDatabase(path).close();
  const raw = new Database(path);
  raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
  raw.close();
  assert.throws(() => openDatabase(path), NewerDatabaseError);
  const check = new Database(path);
  assert.equal(check.pragma('user_version', { simple: true }), SCHEMA_VERSION + 1);
  check.close();
});

test('every list filter and sort is served by an index', (t) => {
  const store = Store.open(':memory:');
  t.after(() => store.close());
  const plan = (sql: string) => store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all().map((r) => (r as { detail: string }).detail).join(' | ');
  for (const column of ['user_id', 'vendor', 'is_online', 'last_updated']) {
    const detail = plan(`SELECT id FROM devices WHERE kind = 'battery' ORDER BY ${column} DESC, id DESC LIMIT 10`);
    assert.match(detail, /USING (COVERING )?INDEX/, column);
    assert.doesNotMatch(detail, /TEMP B-TREE/, `${column} needs no sort step`);
  }
  for (const column of ['vendor', 'is_online', 'last_updated']) {
    const detail = plan(`SELECT id FROM devices WHERE user_id = 'u' AND kind = 'meter' ORDER BY ${column} ASC, id ASC LIMIT 10`);
    assert.match(detail, /devices_of_user_by_/, column);
    assert.doesNotMatch(detail, /TEMP B-TREE/);
  }
  assert.match(plan("SELECT * FROM commands WHERE device_id = 'x' AND state = 'PENDING' ORDER BY seq"), /commands_of_device/);
});

test('API keys are stored as hashes only', (t) => {
  const path = join(tempDir(t), 'hub.db');
  const store = Store.open(path);
  const { key } = store.apiKeys.create('app', Date.now());
  assert.equal(store.apiKeys.verify(key), true);
  assert.equal(store.apiKeys.verify(key.slice(0, -1)), false);
  store.close();
  for (const file of ['hub.db', 'hub.db-wal']) {
    try {
      assert.equal(readFileSync(join(path, '..', file)).includes(Buffer.from(key)), false, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
});

test('HUB_API_KEY-style keys are ensured once, and revoking by name works', (t) => {
  const store = Store.open(':memory:');
  t.after(() => store.close());
  const key = 'automation-key-0123456789abcdef';
  const id = store.apiKeys.ensure('HUB_API_KEY', key, 1);
  assert.equal(store.apiKeys.ensure('HUB_API_KEY', key, 2), id);
  assert.equal(store.apiKeys.list().length, 1);
  assert.equal(store.apiKeys.revoke('HUB_API_KEY', 3), 1);
  assert.equal(store.apiKeys.verify(key), false);
  assert.notEqual(store.apiKeys.ensure('HUB_API_KEY', key, 4), id, 'a revoked key is re-added as a new one');
  assert.equal(store.apiKeys.verify(key), true);
});

test('a changed HUB_API_KEY replaces the one before it: one active key of that name, the partner\'s', (t) => {
  const store = Store.open(':memory:');
  t.after(() => store.close());
  const before = 'automation-key-0123456789abcdef';
  const after = 'automation-key-fedcba9876543210';
  store.apiKeys.ensure('HUB_API_KEY', before, 1);
  const id = store.apiKeys.ensure('HUB_API_KEY', after, 2);
  assert.equal(store.apiKeys.verify(before), false);
  assert.deepEqual(store.apiKeys.identify(after), { id, userId: null, readOnly: false });
  assert.deepEqual(store.apiKeys.list().filter((k) => k.revokedAtMs === null).map((k) => k.id), [id]);
});

test('verify accepts each active key and refuses any key that differs by one character', (t) => {
  const store = Store.open(':memory:');
  t.after(() => store.close());
  const keys = ['kitchen', 'relay', 'installer'].map((name) => store.apiKeys.create(name, 1).key);
  for (const key of keys) {
    assert.equal(store.apiKeys.verify(key), true);
    for (const at of [0, 4, key.length - 1]) {
      const changed = key.slice(0, at) + (key[at] === 'A' ? 'B' : 'A') + key.slice(at + 1);
      assert.equal(store.apiKeys.verify(changed), false, `changed at ${at}`);
    }
    assert.equal(store.apiKeys.verify(`${key}x`), false);
  }
  assert.equal(store.apiKeys.verify(''), false);
  store.apiKeys.revoke('relay', 2);
  assert.deepEqual(keys.map((key) => store.apiKeys.verify(key)), [true, false, true]);
});

test('migration 3 brings older rows to lower-case ids, whole-second device times and a staticData stamp', (t) => {
  const path = join(tempDir(t), 'hub.db');
  const old = new Database(path);
  old.exec(MIGRATIONS[0]!);
  old.exec(MIGRATIONS[1]!);
  old.pragma('user_version = 2');
  const insert = old.prepare(`INSERT INTO devices (id, kind, user_id, vendor, model, is_online, last_updated, location_id, user_id_fold,
    static_json, state_json, created_at) VALUES (?, ?, 'u', 'SMA', 'M', 1, ?, ?, 'u', ?, ?, ?)`);
  const UPPER = '3F2504E0-4F89-41D3-9A0C-0305E82C3301';
  const TWIN = 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE';
  const created = Date.parse('2026-11-01T10:00:00Z') + 456;
  insert.run(UPPER, 'vehicle', Date.parse('2026-11-07T05:31:56Z') + 789, '6F1C0E56-2D1B-4C55-9A0E-4A4F3B2A9D01',
    JSON.stringify({ siteName: 'Home' }), JSON.stringify({ lastUpdated: '2026-11-07T05:31:56.789Z', chargeRate: 1 }), created);
  insert.run(TWIN, 'battery', null, null, JSON.stringify({ lastUpdated: '2026-11-02T00:00:00.5Z' }), null, created);
  insert.run(TWIN.toLowerCase(), 'battery', null, null, JSON.stringify({ lastUpdated: '2026-11-03T00:00:00Z' }), null, created);
  old.prepare(`INSERT INTO commands (id, device_id, device_kind, user_id, type, state, created_at, last_updated, expires_at)
    VALUES ('c1', ?, 'vehicle', 'u', 'CHARGING_STOP', 'PENDING', 1, 1, 2), ('c2', ?, 'battery', 'u', 'CHARGING_STOP', 'PENDING', 1, 1, 2)`).run(UPPER, TWIN);
  old.prepare("INSERT INTO vehicle_images (vehicle_id, png, etag, updated_at) VALUES (?, x'00', 'e', 1)").run(UPPER);
  old.prepare("INSERT INTO deleted_devices (id, kind, deleted_at) VALUES (?, 'meter', 1)").run('BBBBBBBB-BBBB-4CCC-8DDD-EEEEEEEEEEEE');
  old.close();

  const store = Store.open(path);
  t.after(() => store.close());
  assert.equal(store.db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
  const vehicle = store.devices.get(UPPER.toLowerCase())!;
  assert.ok(vehicle, 'the id is lower case');
  assert.equal(vehicle.locationId, '6f1c0e56-2d1b-4c55-9a0e-4a4f3b2a9d01');
  assert.equal(vehicle.lastUpdatedMs, Date.parse('2026-11-07T05:31:56Z'));
  assert.deepEqual(vehicle.state, { lastUpdated: '2026-11-07T05:31:56Z', chargeRate: 1 });
  assert.deepEqual(vehicle.staticData, { siteName: 'Home', lastUpdated: '2026-11-01T10:00:00Z' }, 'stamped when it was added');
  assert.equal(store.commands.get('c1')!.deviceId, UPPER.toLowerCase());
  assert.ok(store.deviceImages.get(UPPER.toLowerCase()));
  assert.equal(store.devices.wasDeleted('bbbbbbbb-bbbb-4ccc-8ddd-eeeeeeeeeeee'), true);
  // A row whose lower-case twin exists keeps its id, and what refers to it still points at it.
  assert.deepEqual(store.devices.get(TWIN)!.staticData, { lastUpdated: '2026-11-02T00:00:00Z' });
  assert.deepEqual(store.devices.get(TWIN.toLowerCase())!.staticData, { lastUpdated: '2026-11-03T00:00:00Z' });
  assert.equal(store.commands.get('c2')!.deviceId, TWIN);
});

test('migration 14 keeps the household\'s points from before it, the car\'s power unknown in them (null), and stores it from then on', (t) => {
  const path = join(tempDir(t), 'hub.db');
  const old = new Database(path);
  for (let step = 1; step <= 13; step++) old.exec(MIGRATIONS[step - 1]!);
  old.pragma('user_version = 13');
  old.prepare(`INSERT INTO household_points (user_id, start_at, pv_kw, home_kw, grid_kw, battery_kw, battery_soc, price)
    VALUES ('u', 0, 3.5, 1.2, -1.1, 1.2, 55, 0.28)`).run();
  old.close();

  const store = Store.open(path);
  t.after(() => store.close());
  assert.equal(store.db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
  assert.deepEqual(store.householdSeries.read('u', 0), [{ startMs: 0, pvKw: 3.5, homeKw: 1.2, gridKw: -1.1, batteryKw: 1.2, carKw: null, batterySoc: 55, price: 0.28 }]);
  store.householdSeries.add('u', { startMs: 300_000, pvKw: 3.5, homeKw: 1.2, gridKw: 1.1, batteryKw: 1.2, carKw: 2.2, batterySoc: 56, price: 0.28 });
  assert.deepEqual(store.db.prepare('SELECT start_at AS at, car_kw AS carKw FROM household_points ORDER BY start_at').all(), [{ at: 0, carKw: null }, { at: 300_000, carKw: 2.2 }]);
});
