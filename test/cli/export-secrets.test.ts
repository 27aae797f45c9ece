// No device secret travels in an export in the clear: `hub export` leaves every one out (an Envoy's
// token, a Powerwall's password, a Daikin BRP072C's uuid, a car's cloud login, a password in a
// binding no definition describes, an OCPP charger's password hash), `hub import` gives
// the devices back offline with what to do, `hub devices secret` gives a secret back; `hub export
// --with-secrets` seals them with a passphrase, which `hub import` needs to open them again.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runHub } from '../../src/cli/hub.ts';
import { Store } from '../../src/store/store.ts';
import { prepareImport } from '../../src/domain/import.ts';
import { verifyPassword } from '../../src/domain/ocpp-password.ts';

const ENVOY = '00000000-0000-4000-8000-00000000a001';
const POWERWALL = '00000000-0000-4000-8000-00000000a002';
const DAIKIN = '00000000-0000-4000-8000-00000000a003';
const CHARGER = '00000000-0000-4000-8000-00000000a004';
const BMW = '00000000-0000-4000-8000-00000000a005';
const VOLVO = '00000000-0000-4000-8000-00000000a006';
const HEAT_PUMP = '00000000-0000-4000-8000-00000000a007';
const INVERTER = '00000000-0000-4000-8000-00000000a008';
const BRP069 = '00000000-0000-4000-8000-00000000a009';

