// One identity per device, defaults resolved (issue 34), on the paths that add devices from the
// command line and the configuration file: `hub import`, the save step of `hub devices add` (the
// same for every transport) and declared devices. For every driver family, a binding with the
// driver's defaults left out and the same binding written out (or spelled otherwise) are one device:
// refused, naming the device there already (its id and name). Pairing: test/api/pairing.test.ts and
// test/integration/pairing-go-e.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runHub } from '../../src/cli/hub.ts';
import { saveReadDevice } from '../../src/cli/save-read.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { applyConfiguredDevices } from '../../src/configured-devices.ts';
import { createLogger, silentLogger } from '../../src/log.ts';
import { Store } from '../../src/store/store.ts';
import { prepareImport } from '../../src/domain/import.ts';
import { tempFile } from '../support/files.ts';
import { IDENTITY_CASES, identityRecord, type IdentityCase } from '../support/identity-cases.ts';
import { simOn } from '../runtime/support.ts';
import { SiteModel } from '../../src/sim/site-model.ts';
import { sunspecInverter } from '../../src/sim/sunspec-sims.ts';

function workspace(t: { after: (fn: () => void) => void }) {
  const dir = mkdtempSync(join(tmpdir(), 'hub-identity-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const out: string[] = [];
  const err: string[] = [];
  const run = (...argv: string[]) => runHub(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, { HUB_DATA_DIR: dir });
  const file = (records: unknown[]) => {
    const path = join(dir, `records-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, JSON.stringify(records));
    return path;
  };
  const open = () => Store.open(join(dir, 'hub.db'));
  return { out, err, run, file, open };
}

/** The one device of the case, imported for household-A, as the store has it. */
async function known(w: ReturnType<typeof workspace>, c: IdentityCase): Promise<string> {
  assert.equal(await w.run('import', w.file([identityRecord(c, 'household-A', c.omitted)])), 0, w.err.join('\n'));
  const store = w.open();
  try {
    return store.devices.all()[0]!.id;
  } finally {
    store.close();
  }
}

for (const c of IDENTITY_CASES) {
  test(`import (${c.family}): ${c.name}: refused naming the device there, --update updates it; two such records in one file are refused`, async (t) => {
    const w = workspace(t);
    const id = await known(w, c);
    for (const spelling of c.spellings) {
      w.err.length = 0;
      assert.equal(await w.run('import', w.file([identityRecord(c, 'household-B', spelling, 'Second')])), 1, JSON.stringify(spelling));
      const said = w.err.join('\n');
      assert.match(said, new RegExp(`record 0: ${id}  ${c.kind} ${c.vendor} "Known device" of household-A`), said);
      assert.match(said, /Nothing was imported/);
    }
    assert.equal(await w.run('import', '--update', w.file([identityRecord(c, 'household-A', c.spellings[0]!, 'Renamed')])), 0, w.err.join('\n'));
    assert.equal(await w.run('import', w.file([identityRecord(c, 'household-B', c.elsewhere, 'Elsewhere')])), 0, w.err.join('\n'));
    const store = w.open();
    t.after(() => store.close());
    assert.deepEqual(store.devices.all().map((d) => d.name).sort(), ['Elsewhere', 'Renamed']);
    assert.equal(store.devices.get(id)?.name, 'Renamed');

    // Into an empty hub: the file itself names one device twice.
    const fresh = workspace(t);
    const records = [c.omitted, ...c.spellings].map((binding) => identityRecord(c, 'household-C', binding));
    assert.equal(await fresh.run('import', fresh.file(records)), 1);
    for (let index = 1; index < records.length; index++) {
      assert.match(fresh.err.join('\n'), new RegExp(`record ${index}: driver(\\.chargePointId)?: (reaches the same ${c.kind} as|repeats the charge point id of) record 0`));
    }
  });

  test(`devices add (${c.family}): ${c.name}: the device read is the one there, named, and nothing changes`, async (t) => {
    const w = workspace(t);
    const id = await known(w, c);
    const store = w.open();
    t.after(() => store.close());
    for (const spelling of c.spellings) {
      const err: string[] = [];
      const io = { out: () => undefined, err: (line: string) => err.push(line) };
      const saved = saveReadDevice(store, {
        kind: c.kind, userId: 'household-B', binding: spelling, staticData: { vendor: c.vendor, model: 'Read now' }, state: {},
        ...(c.hvacType ? { hvacType: c.hvacType } : {}),
      }, io);
      assert.equal(saved, false, JSON.stringify(spelling));
      assert.match(err.join('\n'), new RegExp(`this ${c.kind} is device ${id} already \\(${c.vendor} "Known device" of household-A`));
    }
    assert.equal(store.devices.count(), 1);
  });
}

const MQTT = 'mqtt:\n  url: mqtt://127.0.0.1:1883\n';

/** A configuration file declaring the case's device once per binding, as YAML's JSON form. */
function declaring(c: IdentityCase, userId: string, ...bindings: IdentityCase['omitted'][]): string {
  const devices = bindings.map((driver, i) => ({
    kind: c.kind, userId, vendor: c.vendor, name: `Declared ${i}`, driver, ...(c.hvacType ? { type: c.hvacType } : {}),
  }));
  return `${MQTT}devices: ${JSON.stringify(devices)}\n`;
}

for (const c of IDENTITY_CASES.filter((k) => k.declarable)) {
  test(`configuration (${c.family}): ${c.name}: declared twice is a problem; a device the hub has is that device, another household's is left alone`, (t) => {
    // The spellings the file takes at all (it refuses a port written as text, a VIN in lower case…).
    const declarable = c.spellings.filter((spelling) => {
      try {
        loadConfig({ HUB_CONFIG: tempFile(t, 'hub.yaml', declaring(c, 'household-A', spelling)) });
        return true;
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        return false;
      }
    });
    assert.ok(declarable.length > 0, 'at least one spelling can be declared');
    for (const spelling of declarable) {
      assert.throws(() => loadConfig({ HUB_CONFIG: tempFile(t, 'hub.yaml', declaring(c, 'household-A', c.omitted, spelling)) }), (err: ConfigError) => {
        assert.ok(err instanceof ConfigError, String(err));
        assert.match(err.message, /devices\[1\]: is the same device as devices\[0\]/);
        return true;
      }, JSON.stringify(spelling));
    }
    // Two devices where the addresses differ are two.
    loadConfig({ HUB_CONFIG: tempFile(t, 'hub.yaml', declaring(c, 'household-A', c.omitted, c.elsewhere)) });

    for (const spelling of declarable) {
      const store = Store.open(':memory:');
      t.after(() => store.close());
      const lines: Record<string, unknown>[] = [];
      const log = createLogger('info', { write: (text: string) => void lines.push(JSON.parse(text) as Record<string, unknown>) });
      importInto(store, [identityRecord(c, 'household-A', c.omitted)]);
      const id = store.devices.all()[0]!.id;

      const others = loadConfig({ HUB_CONFIG: tempFile(t, 'hub.yaml', declaring(c, 'household-B', spelling)) });
      assert.deepEqual(applyConfiguredDevices(store, others, 2000, log), { added: 0, updated: 0, deleted: 0 });
      assert.equal(store.devices.count(), 1);
      assert.equal(store.devices.get(id)?.userId, 'household-A');
      const warning = lines.find((line) => line['existing'] === id);
      assert.equal(warning?.['existingName'], 'Known device', 'the warning names the device there');

      const own = loadConfig({ HUB_CONFIG: tempFile(t, 'hub.yaml', declaring(c, 'household-A', spelling)) });
      assert.deepEqual(applyConfiguredDevices(store, own, 3000, silentLogger()), { added: 0, updated: 1, deleted: 0 });
      assert.equal(store.devices.count(), 1);
      assert.equal(store.devices.get(id)?.name, 'Declared 0', 'the declared device is the one there, updated in place');
      // A restart with the same file changes nothing and adds nothing.
      assert.deepEqual(applyConfiguredDevices(store, own, 4000, silentLogger()), { added: 0, updated: 0, deleted: 0 });
    }
  });
}

for (const c of IDENTITY_CASES.filter((k) => k.declarable)) {
  test(`configuration (${c.family}): ${c.name}: a declared device deleted stays deleted when the file spells its binding otherwise`, (t) => {
    const store = Store.open(':memory:');
    t.after(() => store.close());
    const first = loadConfig({ HUB_CONFIG: tempFile(t, 'hub.yaml', declaring(c, 'household-A', c.omitted)) });
    assert.deepEqual(applyConfiguredDevices(store, first, 1000, silentLogger()), { added: 1, updated: 0, deleted: 0 });
    store.deleteDevice(store.devices.all()[0]!, 2000);
    for (const spelling of c.spellings) {
      let spelled;
      try {
        spelled = loadConfig({ HUB_CONFIG: tempFile(t, 'hub.yaml', declaring(c, 'household-A', spelling)) });
      } catch (err) {
        if (err instanceof ConfigError) continue; // a spelling the file does not take at all
        throw err;
      }
      assert.deepEqual(applyConfiguredDevices(store, spelled, 3000, silentLogger()), { added: 0, updated: 0, deleted: 1 }, JSON.stringify(spelling));
      assert.equal(store.devices.count(), 0);
    }
  });
}

test('a database holding two devices that are one keeps both, and a start names them in a warning', async (t) => {
  const c = IDENTITY_CASES.find((k) => k.omitted.type === 'go-e')!;
  const store = Store.open(':memory:');
  t.after(() => store.close());
  // As the hub before issue 34 let them in: one bound without the default prefix, one with it.
  importInto(store, [identityRecord(c, 'household-A', c.omitted, 'A'), identityRecord(c, 'household-B', c.spellings[0]!, 'B')]);
  assert.equal(store.devices.count(), 2);
  const lines: Record<string, unknown>[] = [];
  const log = createLogger('info', { write: (text: string) => void lines.push(JSON.parse(text) as Record<string, unknown>) });
  applyConfiguredDevices(store, loadConfig({ HUB_CONFIG: tempFile(t, 'hub.yaml', `${MQTT}devices: []\n`) }), 1000, log);
  const [a, b] = store.devices.all();
  const warning = lines.find((line) => line['msg'] === 'two stored devices reach the same device (same kind and address); both are kept: delete one');
  assert.ok(warning, JSON.stringify(lines));
  assert.deepEqual([warning['device'], warning['sameAs']].sort(), [a!.id, b!.id].sort());
  assert.equal(store.devices.count(), 2);
});

/** Imports records straight into a store, their bindings compared as written (as before issue 34). */
function importInto(store: Store, records: unknown[]): void {
  const prepared = prepareImport(records, 1000, (id) => store.devices.get(id)?.kind, (cp) => store.ocpp.credential(cp)?.deviceId);
  store.importDevices(prepared.devices, prepared.images, 1000, prepared.ocppCredentials);
}

test('hub devices add on a real Modbus peer: the SMA imported as LOCALHOST without its unit id is the one found at 127.0.0.1:PORT unit 126', async (t) => {
  const site = new SiteModel({ now: () => Date.parse('2026-06-21T12:00:00Z') });
  const sim = await simOn(t, { 126: sunspecInverter(site, { manufacturer: 'SMA', model: 'STP 8.0' }) });
  const w = workspace(t);
  const record = { kind: 'pvInverter', userId: 'carol', driver: { type: 'sma', host: 'LOCALHOST', port: sim.port }, staticData: { vendor: 'SMA', name: 'Roof', model: 'STP 8.0' } };
  assert.equal(await w.run('import', w.file([record])), 0, w.err.join('\n'));
  const store = w.open();
  const id = store.devices.all()[0]!.id;
  store.close();
  w.err.length = 0;
  assert.equal(await w.run('devices', 'add', '--user', 'dave', '--host', `127.0.0.1:${sim.port}`), 1, w.err.join('\n'));
  assert.match(w.err.join('\n'), new RegExp(`this pvInverter is device ${id} already \\(SMA "Roof" of carol, at sma, host 127\\.0\\.0\\.1, port ${sim.port}, unitId 126\\): nothing changed`));
  const after = w.open();
  assert.equal(after.devices.count(), 1);
  // Deleted, it stays deleted, whichever way its address is written.
  after.deleteDevice(after.devices.get(id)!, Date.now());
  after.close();
  w.err.length = 0;
  assert.equal(await w.run('devices', 'add', '--user', 'dave', '--host', `127.0.0.1:${sim.port}`), 1);
  assert.match(w.err.join('\n'), /a device at this address was deleted before/);
});
