// hub export / backup / restore / config check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { runHub } from '../../src/cli/hub.ts';
import { Store } from '../../src/store/store.ts';
import { SCHEMA_VERSION } from '../../src/store/db.ts';
import { DataDirLock } from '../../src/store/data-dir-lock.ts';
import { demoRecords } from '../../src/demo/site.ts';
import { ids } from '../support/hub.ts';
import { drawCar } from '../../src/demo/vehicle-picture.ts';

function workspace(t: { after: (fn: () => void) => void }, name = 'a') {
  const dir = mkdtempSync(join(tmpdir(), `hub-admin-${name}-`));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const out: string[] = [];
  const err: string[] = [];
  const run = (...argv: string[]) => runHub(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, { HUB_DATA_DIR: dir });
  return { dir, out, err, run, open: () => Store.open(join(dir, 'hub.db')) };
}

test('export then import on another hub gives the same devices and images', async (t) => {
  const a = workspace(t, 'a');
  const b = workspace(t, 'b');
  writeFileSync(join(a.dir, 'in.json'), JSON.stringify(demoRecords(Date.parse('2026-11-07T05:31:56Z'))));
  assert.equal(await a.run('import', join(a.dir, 'in.json')), 0);
  assert.equal(await a.run('export', join(a.dir, 'out.json')), 0);
  assert.equal(await b.run('import', join(a.dir, 'out.json')), 0);
  const [sa, sb] = [a.open(), b.open()];
  t.after(() => { sa.close(); sb.close(); });
  const strip = (s: Store) => s.devices.all().map(({ createdAtMs, ...rest }) => rest);
  assert.deepEqual(strip(sb), strip(sa));
  assert.deepEqual(sb.deviceImages.get(ids.vehicle), sa.deviceImages.get(ids.vehicle));
});

