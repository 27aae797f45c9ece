// A full or failing card, for real: the hub's data on a small tmpfs filled with dd, or on a
// loop-mounted ext4 image that the kernel turns read-only (errors=remount-ro). The hub keeps running,
// refuses what it cannot store with 503 STORAGE_UNAVAILABLE, says so on /health, keeps what it was
// writing and writes it once the card takes writes again. And at start-up a database it will not
// open is named, with what to do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { ModbusSimServer } from '../../src/sim/modbus-sim-server.ts';
import { HEAT_PUMP, HeatPumpUnit, heatPumpRecord } from '../support/heat-pump-unit.ts';
import { startMqttHub } from '../support/mqtt-hub.ts';
import { until } from '../support/process.ts';
import { fill, mountExt4, mountTmpfs } from '../support/mounts.ts';
import { Store } from '../../src/store/store.ts';
import { ocppCharger, startOcppHub } from '../support/ocpp-hub.ts';
import { silentLogger } from '../../src/log.ts';
import { StorageUnavailable } from '../../src/store/storage-fault.ts';
import { DataDirLock } from '../../src/store/data-dir-lock.ts';

async function health(url: string): Promise<{ status: number; body: { status: string; problems?: string[] } }> {
  const res = await fetch(`${url}/health`);
  return { status: res.status, body: (await res.json()) as { status: string; problems?: string[] } };
}

test('a command the device confirms while the card is full is recorded once space is back; the hub never stops', async (t) => {
  const mount = mountTmpfs(t, 6 * 1024 * 1024);
  if (!mount) return;
  const unit = new HeatPumpUnit();
  const sim = await ModbusSimServer.tcp(new Map([[1, unit]]));
  t.after(() => sim.close());
  const hub = await startMqttHub(t, { dataDir: join(mount, 'data'), records: [heatPumpRecord(sim.port)] });
  const online = () => hub.device(HEAT_PUMP)?.isOnline === true;
  if (!online()) await hub.event((e) => e.type !== 'command' && e.device.id === HEAT_PUMP && online());

  // The heat pump answers slowly: its confirmation arrives after the card has filled.
  sim.setFault(1, { kind: 'slow', delayMs: 600 });
  const command = hub.submit(HEAT_PUMP, 'SET_TEMPERATURE', { temperature: 21.5 });
  const filler = fill(mount);
  // A new command is refused, not acknowledged: nothing of it is stored.
  assert.throws(() => hub.submit(HEAT_PUMP, 'SET_TEMPERATURE', { temperature: 22 }), (err: Error) => err instanceof StorageUnavailable && /full/.test(err.message));
  const down = await health(hub.daemon.url);
  assert.equal(down.status, 503);
  assert.match(down.body.problems?.[0] ?? '', /^storage not writable \(full\), \d+ kB free of 6\.0 MB$/);
  const refused = await hub.api(`/hvacs/${HEAT_PUMP}/commands/schedule`, { method: 'POST', json: { schedules: [{ mode: 'HEAT', temperature: 20, start: { time: '06:00', day: 'MONDAY' } }] } });
  assert.equal(refused.status, 503);
  assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  const body = (await refused.json()) as { errorCode: string; message: string };
  assert.equal(body.errorCode, 'STORAGE_UNAVAILABLE');
  assert.match(body.message, /storage is full/);

  // The device confirms; the outcome is kept in memory, the table still says PENDING.
  await until('the outcome held for the card', () => (hub.daemon.worker!.heldOutcomes === 1 ? true : undefined));
  assert.equal(hub.daemon.db.commands.get(command.id)?.state, 'PENDING');
  assert.equal(unit.registers.get(100), 215);
  // Reads go on: the device as the API shows it.
  assert.equal((await hub.api(`/hvacs`)).status, 200);

  const freedAt = Date.now();
  rmSync(filler);
  const done = await hub.commandDone(command.id);
  assert.equal(done.state, 'EXECUTED');
  assert.ok(done.lastUpdatedMs < freedAt, 'recorded with the time the device confirmed, not the time it could be written');
  assert.ok(Date.now() - freedAt < 5_000, `recovered within seconds (${Date.now() - freedAt} ms)`);
  assert.equal((await health(hub.daemon.url)).status, 200);
  assert.equal(hub.daemon.db.storage.recoveries, 1);
  const metrics = await (await fetch(`${hub.daemon.url}/metrics`, { headers: { 'x-api-key': 'mqtt-hub-test-key-0123456789abcdef' } })).text();
  assert.match(metrics, /^hub_storage_writable 1$/m);
  assert.match(metrics, /^hub_storage_write_errors_total [1-9]\d*$/m);
  // And the card takes new commands again.
  sim.setFault(1, { kind: 'none' });
  assert.equal((await hub.commandDone(hub.submit(HEAT_PUMP, 'SET_TEMPERATURE', { temperature: 23 }).id)).state, 'EXECUTED');
});