const SECRET = {
  envoyToken: 'eyJhbGciOiJFUzI1NiJ9.eyJhdWQiOiJlbnZveS1zZWNyZXQifQ.c2lnLXNlY3JldA',
  powerwallPassword: 'PW-pass-9f3k2',
  daikinUuid: '0f1e2d3c4b5a69788796a5b4c3d2e1f0',
  ocppPassword: 'ocpp-password-7c1d9e2f',
  bmwRefresh: 'bmw-refresh-token-5x8q',
  volvoRefresh: 'volvo-refresh-token-3m2n',
  volvoClientSecret: 'volvo-client-secret-8b1v',
  volvoApiKey: 'volvo-vcc-api-key-4t6y',
  mqttPassword: 'mqtt-binding-password-2w9e',
};
const TLS = { sha256: 'AB'.repeat(32), pem: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' };
const PASSPHRASE = 'correct horse battery staple';

function record(kind: string, id: string, vendor: string, driver: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { kind, id, userId: 'household-1', isOnline: true, lastUpdated: '2026-11-01T00:00:00Z', staticData: { vendor, name: `${vendor} ${kind}`, model: 'test' }, driver, ...extra };
}

const RECORDS = [
  record('pvInverter', ENVOY, 'ENPHASE', { type: 'enphase-envoy', host: '192.168.1.30', port: 443, token: SECRET.envoyToken, tls: TLS }),
  record('battery', POWERWALL, 'TESLA', { type: 'tesla-powerwall', host: '192.168.1.31', port: 443, email: 'owner@example.com', password: SECRET.powerwallPassword, tls: TLS }, { staticData: { vendor: 'TESLA', name: 'Powerwall', model: 'test', batteryCapacity: 13.5 } }),
  // A BRP072C: the Daikin adapter reached over HTTPS with its registered uuid.
  record('hvac', DAIKIN, 'DAIKIN', { type: 'daikin-brp069', host: '192.168.1.32', scheme: 'https', uuid: SECRET.daikinUuid, tls: TLS }, { type: 'AC' }),
  record('charger', CHARGER, 'EASEE', { type: 'ocpp', chargePointId: 'EH000001', password: SECRET.ocppPassword }),
  record('vehicle', BMW, 'BMW', { type: 'bmw-cardata', clientId: 'client-1', vin: 'WBY11HH0000000001', gcid: 'gcid-1', refreshToken: SECRET.bmwRefresh }),
  record('vehicle', VOLVO, 'VOLVO', { type: 'volvo', vin: 'YV1XZK9V0R0000001', clientId: 'app', clientSecret: SECRET.volvoClientSecret, vccApiKey: SECRET.volvoApiKey, refreshToken: SECRET.volvoRefresh }),
  record('hvac', HEAT_PUMP, 'DAIKIN', { type: 'mqtt-generic', topicPrefix: 'heat/pump', password: SECRET.mqttPassword }, { type: 'HEATING_CIRCUIT' }),
  record('pvInverter', INVERTER, 'FRONIUS', { type: 'fronius', host: '192.168.1.50', unitId: 1 }),
];

function workspace(t: TestContext, env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'hub-export-secrets-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const out: string[] = [];
  const err: string[] = [];
  const run = (...argv: string[]) => {
    out.length = 0;
    err.length = 0;
    return runHub(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, { HUB_DATA_DIR: dir, ...env });
  };
  const open = () => Store.open(join(dir, 'hub.db'));
  const file = (name: string, text?: string) => {
    const path = join(dir, name);
    if (text !== undefined) writeFileSync(path, text);
    return path;
  };
  return { dir, out, err, run, open, file };
}

/** A hub holding one device of each kind that has a secret (and one without). */
function seeded(t: TestContext, env: Record<string, string> = {}) {
  const w = workspace(t, env);
  const store = w.open();
  const now = Date.now();
  const prepared = prepareImport(RECORDS, now, () => undefined);
  store.importDevices(prepared.devices, prepared.images, now, prepared.ocppCredentials);
  store.close();
  return w;
}

function assertNoSecret(text: string): void {
  for (const [what, value] of Object.entries(SECRET)) assert.ok(!text.includes(value), `${what} is in the export`);
}

function driverOf(w: ReturnType<typeof workspace>, id: string) {
  const store = w.open();
  try {
    return store.devices.get(id);
  } finally {
    store.close();
  }
}

test('an export holds no device secret; the import gives every device back, those without their secret offline and saying what to do', async (t) => {
  const a = seeded(t);
  const exported = a.file('devices.json');
  assert.equal(await a.run('export', exported), 0, a.err.join('\n'));
  assert.match(a.out.join('\n'), /Exported 8 devices .*; 7 of them without their secrets/);
  const text = readFileSync(exported, 'utf8');
  assertNoSecret(text);
  const records = JSON.parse(text) as { id: string; isOnline: boolean; driver: Record<string, unknown> }[];
  const byId = new Map(records.map((r) => [r.id, r]));
  // What is no secret travels: the address, the pinned certificate, the Powerwall's email, the car's client id.
  assert.deepEqual(byId.get(ENVOY)!.driver, { type: 'enphase-envoy', host: '192.168.1.30', port: 443, tls: TLS });
  assert.deepEqual(byId.get(POWERWALL)!.driver, { type: 'tesla-powerwall', host: '192.168.1.31', port: 443, email: 'owner@example.com', tls: TLS });
  assert.deepEqual(byId.get(HEAT_PUMP)!.driver, { type: 'mqtt-generic', topicPrefix: 'heat/pump' });
  // Not even the OCPP charger's password hash (scrypt at N=2^12: an installer's password is guessable offline).
  assert.deepEqual(byId.get(CHARGER)!.driver, { type: 'ocpp', chargePointId: 'EH000001' });
  assert.doesNotMatch(text, /scrypt\$/);
  // A device without its secret cannot be reached on the new hub: it is exported offline.
  for (const id of [ENVOY, POWERWALL, DAIKIN, BMW, VOLVO, HEAT_PUMP, CHARGER]) assert.equal(byId.get(id)!.isOnline, false, id);
  assert.equal(byId.get(INVERTER)!.isOnline, true);
  // Standard output too.
  const written: string[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string) => written.push(chunk) > 0) as typeof process.stdout.write;
  try {
    assert.equal(await a.run('export', '-'), 0);
  } finally {
    process.stdout.write = write;
  }
  assertNoSecret(written.join(''));

  const b = workspace(t);
  assert.equal(await b.run('import', exported), 0, b.err.join('\n'));
  assert.match(b.out.join('\n'), /Imported 8 devices/);
  const store = b.open();
  assert.equal(store.devices.all().length, 8);
  assert.equal(store.devices.get(ENVOY)!.isOnline, false);
  assert.equal(store.ocpp.credentialOfDeviceId(CHARGER)?.chargePointId, 'EH000001');
  store.close();
  // The listing names each device that waits for a secret, and the command that gives it.
  assert.equal(await b.run('devices', 'list'), 0);
  const listed = b.out.join('\n');
  assert.match(listed, new RegExp(`${ENVOY}: no token in its binding \\(an export leaves secrets out\\): give it with \`npm run hub -- devices secret ${ENVOY} token\` \\(installed: \`sudo home-energy-hub devices secret ${ENVOY} token\`\\)`));
  assert.match(listed, new RegExp(`${POWERWALL}: no password in its binding .*hub devices secret ${POWERWALL} password`));
  assert.match(listed, new RegExp(`${BMW}: no login to its maker's cloud on this hub: a new login is due`));
  assert.match(listed, new RegExp(`${VOLVO}: no login to its maker's cloud`));
  assert.match(listed, new RegExp(`${CHARGER}: no password \\(an export leaves it out\\): give it with \`hub devices secret ${CHARGER} password\``));
  // The BRP069's uuid is optional (a BRP072C's key): nothing to wait for.
  assert.doesNotMatch(listed, new RegExp(`${DAIKIN}:`));

  // The token given again, from a file (never the command line); a value that does not look right is refused.
  assert.equal(await b.run('devices', 'secret', ENVOY, 'token', '--from-file', b.file('bad', 'not-a-jwt\n')), 1);
  assert.match(b.err.join('\n'), /setting "token" does not look right .*; nothing changed/);
  assert.ok(!b.err.join('\n').includes('not-a-jwt'));
  assert.equal(await b.run('devices', 'secret', ENVOY, 'password', '--from-file', b.file('x', 'x\n')), 2);
  assert.match(b.err.join('\n'), /has no secret "password"; its secrets: token/);
  assert.equal(await b.run('devices', 'secret', ENVOY.slice(0, 36), 'token', '--from-file', b.file('token', `${SECRET.envoyToken}\n`)), 0, b.err.join('\n'));
  assert.match(b.out.join('\n'), new RegExp(`device ${ENVOY} has its token now`));
  assert.equal(driverOf(b, ENVOY)!.driver!['token'], SECRET.envoyToken);
  assert.equal(await b.run('devices', 'list'), 0);
  assert.doesNotMatch(b.out.join('\n'), new RegExp(`${ENVOY}:`));
  assert.ok(!b.out.join('\n').includes(SECRET.envoyToken), 'the listing shows no token');
  // The OCPP charger's password, from standard input or a file; one that breaks the OCPP rule is refused.
  assert.equal(await b.run('devices', 'secret', CHARGER, 'password', '--from-file', b.file('short', 'short\n')), 1);
  assert.match(b.err.join('\n'), /the password must be 16 to 40 printable ASCII characters .*; nothing changed/);
  assert.equal(await b.run('devices', 'secret', CHARGER, 'password', '--from-file', b.file('ocpp', `${SECRET.ocppPassword}-long\n`)), 0, b.err.join('\n'));
  assert.match(b.out.join('\n'), new RegExp(`charger ${CHARGER} \\(charge point EH000001\\) has its password now`));
  const afterSecret = b.open();
  const hash = afterSecret.ocpp.credentialOfDeviceId(CHARGER)!.passwordHash;
  afterSecret.close();
  assert.equal(await verifyPassword(`${SECRET.ocppPassword}-long`, hash), true);
  // A Daikin uuid: 32 hex digits (as pydaikin sends it), and only for a BRP072C over HTTPS.
  assert.equal(await b.run('devices', 'secret', DAIKIN, 'uuid', '--from-file', b.file('any', 'any text\n')), 1);
  assert.match(b.err.join('\n'), /setting "uuid" does not look right .*32 hex digits.*; nothing changed/);
  // A BRP069 (plain HTTP) takes no uuid at all.
  assert.equal(await b.run('import', b.file('brp069.json', JSON.stringify([record('hvac', BRP069, 'DAIKIN', { type: 'daikin-brp069', host: '192.168.1.33' }, { type: 'AC' })]))), 0, b.err.join('\n'));
  assert.equal(await b.run('devices', 'secret', BRP069, 'uuid', '--from-file', b.file('uuid', `${SECRET.daikinUuid}\n`)), 1);
  assert.match(b.err.join('\n'), /setting "uuid" applies over https only .*; this device is reached over http; nothing changed/);
  assert.equal(driverOf(b, BRP069)!.driver!['uuid'], undefined);
  assert.equal(await b.run('devices', 'secret', DAIKIN, 'uuid', '--from-file', b.file('uuid2', `${SECRET.daikinUuid}\n`)), 0, b.err.join('\n'));
  assert.equal(driverOf(b, DAIKIN)!.driver!['uuid'], SECRET.daikinUuid);
  // A car's login is not set by hand.
  assert.equal(await b.run('devices', 'secret', BMW, 'refreshToken', '--from-file', b.file('r', 'r\n')), 1);
  assert.match(b.err.join('\n'), /is a car: its maker's login is not set by hand/);
});

test('--with-secrets seals the secrets with a passphrase: none is in the file in the clear, the import needs the passphrase and refuses a wrong one', async (t) => {
  const a = seeded(t, { HUB_EXPORT_PASSPHRASE: PASSPHRASE });
  const exported = a.file('sealed.json');
  // Too short a passphrase is refused before anything is written.
  assert.equal(await a.run('export', exported, '--with-secrets', '--passphrase-file', a.file('short', 'short\n')), 2);
  assert.match(a.err.join('\n'), /needs a passphrase of at least 12 characters/);
  assert.equal(await a.run('export', exported, '--with-secrets'), 0, a.err.join('\n'));
  assert.match(a.out.join('\n'), /with the secrets of 6 sealed with the passphrase/);
  const text = readFileSync(exported, 'utf8');
  assertNoSecret(text);
  assert.ok(!text.includes(PASSPHRASE));
  const sealed = JSON.parse(text) as { format: string; devices: unknown[]; secrets: Record<string, unknown> };
  assert.equal(sealed.devices.length, 8);
  assert.equal(sealed.secrets['cipher'], 'aes-256-gcm');

  const b = workspace(t);
  // Without the passphrase: refused, saying how to give it, nothing imported.
  assert.equal(await b.run('import', exported), 1);
  assert.match(b.err.join('\n'), /carries device secrets sealed with a passphrase: give it with --passphrase-file FILE or HUB_EXPORT_PASSPHRASE, or give --without-secrets/);
  // A wrong passphrase: refused clearly, nothing imported.
  assert.equal(await b.run('import', exported, '--passphrase-file', b.file('wrong', 'not the passphrase at all\n')), 1);
  assert.match(b.err.join('\n'), /the passphrase does not open the secrets in this export \(a wrong passphrase, or the file was changed\)\. Nothing was imported\./);
  let store = b.open();
  assert.equal(store.devices.all().length, 0);
  store.close();
  // An edited binding does not get the secret sealed for another: the token is not sent to another host.
  const edited = JSON.parse(text) as { devices: { id: string; driver: Record<string, unknown> }[] };
  edited.devices.find((d) => d.id === ENVOY)!.driver['host'] = '203.0.113.9';
  assert.equal(await b.run('import', b.file('edited.json', JSON.stringify(edited)), '--passphrase-file', b.file('pass', `${PASSPHRASE}\n`)), 1);
  assert.match(b.err.join('\n'), /its driver binding is not the one its secrets were sealed with/);
  // The right one: every secret back but the cars' single-use refresh tokens.
  assert.equal(await b.run('import', exported, '--passphrase-file', b.file('pass', `${PASSPHRASE}\n`)), 0, b.err.join('\n'));
  assert.match(b.err.join('\n'), /the passphrase opened the secrets of 6 devices/);
  store = b.open();
  t.after(() => store.close());
  assert.equal(store.devices.get(ENVOY)!.driver!['token'], SECRET.envoyToken);
  assert.equal(store.devices.get(POWERWALL)!.driver!['password'], SECRET.powerwallPassword);
  assert.equal(store.devices.get(DAIKIN)!.driver!['uuid'], SECRET.daikinUuid);
  assert.equal(store.devices.get(HEAT_PUMP)!.driver!['password'], SECRET.mqttPassword);
  assert.deepEqual(store.devices.get(VOLVO)!.driver, { type: 'volvo', vin: 'YV1XZK9V0R0000001', clientId: 'app', clientSecret: SECRET.volvoClientSecret, vccApiKey: SECRET.volvoApiKey });
  assert.equal(store.devices.get(BMW)!.driver!['refreshToken'], undefined);
  // The OCPP charger's password hash came back sealed: the charger is let in with its password.
  assert.equal(await verifyPassword(SECRET.ocppPassword, store.ocpp.credentialOfDeviceId(CHARGER)!.passwordHash), true);

  // --without-secrets: the devices without them, as a plain export gives them.
  const c = workspace(t);
  assert.equal(await c.run('import', exported, '--without-secrets'), 0, c.err.join('\n'));
  const other = c.open();
  t.after(() => other.close());
  assert.equal(other.devices.all().length, 8);
  assert.equal(other.devices.get(ENVOY)!.driver!['token'], undefined);
  assert.equal(other.devices.get(ENVOY)!.isOnline, false);
});
