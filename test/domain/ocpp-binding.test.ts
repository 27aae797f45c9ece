// The OCPP binding in the import, the export and the configuration file: checked alike, the password
// hashed into the store's credentials and never kept in the binding; a plain export leaves out even
// its hash (guessable offline), which travels only sealed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../src/store/store.ts';
import { ImportError, prepareImport } from '../../src/domain/import.ts';
import { sealableSecrets, toImportRecord } from '../../src/domain/export.ts';
import { loadConfig, ConfigError } from '../../src/config.ts';
import { applyConfiguredDevices, configuredId } from '../../src/configured-devices.ts';
import { NO_PASSWORD, generatePassword, hashPassword, verifyPassword } from '../../src/domain/ocpp-password.ts';
import { silentLogger } from '../../src/log.ts';
import { tempFile } from '../support/files.ts';

const CHARGER = '0c000000-0000-4000-8000-00000000c001';
const OTHER = '0c000000-0000-4000-8000-00000000c002';
const PASSWORD = 'correct-horse-battery-1';

function charger(id: string, driver: Record<string, unknown>, kind = 'charger') {
  return { kind, id, userId: 'household-1', staticData: { vendor: kind === 'charger' ? 'ZAPTEC' : 'BMW', model: 'Go' }, driver };
}

function importInto(store: Store, records: unknown[]): void {
  const prepared = prepareImport(records, 1000, (id) => store.devices.get(id)?.kind, (cp) => store.ocpp.credential(cp)?.deviceId);
  store.importDevices(prepared.devices, prepared.images, 1000, prepared.ocppCredentials);
}

function problemsOf(store: Store, records: unknown[]): string[] {
  try {
    importInto(store, records);
  } catch (err) {
    if (err instanceof ImportError) return err.problems.map((p) => `${p.index} ${p.field}: ${p.message}`);
    throw err;
  }
  return [];
}

test('an imported OCPP charger keeps its charge point id in the binding and only a hash of its password', async (t) => {
  const store = Store.open(':memory:');
  t.after(() => store.close());
  importInto(store, [charger(CHARGER, { type: 'ocpp', chargePointId: 'ZAP-001', password: PASSWORD, idTags: ['card-1'] })]);
  const device = store.devices.get(CHARGER)!;
  assert.deepEqual(device.driver, { type: 'ocpp', chargePointId: 'ZAP-001', idTags: ['card-1'] });
  const credential = store.ocpp.credential('ZAP-001')!;
  assert.equal(credential.deviceId, CHARGER);
  assert.doesNotMatch(credential.passwordHash, new RegExp(PASSWORD));
  assert.equal(await verifyPassword(PASSWORD, credential.passwordHash), true);
  assert.equal(await verifyPassword(`${PASSWORD}x`, credential.passwordHash), false);
  // Nothing in the database holds the password in clear.
  const dump = JSON.stringify(store.db.prepare('SELECT * FROM devices').all()) + JSON.stringify(store.db.prepare('SELECT * FROM ocpp_credentials').all());
  assert.doesNotMatch(dump, new RegExp(PASSWORD));

  // A plain export has neither the password nor its hash: on another hub the charger waits for its password.
  const exported = toImportRecord(device);
  assert.deepEqual(exported['driver'], { type: 'ocpp', chargePointId: 'ZAP-001', idTags: ['card-1'] });
  assert.equal(exported['isOnline'], false);
  const other = Store.open(':memory:');
  t.after(() => other.close());
  importInto(other, [exported]);
  assert.equal(other.ocpp.credential('ZAP-001')!.passwordHash, NO_PASSWORD);
  assert.equal(await verifyPassword(PASSWORD, NO_PASSWORD), false);
  // Imported again onto the hub that has it, the charger keeps its password.
  importInto(store, [exported]);
  assert.equal(store.ocpp.credential('ZAP-001')!.passwordHash, credential.passwordHash);
  // The hash travels sealed, and an import takes it back as it is.
  const sealed = sealableSecrets(device, credential.passwordHash)!;
  assert.deepEqual(sealed, { binding: { type: 'ocpp', chargePointId: 'ZAP-001', idTags: ['card-1'] }, secrets: { passwordHash: credential.passwordHash } });
  const third = Store.open(':memory:');
  t.after(() => third.close());
  importInto(third, [{ ...exported, driver: { ...sealed.binding, ...sealed.secrets } }]);
  assert.equal(third.ocpp.credential('ZAP-001')!.passwordHash, credential.passwordHash);
});