test('a card turned read-only by the kernel (errors=remount-ro) refuses writes with 503, keeps serving reads, and the hub stops cleanly', async (t) => {
  const card = mountExt4(t, 20);
  if (!card) return;
  const unit = new HeatPumpUnit();
  const sim = await ModbusSimServer.tcp(new Map([[1, unit]]));
  t.after(() => sim.close());
  const hub = await startMqttHub(t, { dataDir: join(card.dir, 'data'), records: [heatPumpRecord(sim.port)], config: { telemetry: { persistIntervalSeconds: 0 } } });
  const online = () => hub.device(HEAT_PUMP)?.isOnline === true;
  if (!online()) await hub.event((e) => e.type !== 'command' && e.device.id === HEAT_PUMP && online());

  card.triggerError();
  // Every change the poller reports is written at once (interval 0): the first one meets the fault.
  unit.registers.set(101, 180);
  await until('the fault seen', () => (hub.daemon.db.storage.writable ? undefined : true));
  assert.equal(hub.daemon.db.storage.faultKind, 'read-only');
  // The state writer kept what it could not write: readers see the new value.
  await until('the new room temperature shown', () => (hub.device(HEAT_PUMP)?.state?.['roomTemperature'] === 18 ? true : undefined));
  const down = await health(hub.daemon.url);
  assert.equal(down.status, 503);
  assert.match(down.body.problems?.[0] ?? '', /^storage not writable \(read-only\)/);
  assert.throws(() => hub.submit(HEAT_PUMP, 'SET_TEMPERATURE', { temperature: 22 }), (err: Error) => err instanceof StorageUnavailable && /read-only/.test(err.message));
  assert.equal((await hub.api(`/hvacs`)).status, 200);
  // A clean stop flushes the drivers' last values into a card that refuses them: it still stops.
  await hub.stop();
});

test('an OCPP transaction the card cannot store is refused, and taken once the charger sends it again after space is freed', async (t) => {
  const mount = mountTmpfs(t, 6 * 1024 * 1024);
  if (!mount) return;
  const charger = '4b9a6e5c-be8f-4dbc-9f7c-5e6f7a8b9c31';
  const hub = await startOcppHub(t, [ocppCharger(charger, 'CP-FULL', { freeCharging: true })], { dataDir: join(mount, 'data') });
  const sim = hub.sim('CP-FULL');
  await sim.connect();
  await hub.online(charger, true);

  const filler = fill(mount);
  await assert.rejects(sim.startTransaction('card-1'), /cannot store this now \(storage full\)/);
  assert.deepEqual(hub.daemon.db.ocpp.running('CP-FULL'), []);
  assert.equal(hub.daemon.db.storage.writable, false);

  rmSync(filler);
  await new Promise<void>((resolve) => hub.daemon.db.storage.whenWritable(resolve));
  await sim.startTransaction('card-1');
  const running = hub.daemon.db.ocpp.running('CP-FULL');
  assert.equal(running.length, 1);
  assert.equal(running[0]!.id, sim.transactionId);
});

test('below the low-space threshold the storage warns (the words /health and the status line show), before the card is full', async (t) => {
  const mount = mountTmpfs(t, 8 * 1024 * 1024);
  if (!mount) return;
  const store = Store.open(join(mount, 'hub.db'));
  t.after(() => store.close());
  // 5 % of 8 MB (410 kB) is below 50 MB: that is the threshold.
  store.storage.start(silentLogger(), { lowSpaceBytes: 50 * 1024 * 1024, lowSpacePercent: 5 });
  assert.equal(store.storage.lowOnSpace, false);
  const free = store.storage.space()!.freeBytes;
  writeFileSync(join(mount, 'old-backup'), Buffer.alloc(free - 200 * 1024));
  store.storage.checkSpace();
  assert.equal(store.storage.lowOnSpace, true);
  assert.match(store.storage.problems()[0] ?? '', /^storage low on space, \d+ kB free of 8\.0 MB$/);
  assert.ok(store.storage.writable, 'still writable: a warning, not a fault');
  rmSync(join(mount, 'old-backup'));
  store.storage.checkSpace();
  assert.equal(store.storage.lowOnSpace, false);
  assert.deepEqual(store.storage.problems(), []);
});