test('backup copies a database in use; restore brings it back and keeps the hub schema', async (t) => {
  const w = workspace(t);
  writeFileSync(join(w.dir, 'in.json'), JSON.stringify(demoRecords(Date.now())));
  await w.run('import', join(w.dir, 'in.json'));
  const live = w.open(); // another connection holds the database open, as the daemon would
  t.after(() => live.close());
  live.commands.create({ id: '11111111-1111-4111-8111-111111111111', deviceId: ids.vehicle, deviceKind: 'vehicle', userId: 'u', type: 'CHARGING_STOP', payload: undefined, createdAtMs: 1, expiresAtMs: 2 });
  const backup = join(w.dir, 'backup.db');
  assert.equal(await w.run('backup', backup), 0);
  assert.match(w.out.join('\n'), /100%/);
  assert.equal(await w.run('backup', backup), 1, 'never overwrites a file');

  await w.run('import', join(w.dir, 'in.json'), '--replace');
  live.deleteDevice(live.devices.get(ids.battery)!, Date.now());
  assert.equal(live.devices.get(ids.battery), undefined);
  assert.equal(await w.run('restore', backup), 0);
  assert.equal(live.devices.get(ids.battery)?.vendor, 'FRONIUS', 'the running connection sees the restored data');
  assert.equal(live.commands.get('11111111-1111-4111-8111-111111111111')?.state, 'PENDING');
  assert.equal(live.db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
});

test('restore refuses what is not a hub backup, and changes nothing', async (t) => {
  const w = workspace(t);
  writeFileSync(join(w.dir, 'in.json'), JSON.stringify(demoRecords(Date.now())));
  await w.run('import', join(w.dir, 'in.json'));
  const junk = join(w.dir, 'junk.db');
  writeFileSync(junk, 'not sqlite at all');
  assert.equal(await w.run('restore', junk), 1);
  const other = join(w.dir, 'other.db');
  new Database(other).exec('CREATE TABLE t (x)');
  assert.equal(await w.run('restore', other), 1);
  const newer = join(w.dir, 'newer.db');
  await w.run('backup', newer);
  const db = new Database(newer);
  db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
  db.close();
  assert.equal(await w.run('restore', newer), 1);
  assert.match(w.err.join('\n'), /newer hub/);
  const store = w.open();
  t.after(() => store.close());
  assert.equal(store.devices.count(), 13);
});

test('config check reports every problem of a file without starting', async (t) => {
  const w = workspace(t);
  const good = join(w.dir, 'good.yaml');
  writeFileSync(good, 'http:\n  port: 9090\n');
  assert.equal(await w.run('config', 'check', good), 0);
  assert.match(w.out.join('\n'), /OK \(listens on 127\.0\.0\.1:9090/);
  const bad = join(w.dir, 'bad.yaml');
  writeFileSync(bad, 'http:\n  port: -1\n  hots: x\n');
  // 2, as a start refused for the same file exits.
  assert.equal(await w.run('config', 'check', bad), 2);
  assert.match(w.err.join('\n'), /2 problems in .*bad\.yaml:\n  http\.port: must be at least 0\n  http\.hots: is not a known setting/);
  assert.equal(readFileSync(bad, 'utf8').length > 0, true);
  const lonely = join(w.dir, 'ha.yaml');
  writeFileSync(lonely, 'homeAssistant:\n  enabled: true\n');
  assert.equal(await w.run('config', 'check', lonely), 0);
  // The demo brings its own broker (docs/home-assistant.md's recipe): a note, true for both.
  assert.match(w.err.at(-1)!, /^note: homeAssistant\.enabled publishes through a broker: the demo \(npm start\) brings its own; an installed hub needs mqtt\.url/);
});

test('devices remove deletes for good and fails pending commands', async (t) => {
  const w = workspace(t);
  writeFileSync(join(w.dir, 'in.json'), JSON.stringify(demoRecords(Date.now())));
  await w.run('import', join(w.dir, 'in.json'));
  const store = w.open();
  t.after(() => store.close());
  store.commands.create({ id: '22222222-2222-4222-8222-222222222222', deviceId: ids.vehicle, deviceKind: 'vehicle', userId: 'u', type: 'CHARGING_STOP', payload: undefined, createdAtMs: 1, expiresAtMs: 2 });
  // UUIDs are case-insensitive: the id in capitals names the same device.
  assert.equal(await w.run('devices', 'remove', ids.vehicle.toUpperCase()), 0);
  assert.match(w.out.join('\n'), /Removed vehicle .*; 1 pending command failed\./);
  assert.equal(store.devices.get(ids.vehicle), undefined);
  assert.equal(store.devices.wasDeleted(ids.vehicle), true);
  assert.equal(store.commands.get('22222222-2222-4222-8222-222222222222')?.state, 'FAILED');
  assert.equal(await w.run('devices', 'remove', ids.vehicle), 1);
  assert.equal(await w.run('devices', 'remove'), 2);
});

test('devices list shows every kind, with its id, owner and binding; passwords are not shown', async (t) => {
  const w = workspace(t);
  const records = demoRecords(Date.now()) as Record<string, unknown>[];
  const charger = records.find((r) => r['kind'] === 'charger')!;
  charger['driver'] = { type: 'ocpp', chargePointId: 'CP-1', password: 'do-not-print-me-0123' };
  writeFileSync(join(w.dir, 'in.json'), JSON.stringify(records));
  assert.equal(await w.run('import', join(w.dir, 'in.json')), 0);
  w.out.length = 0;
  assert.equal(await w.run('devices', 'list'), 0);
  const text = w.out.join('\n');
  for (const kind of ['battery', 'pvInverter', 'meter', 'hvac', 'charger', 'vehicle', 'tariff']) assert.match(text, new RegExp(`\\s${kind}\\s`), kind);
  assert.match(text, new RegExp(`${ids.vehicle}\\s+vehicle\\s+TESLA\\s+demo-household`));
  // The password is kept only as a hash; neither is shown.
  assert.match(text, /ocpp \{"chargePointId":"CP-1"\}/);
  assert.doesNotMatch(text, /do-not-print-me|password/i);
  assert.match(text, new RegExp(`^${records.length} devices$`, 'm'));
});

test('hub commands take a device id by a prefix naming one device; an ambiguous prefix lists the candidates', async (t) => {
  const w = workspace(t);
  writeFileSync(join(w.dir, 'in.json'), JSON.stringify(demoRecords(Date.now())));
  await w.run('import', join(w.dir, 'in.json'));
  const store = w.open();
  t.after(() => store.close());
  // The demo's two vehicles share their first 34 characters.
  w.err.length = 0;
  assert.equal(await w.run('devices', 'remove', ids.vehicle.slice(0, 8)), 1);
  assert.match(w.err.join('\n'), new RegExp(`is the start of 2 device ids; give more of it:\\n  ${ids.vehicle}  vehicle of demo-household\\n  ${ids.vehicle.slice(0, -1)}2`));
  assert.ok(store.devices.get(ids.vehicle), 'nothing removed');
  w.err.length = 0;
  assert.equal(await w.run('devices', 'remove', 'ffff'), 1);
  assert.match(w.err.join('\n'), /No device with the id or id prefix "ffff"/);
  // The tariff is the only device whose id starts with 6 (the location id is no device's).
  const tariff = store.devices.all().find((d) => d.kind === 'tariff')!;
  assert.equal(tariff.id.startsWith('6'), true);
  assert.equal(await w.run('devices', 'remove', '6'), 0);
  assert.equal(store.devices.get(tariff.id), undefined);
  // image set looks among vehicles only: a prefix shared with other kinds still names one vehicle.
  const png = join(w.dir, 'car.png');
  writeFileSync(png, drawCar([10, 200, 10]));
  assert.equal(await w.run('image', 'set', ids.vehicle.slice(0, -1).toUpperCase() + '1', png), 0);
  assert.equal(await w.run('image', 'set', '5cab', png), 1);
});

test('config check takes HUB_CONFIG by default; other commands refuse a bad configuration with 2, as the hub does', async (t) => {
  const w = workspace(t);
  const bad = join(w.dir, 'bad.yaml');
  writeFileSync(bad, 'logLevel: loud\n');
  const io = { out: (l: string) => w.out.push(l), err: (l: string) => w.err.push(l) };
  assert.equal(await runHub(['config', 'check'], io, { HUB_DATA_DIR: w.dir, HUB_CONFIG: bad }), 2);
  assert.match(w.err.join('\n'), /logLevel: must be one of debug, info, warn, error, silent/);
  assert.equal(await runHub(['config', 'check'], io, { HUB_DATA_DIR: w.dir }), 2);
  assert.match(w.err.at(-1)!, /usage: npm run hub -- config check \[FILE\]/);
  assert.equal(await runHub(['keys', 'list'], io, { HUB_DATA_DIR: w.dir, HUB_CONFIG: bad }), 2);
  assert.equal(await runHub(['devices', 'list'], io, { HUB_DATA_DIR: w.dir, HUB_CONFIG: bad }), 2);
});

test('a backup holds every device secret: it is written readable by its owner only, and no temporary file stays', async (t) => {
  const w = workspace(t);
  writeFileSync(join(w.dir, 'in.json'), JSON.stringify(demoRecords(Date.now())));
  await w.run('import', join(w.dir, 'in.json'));
  const backup = join(w.dir, 'backup.db');
  assert.equal(await w.run('backup', backup), 0);
  assert.equal(statSync(backup).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(w.dir).filter((name) => name.startsWith('backup.db')), ['backup.db']);
});

test('restore refuses while a hub holds the data directory, naming its PID, and changes nothing', async (t) => {
  const w = workspace(t);
  writeFileSync(join(w.dir, 'in.json'), JSON.stringify(demoRecords(Date.now())));
  await w.run('import', join(w.dir, 'in.json'));
  const backup = join(w.dir, 'backup.db');
  assert.equal(await w.run('backup', backup), 0);
  const store = w.open();
  t.after(() => store.close());
  store.deleteDevice(store.devices.get(ids.battery)!, Date.now());
  const lock = DataDirLock.acquire(w.dir); // a running hub's lock, held by this (live) process
  assert.equal(await w.run('restore', backup), 1);
  assert.match(w.err.join('\n'), new RegExp(`A hub is running on .* \\(PID ${process.pid}, as its hub.lock says\\): stop it first`));
  assert.equal(store.devices.get(ids.battery), undefined, 'nothing was restored');
  lock.release();
  assert.equal(await w.run('restore', backup), 0);
  assert.equal(store.devices.get(ids.battery)?.vendor, 'FRONIUS');
});