test('import checks an OCPP binding: on a charger, a usable id, a password of 16 to 40 characters, one charger per id; no message repeats a password', (t) => {
  const store = Store.open(':memory:');
  t.after(() => store.close());
  const secret = 'short-secret';
  const problems = problemsOf(store, [
    charger(CHARGER, { type: 'ocpp', chargePointId: 'has space', password: secret }),
    charger(OTHER, { type: 'ocpp', chargePointId: 'ZAP-002', password: PASSWORD, passwordHash: 'x', colour: 'red' }),
    charger('0c000000-0000-4000-8000-00000000e001', { type: 'ocpp', chargePointId: 'ZAP-003', password: PASSWORD }, 'vehicle'),
    charger('0c000000-0000-4000-8000-00000000c003', { type: 'ocpp', password: PASSWORD, idTags: ['x'.repeat(21)], freeCharging: 'yes' }),
  ]);
  assert.deepEqual(problems, [
    '0 driver.chargePointId: must be 1 to 48 letters, digits or . _ ~ - (the OCPP 1.6 security whitepaper\'s identity)',
    '0 driver.password: must be 16 to 40 printable ASCII characters without spaces (the OCPP 1.6 security whitepaper\'s AuthorizationKey)',
    '1 driver.passwordHash: give password or passwordHash, not both',
    '1 driver.colour: is not a known field of an ocpp binding (it has type, chargePointId, password, passwordHash, idTags, freeCharging)',
    '2 driver.type: a vehicle cannot be bound over OCPP: "ocpp" binds a charger',
    '3 driver.chargePointId: is required: the charger\'s identity, the last segment of ws(s)://<hub>/ocpp/{chargePointId}',
    '3 driver.idTags: must be a list of at most 100 idTags, each 1 to 20 printable ASCII characters (OCPP 1.6 IdToken)',
    '3 driver.freeCharging: must be true or false',
  ]);
  assert.ok(problems.every((p) => !p.includes(secret)));

  importInto(store, [charger(CHARGER, { type: 'ocpp', chargePointId: 'ZAP-001', password: PASSWORD })]);
  assert.deepEqual(problemsOf(store, [
    charger(OTHER, { type: 'ocpp', chargePointId: 'ZAP-001', password: PASSWORD }),
  ]), [`0 driver.chargePointId: is the charge point id of charger ${CHARGER} already`]);
  assert.deepEqual(problemsOf(store, [
    charger(OTHER, { type: 'ocpp', chargePointId: 'ZAP-009', password: PASSWORD }),
    charger('0c000000-0000-4000-8000-00000000c003', { type: 'ocpp', chargePointId: 'ZAP-009', password: PASSWORD }),
  ]), ['1 driver.chargePointId: repeats the charge point id of record 0']);
  // Re-importing the same charger with a new password replaces its hash.
  const before = store.ocpp.credential('ZAP-001')!.passwordHash;
  importInto(store, [charger(CHARGER, { type: 'ocpp', chargePointId: 'ZAP-001', password: generatePassword() })]);
  assert.notEqual(store.ocpp.credential('ZAP-001')!.passwordHash, before);
});

test('a deleted OCPP charger loses its credentials, so it can no longer connect', (t) => {
  const store = Store.open(':memory:');
  t.after(() => store.close());
  importInto(store, [charger(CHARGER, { type: 'ocpp', chargePointId: 'ZAP-001', passwordHash: hashPassword(PASSWORD) })]);
  store.deleteDevice(store.devices.get(CHARGER)!, 2000);
  assert.equal(store.ocpp.credential('ZAP-001'), undefined);
});

test('the configuration file declares OCPP chargers, checked like an import; a restart with the same password rewrites nothing', async (t) => {
  const file = tempFile(t, 'hub.yaml', `
devices:
  - kind: charger
    userId: household-1
    vendor: EASEE
    driver: { type: ocpp, chargePointId: EH123456, password: ${PASSWORD}, freeCharging: true }
`);
  const config = loadConfig({ HUB_CONFIG: file });
  const store = Store.open(':memory:');
  t.after(() => store.close());
  assert.deepEqual(applyConfiguredDevices(store, config, 1000, silentLogger()), { added: 1, updated: 0, deleted: 0 });
  const id = configuredId(config.devices[0]!, config);
  assert.deepEqual(store.devices.get(id)!.driver, { type: 'ocpp', chargePointId: 'EH123456', freeCharging: true });
  const hash = store.ocpp.credential('EH123456')!.passwordHash;
  assert.equal(await verifyPassword(PASSWORD, hash), true);
  assert.deepEqual(applyConfiguredDevices(store, config, 2000, silentLogger()), { added: 0, updated: 0, deleted: 0 });
  assert.equal(store.ocpp.credential('EH123456')!.passwordHash, hash, 'kept while the password matches');

  const bad = tempFile(t, 'bad.yaml', `
devices:
  - kind: charger
    userId: household-1
    vendor: EASEE
    driver: { type: ocpp, chargePointId: EH123456, password: tooshort }
  - kind: charger
    userId: household-2
    vendor: ZAPTEC
    driver: { type: ocpp, chargePointId: EH123456, password: ${PASSWORD} }
`);
  assert.throws(() => loadConfig({ HUB_CONFIG: bad }), (err: unknown) => {
    assert.ok(err instanceof ConfigError);
    const text = String((err as Error).message);
    assert.match(text, /devices\[0\]\.driver\.password: must be 16 to 40 printable ASCII characters/);
    assert.match(text, /devices\[1\]\.driver\.chargePointId: is the charge point id of devices\[0\] already/);
    assert.doesNotMatch(text, /tooshort/);
    return true;
  });
});