test('at start-up, an empty, foreign or damaged hub.db is refused with its name and the next step, and left as it was', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-refused-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'hub.db');
  const refused = (pattern: RegExp) => (err: Error) => {
    assert.match(err.message, pattern);
    assert.match(err.message, /the hub has not changed it/);
    assert.match(err.message, /hub restore BACKUP-FILE`, or move the file aside to start with an empty database/);
    assert.ok(err.message.includes(path), 'names the file');
    return true;
  };

  writeFileSync(path, '');
  assert.throws(() => Store.open(path), refused(/is empty \(0 bytes\), which is usually a write or a restore that failed/));
  assert.equal(statSync(path).size, 0);

  writeFileSync(path, 'a shopping list, not a database\n'.repeat(200));
  const foreign = readFileSync(path);
  assert.throws(() => Store.open(path), refused(/is not a hub database \(SQLite says: file is not a database\)/));
  assert.deepEqual(readFileSync(path), foreign);

  // A real database whose first page, past the header, was overwritten (a card that returned garbage).
  rmSync(path);
  const good = Store.open(path);
  good.close();
  const bytes = readFileSync(path);
  bytes.fill(0x5a, 100, 4096);
  writeFileSync(path, bytes);
  assert.throws(() => Store.open(path), refused(/is damaged \(SQLite says: database disk image is malformed\)/));
  assert.deepEqual(readFileSync(path), bytes);

  // A data directory created now starts an empty database, as on a first start.
  const fresh = Store.open(join(dir, 'new', 'hub.db'));
  assert.equal(fresh.devices.count(), 0);
  fresh.close();
});

test('a database damaged past its header (its header and schema read fine) is refused at start like any damaged one: the file named, unchanged, the way on', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-damaged-deep-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'hub.db');
  const store = Store.open(path);
  store.importDevices(Array.from({ length: 400 }, (_, i) => ({
    id: `6f1c2a4e-0000-4000-8000-${String(i).padStart(12, '0')}`, kind: 'meter' as const, userId: 'household-1', vendor: 'SMA', name: `meter ${i}`, model: 'Sunny Home Manager 2.0',
    isOnline: false, lastUpdatedMs: null, locationId: null, hvacType: null, staticData: {}, state: null, driver: null, createdAtMs: Date.now(),
  })), new Map(), Date.now());
  store.close();
  // Random bytes over page 2 (a card that returned garbage there): the schema on page 1 opens.
  const bytes = readFileSync(path);
  for (let i = 4096; i < 8192; i++) bytes[i] = (i * 7919) % 251;
  writeFileSync(path, bytes);
  const { Daemon } = await import('../../src/daemon.ts');
  const { ConfigSchema } = await import('../../src/config.ts');
  const { DatabaseRefusedError } = await import('../../src/store/db.ts');
  const daemon = new Daemon({ config: ConfigSchema.parse({ dataDir: dir, http: { port: 0 } }), log: silentLogger() });
  await assert.rejects(daemon.start(), (err: Error) => {
    assert.ok(err instanceof DatabaseRefusedError, `${err.name}: ${err.message}`);
    assert.match(err.message, /is damaged \(SQLite says: database disk image is malformed\); the hub has not changed it/);
    assert.ok(err.message.includes(path), 'names the file');
    return true;
  });
  assert.deepEqual(readFileSync(path), bytes, 'left as it was');
});

test('at start-up, a data directory on a read-only mount says so in those words', async (t) => {
  const card = mountExt4(t, 20);
  if (!card) return;
  const path = join(card.dir, 'data', 'hub.db');
  Store.open(path).close();
  const before = readFileSync(path);
  assert.equal(spawnSync('mount', ['-o', 'remount,ro', card.dir]).status, 0);
  for (const open of [() => Store.open(path), () => DataDirLock.acquire(join(card.dir, 'data'))]) {
    // The daemon takes the data directory's lock before it opens the store: both say it the same way.
    assert.throws(open, (err: Error) => {
      assert.match(err.message, new RegExp(`^the data directory ${join(card.dir, 'data')} is read-only`));
      assert.match(err.message, /remount it read-write/);
      return true;
    });
  }
  assert.deepEqual(readFileSync(path), before);
});
