// The hub command: keys, import (all or nothing, every problem named), device images.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { runHub } from '../../src/cli/hub.ts';
import { Store } from '../../src/store/store.ts';
import { drawCar } from '../../src/demo/vehicle-picture.ts';
import { demoRecords } from '../../src/demo/site.ts';
import { ids } from '../support/hub.ts';

function workspace(t: { after: (fn: () => void) => void }) {
  const dir = mkdtempSync(join(tmpdir(), 'hub-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const out: string[] = [];
  const err: string[] = [];
  const env = { HUB_DATA_DIR: dir };
  const run = (...argv: string[]) => runHub(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, env);
  const open = () => Store.open(join(dir, 'hub.db'));
  return { dir, out, err, run, open };
}

test('keys create shows the key once; list never shows it; revoke ends it', async (t) => {
  const w = workspace(t);
  assert.equal(await w.run('keys', 'create', 'kitchen-tablet'), 0);
  const key = w.out.join('\n').match(/heh_[A-Za-z0-9_-]{43}/)![0];
  w.out.length = 0;
  assert.equal(await w.run('keys', 'list'), 0);
  assert.match(w.out.join('\n'), /kitchen-tablet .* active/);
  assert.doesNotMatch(w.out.join('\n'), new RegExp(key));
  const store = w.open();
  assert.equal(store.apiKeys.verify(key), true);
  store.close();
  assert.equal(await w.run('keys', 'revoke', 'kitchen-tablet'), 0);
  assert.equal(await w.run('keys', 'revoke', 'kitchen-tablet'), 1);
  const after = w.open();
  assert.equal(after.apiKeys.verify(key), false);
  after.close();
  assert.equal(await w.run('keys'), 2);
});

test('import writes every record, keeping given ids', async (t) => {
  const w = workspace(t);
  const file = join(w.dir, 'devices.json');
  writeFileSync(file, JSON.stringify(demoRecords(Date.now())));
  assert.equal(await w.run('import', file), 0);
  assert.match(w.out.join('\n'), /Imported 13 devices \(3 images\)/);
  const store = w.open();
  t.after(() => store.close());
  assert.equal(store.devices.count(), 13);
  assert.equal(store.devices.get(ids.battery)?.vendor, 'FRONIUS');
  assert.ok(store.deviceImages.get(ids.vehicle));
  assert.ok(store.deviceImages.get(ids.hvac), 'an HVAC unit\'s image is imported as a vehicle\'s');
});

test('a file with a bad record imports nothing and names each problem with its index and field', async (t) => {
  const w = workspace(t);
  const records = demoRecords(Date.now()) as Record<string, unknown>[];
  records.push({ kind: 'battery', userId: 'u', staticData: { vendor: 'ENPHASE', model: 'X' }, chargeState: { stateOfCharge: 140 } });
  records.push({ kind: 'hvac', userId: 'u', staticData: { vendor: 'DAIKIN', model: 'Y' } });
  records.push({ kind: 'meter', id: ids.battery, userId: 'u', staticData: { vendor: 'SMA', model: 'Z' }, extra: 1 });
  const file = join(w.dir, 'devices.json');
  writeFileSync(file, JSON.stringify(records));
  assert.equal(await w.run('import', file), 1);
  const text = w.err.join('\n');
  assert.match(text, /record 13: staticData\.vendor: must be one of FRONIUS, SMA, HUAWEI, TESLA/);
  assert.match(text, /record 13: chargeState\.stateOfCharge: must be at most 100/);
  assert.match(text, /record 14: type: /);
  assert.match(text, /record 15: extra: is not a known field/);
  assert.match(text, /record 15: id: repeats the id of record 0/);
  assert.match(text, /nothing was imported/);
  const store = w.open();
  t.after(() => store.close());
  assert.equal(store.devices.count(), 0);
});

test('a model is optional when a driver reads it from the device (BootNotification, registers), required without a driver', async (t) => {
  const w = workspace(t);
  const file = join(w.dir, 'devices.json');
  writeFileSync(file, JSON.stringify([
    { kind: 'charger', userId: 'u', staticData: { vendor: 'ZAPTEC', name: 'Carport' }, driver: { type: 'ocpp', chargePointId: 'ZAP000777', password: 'a-long-enough-secret' } },
    { kind: 'pvInverter', userId: 'u', staticData: { vendor: 'FRONIUS' }, driver: { type: 'fronius', host: '192.168.1.50' } },
  ]));
  assert.equal(await w.run('import', file), 0, w.err.join('\n'));
  const store = w.open();
  t.after(() => store.close());
  assert.deepEqual(store.devices.all().map((d) => [d.kind, d.model]).sort(), [['charger', null], ['pvInverter', null]]);
  writeFileSync(file, JSON.stringify([{ kind: 'meter', userId: 'u', staticData: { vendor: 'SMA' } }]));
  assert.equal(await w.run('import', file), 1);
  assert.match(w.err.join('\n'), /record 0: staticData\.model: is required for a device without a driver/);
  assert.equal(store.devices.count(), 2);
});

test('importing the same file twice makes no second device: it names the device bound there, changes nothing, and --update updates it in place', async (t) => {
  const w = workspace(t);
  const file = join(w.dir, 'devices.json');
  const inverter = (name: string) => ({ kind: 'pvInverter', userId: 'u', staticData: { vendor: 'FRONIUS', name, model: 'Symo' }, driver: { type: 'fronius', host: '192.168.1.50', port: 502, unitId: 1 } });
  const charger = { kind: 'charger', userId: 'u', staticData: { vendor: 'ZAPTEC', model: 'GO' }, driver: { type: 'ocpp', chargePointId: 'ZAP000778', password: 'a-long-enough-secret' } };
  writeFileSync(file, JSON.stringify([inverter('Roof'), charger]));
  assert.equal(await w.run('import', file), 0, w.err.join('\n'));
  const store = w.open();
  t.after(() => store.close());
  const [first, chargerDevice] = [store.devices.all().find((d) => d.kind === 'pvInverter')!, store.devices.all().find((d) => d.kind === 'charger')!];

  // Again, with a new device in the file too: all or nothing.
  const meter = { kind: 'meter', userId: 'u', staticData: { vendor: 'FRONIUS', model: 'TS 65A-3' }, driver: { type: 'fronius', host: '192.168.1.50', port: 502, unitId: 200 } };
  writeFileSync(file, JSON.stringify([inverter('Roof south'), charger, meter]));
  assert.equal(await w.run('import', file), 1);
  const text = w.err.join('\n');
  assert.match(text, /2 records are bound to devices the hub has already/);
  assert.ok(text.includes(`record 0: ${first.id}  pvInverter FRONIUS "Roof" of u, at fronius, host 192.168.1.50, port 502, unitId 1`), text);
  assert.ok(text.includes(`record 1: ${chargerDevice.id}  charger ZAPTEC of u, at ocpp charge point ZAP000778`), text);
  assert.match(text, /Nothing was imported\. Give --update to update those devices in place\./);
  assert.equal(store.devices.count(), 2);
  assert.equal(store.devices.get(first.id)?.name, 'Roof');

  // The same unit under another kind is another device; another unit at that address too.
  assert.equal(await w.run('import', file, '--update'), 0, w.err.join('\n'));
  assert.match(w.out.join('\n'), /Imported 3 devices \(0 images\), 2 updating the devices bound there already,/);
  assert.ok(w.out.join('\n').includes(`record 0 updated device ${first.id} (bound to it already)`));
  const after = w.open();
  t.after(() => after.close());
  assert.equal(after.devices.count(), 3);
  assert.equal(after.devices.get(first.id)?.name, 'Roof south');
  assert.equal(after.ocpp.credential('ZAP000778')?.deviceId, chargerDevice.id);
});

test('two records of one file bound to the same device are refused, naming the first', async (t) => {
  const w = workspace(t);
  const file = join(w.dir, 'devices.json');
  const inverter = { kind: 'pvInverter', userId: 'u', staticData: { vendor: 'SMA', model: 'STP' }, driver: { type: 'sma', host: '192.168.1.51', port: 502, unitId: 126 } };
  writeFileSync(file, JSON.stringify([inverter, { ...inverter, driver: { ...inverter.driver, host: '192.168.1.51', pollIntervalMs: 5000 } }]));
  assert.equal(await w.run('import', file), 1);
  assert.match(w.err.join('\n'), /record 1: driver: reaches the same pvInverter as record 0 \(same driver and address\)/);
  const store = w.open();
  t.after(() => store.close());
  assert.equal(store.devices.count(), 0);
});

test('import checks a charger binding: only on a vehicle, with the charger\'s id, kept in lower case', async (t) => {
  const w = workspace(t);
  const car = (driver: Record<string, unknown>) => ({ kind: 'vehicle', userId: 'u', driver, staticData: { vendor: 'MERCEDES', model: 'EQE' } });
  const file = join(w.dir, 'devices.json');
  writeFileSync(file, JSON.stringify([
    { kind: 'charger', userId: 'u', driver: { type: 'charger', chargerId: ids.charger }, staticData: { vendor: 'GO_E', model: 'X' } },
    car({ type: 'charger' }),
    car({ type: 'charger', chargerId: 'wallbox-1' }),
    car({ type: 'charger', chargerID: ids.charger }),
  ]));
  assert.equal(await w.run('import', file), 1);
  const text = w.err.join('\n');
  assert.match(text, /record 0: driver\.type: a charger cannot be bound to a charger: "charger" binds a vehicle with no driver of its own/);
  assert.match(text, /record 1: driver\.chargerId: is required/);
  assert.match(text, /record 2: driver\.chargerId: must be a UUID/);
  assert.match(text, /record 3: driver\.chargerID: is not a known field of a charger binding/);
  assert.match(text, /record 3: driver\.chargerId: is required/);

  writeFileSync(file, JSON.stringify([{ ...car({ type: 'charger', chargerId: ids.charger.toUpperCase() }), id: ids.vehicle }]));
  assert.equal(await w.run('import', file), 0);
  const store = w.open();
  t.after(() => store.close());
  assert.deepEqual(store.devices.get(ids.vehicle)?.driver, { type: 'charger', chargerId: ids.charger });
});

test('import refuses a file that is not JSON or not an array', async (t) => {
  const w = workspace(t);
  const file = join(w.dir, 'x.json');
  writeFileSync(file, '{"kind":"battery"}');
  assert.equal(await w.run('import', file), 1);
  assert.match(w.err.join('\n'), /must be a JSON array/);
  writeFileSync(file, '[{');
  assert.equal(await w.run('import', file), 1);
  assert.equal(await w.run('import', join(w.dir, 'missing.json')), 1);
  assert.match(w.err.join('\n'), /ENOENT/);
});

test('image set stores a PNG for a vehicle and refuses other files', async (t) => {
  const w = workspace(t);
  const file = join(w.dir, 'devices.json');
  writeFileSync(file, JSON.stringify(demoRecords(Date.now())));
  await w.run('import', file);
  const png = join(w.dir, 'car.png');
  writeFileSync(png, drawCar([10, 200, 10]));
  assert.equal(await w.run('image', 'set', ids.vehicle, png), 0);
  writeFileSync(join(w.dir, 'car.jpg'), 'not a png at all, not at all');
  assert.equal(await w.run('image', 'set', ids.vehicle, join(w.dir, 'car.jpg')), 1);
  assert.equal(await w.run('image', 'set', ids.unknown, png), 1);
  const store = w.open();
  t.after(() => store.close());
  assert.deepEqual(store.deviceImages.get(ids.vehicle)?.png, drawCar([10, 200, 10]));
  // UUIDs are case-insensitive: the id in capitals names the same vehicle.
  writeFileSync(png, drawCar([200, 10, 10]));
  assert.equal(await w.run('image', 'set', ids.vehicle.toUpperCase(), png), 0);
  assert.deepEqual(store.deviceImages.get(ids.vehicle)?.png, drawCar([200, 10, 10]));
});

test('image set takes an HVAC unit as it takes a vehicle, and refuses a device the API shows no picture of', async (t) => {
  const w = workspace(t);
  const file = join(w.dir, 'devices.json');
  writeFileSync(file, JSON.stringify(demoRecords(Date.now())));
  await w.run('import', file);
  const png = join(w.dir, 'pump.png');
  writeFileSync(png, drawCar([10, 10, 200]));
  assert.equal(await w.run('image', 'set', ids.hvac, png), 0, w.err.join('\n'));
  assert.match(w.out.join('\n'), new RegExp(`Image of HVAC unit ${ids.hvac} set`));
  assert.equal(await w.run('image', 'set', ids.battery, png), 1);
  assert.match(w.err.join('\n'), /No vehicle or HVAC unit with the id or id prefix/);
  const store = w.open();
  t.after(() => store.close());
  assert.deepEqual(store.deviceImages.get(ids.hvac)?.png, drawCar([10, 10, 200]));
  assert.equal(store.deviceImages.get(ids.battery), undefined);
});

test('`npm run hub -- import` works as a real process and exits non-zero on a bad file', async (t) => {
  const w = workspace(t);
  const file = join(w.dir, 'bad.json');
  writeFileSync(file, JSON.stringify([{ kind: 'nope' }]));
  const run = promisify(execFile);
  const env = { ...process.env, HUB_DATA_DIR: w.dir };
  await assert.rejects(run(process.execPath, ['--import', 'tsx', 'src/cli/hub.ts', 'import', file], { env }), (err: { code: number; stderr: string }) => {
    assert.equal(err.code, 1);
    assert.match(err.stderr, /record 0: kind: must be one of/);
    return true;
  });
  writeFileSync(file, JSON.stringify(demoRecords(Date.now())));
  const ok = await run(process.execPath, ['--import', 'tsx', 'src/cli/hub.ts', 'import', file], { env });
  assert.match(ok.stdout, /Imported 13 devices/);
});

test('import keeps ids in lower case, whatever case the file gives; the same id in two cases is one device', async (t) => {
  const w = workspace(t);
  const records = demoRecords(Date.now()) as Record<string, unknown>[];
  const battery = records.find((r) => r['id'] === ids.battery)!;
  battery['id'] = ids.battery.toUpperCase();
  battery['locationId'] = String(battery['locationId']).toUpperCase();
  const vehicle = records.find((r) => r['id'] === ids.vehicle)!;
  vehicle['id'] = ids.vehicle.toUpperCase();
  const file = join(w.dir, 'devices.json');
  writeFileSync(file, JSON.stringify(records));
  assert.equal(await w.run('import', file), 0);
  const store = w.open();
  t.after(() => store.close());
  const stored = store.devices.get(ids.battery);
  assert.ok(stored, 'found by its lower-case id');
  assert.equal(stored.locationId, String(battery['locationId']).toLowerCase());
  assert.equal(store.devices.get(ids.battery.toUpperCase()), undefined, 'not kept as given');
  assert.ok(store.deviceImages.get(ids.vehicle), 'the image follows the lower-case id');

  const twice = join(w.dir, 'twice.json');
  writeFileSync(twice, JSON.stringify([{ ...battery, id: ids.battery2 }, { ...battery, id: ids.battery2.toUpperCase() }]));
  assert.equal(await w.run('import', twice), 1);
  assert.match(w.err.join('\n'), /record 1: id: repeats the id of record 0/);
  const meter = join(w.dir, 'meter.json');
  writeFileSync(meter, JSON.stringify([{ kind: 'meter', id: ids.battery.toUpperCase(), userId: 'u', staticData: { vendor: 'SMA', model: 'Z' } }]));
  assert.equal(await w.run('import', meter), 1);
  assert.match(w.err.join('\n'), /record 0: id: belongs to an existing battery/);
});

test('an import that would replace existing devices lists their ids and refuses without --replace', async (t) => {
  const w = workspace(t);
  const records = demoRecords(Date.now()) as Record<string, unknown>[];
  const file = join(w.dir, 'devices.json');
  writeFileSync(file, JSON.stringify(records));
  assert.equal(await w.run('import', file), 0);
  // The README's example: a battery of another household with the demo battery's id.
  const battery = { ...records.find((r) => r['id'] === ids.battery)!, userId: 'household-2', staticData: { vendor: 'SMA', model: 'Other' } };
  const fresh = { ...battery, id: undefined };
  const takeover = join(w.dir, 'takeover.json');
  writeFileSync(takeover, JSON.stringify([fresh, battery]));
  w.err.length = 0;
  assert.equal(await w.run('import', takeover), 1);
  assert.match(w.err.join('\n'), new RegExp(`1 record has the id of an existing device, which importing would replace:[^]*${ids.battery}  battery FRONIUS[^]*--replace`));
  const store = w.open();
  t.after(() => store.close());
  assert.equal(store.devices.get(ids.battery)?.userId, 'demo-household', 'nothing was taken over');
  assert.equal(store.devices.count(), records.length, 'nothing was imported');
  w.out.length = 0;
  assert.equal(await w.run('import', takeover, '--replace'), 0);
  assert.match(w.out.join('\n'), /Imported 2 devices \(0 images\), 1 of them replacing existing devices,/);
  store.sync();
  assert.equal(store.devices.get(ids.battery)?.userId, 'household-2');
  assert.equal(await w.run('import', '--replace'), 2);
});
