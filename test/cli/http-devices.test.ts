// `hub scan`, `hub devices add` and `hub devices trust` with HTTP devices on their simulators: an
// Enphase gateway over HTTPS (its certificate shown and pinned on first use, a changed one refused
// until trusted) and a Daikin adapter over HTTP, recognised by their own discovery answers.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runHub } from '../../src/cli/hub.ts';
import { Store } from '../../src/store/store.ts';
import { SiteModel } from '../../src/sim/site-model.ts';
import { EnphaseSim } from '../../src/sim/http/enphase-sim.ts';
import { DaikinSim } from '../../src/sim/http/daikin-sim.ts';
import { DaikinBrp084Sim } from '../../src/sim/http/daikin-brp084-sim.ts';
import { PowerwallSim } from '../../src/sim/http/powerwall-sim.ts';
import { deviceCertificate, started } from '../support/http-hub.ts';

function workspace(t: TestContext) {
  const dir = mkdtempSync(join(tmpdir(), 'hub-cli-http-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const out: string[] = [];
  const err: string[] = [];
  const run = (...argv: string[]) => runHub(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, { HUB_DATA_DIR: dir });
  const open = () => Store.open(join(dir, 'hub.db'));
  /** A file holding a secret, as `devices add --token-file` reads it. */
  const secret = (name: string, value: string) => {
    const path = join(dir, name);
    writeFileSync(path, `${value}\n`, { mode: 0o600 });
    return path;
  };
  return { out, err, run, open, secret };
}

const TOKEN = 'eyJhbGciOiJFUzI1NiJ9.eyJhdWQiOiIxMjIzMDIwNDUwNDEifQ.c2ln';

test('hub scan recognises an Enphase gateway by its /info and shows the certificate to accept; devices add pins it; trust changes it', async (t) => {
  const cert = deviceCertificate(t, 'envoy');
  const sim = await started(t, new EnphaseSim(new SiteModel({ pvPeakW: 5000 }), { token: TOKEN, serial: '122302045041' }), cert);
  const w = workspace(t);
  assert.equal(await w.run('scan', '127.0.0.1', '--http-port', String(sim.port)), 0, w.err.join('\n'));
  const scanned = w.out.join('\n');
  assert.match(scanned, /enphase-envoy\s+800-00664-r05 122302045041/);
  assert.ok(scanned.includes(cert.pinned.sha256), scanned);
  // The command it suggests asks the same port.
  assert.match(scanned, new RegExp(`add one with: npm run hub -- devices add --user USER --host 127\\.0\\.0\\.1 --http-port ${sim.port} `));
  // No token was needed, and none was sent, to recognise it.
  assert.ok(sim.requests.every((q) => q.headers['authorization'] === undefined));

  assert.equal(await w.run('devices', 'add', '--user', 'household-1', '--host', '127.0.0.1', '--http-port', String(sim.port), '--token-file', w.secret('token', TOKEN), '--kind', 'pvInverter'), 0, w.err.join('\n'));
  assert.match(w.err.join('\n'), new RegExp(`pinning the device's TLS certificate SHA-256 ${cert.pinned.sha256}`));
  const store = w.open();
  const [device] = store.devices.all();
  store.close();
  assert.equal(device!.vendor, 'ENPHASE');
  assert.equal(device!.model, 'Enphase IQ Gateway 800-00664-r05');
  assert.deepEqual(device!.driver, { type: 'enphase-envoy', host: '127.0.0.1', port: sim.port, token: TOKEN, tls: cert.pinned });
  assert.equal(typeof device!.state?.['solarPower'], 'number');
  // The listing shows the fingerprint, never the token.
  assert.equal(await w.run('devices', 'list'), 0);
  const listed = w.out.join('\n');
  assert.ok(!listed.includes(TOKEN));
  assert.ok(listed.includes(cert.pinned.sha256));

  // The gateway is replaced: trust shows both fingerprints and pins the new one (only if it is the one given).
  const port = sim.port;
  await sim.stop();
  const replaced = deviceCertificate(t, 'envoy');
  await sim.start({ port, tls: replaced });
  assert.equal(await w.run('devices', 'trust', device!.id.slice(0, 8), '--fingerprint', cert.pinned.sha256), 1);
  assert.equal(await w.run('devices', 'trust', device!.id.slice(0, 8)), 0, w.err.join('\n'));
  assert.ok(w.out.join('\n').includes(`presented now:      ${replaced.pinned.sha256}`));
  const store3 = w.open();
  t.after(() => store3.close());
  assert.deepEqual((store3.devices.get(device!.id)!.driver as Record<string, unknown>)['tls'], replaced.pinned);
});

test('hub devices trust on one record of a replaced gateway pins the new certificate for every record of that gateway (its PV and its meter)', async (t) => {
  const cert = deviceCertificate(t, 'envoy');
  const sim = await started(t, new EnphaseSim(new SiteModel({ pvPeakW: 5000 }), { token: TOKEN }), cert);
  const other = deviceCertificate(t, 'envoy');
  const elsewhere = await started(t, new EnphaseSim(new SiteModel({ pvPeakW: 5000 }), { token: TOKEN }), other);
  const w = workspace(t);
  for (const kind of ['pvInverter', 'meter']) {
    assert.equal(await w.run('devices', 'add', '--user', 'household-1', '--host', '127.0.0.1', '--http-port', String(sim.port), '--token-file', w.secret('token', TOKEN), '--kind', kind), 0, w.err.join('\n'));
  }
  // Another gateway, at another address: not touched.
  assert.equal(await w.run('devices', 'add', '--user', 'household-1', '--host', '127.0.0.1', '--http-port', String(elsewhere.port), '--token-file', w.secret('token', TOKEN), '--kind', 'meter'), 0, w.err.join('\n'));
  const before = w.open();
  const ids = Object.fromEntries(before.devices.all().map((d) => [`${d.kind}:${d.driver!['port']}`, d.id]));
  before.close();
  const port = sim.port;
  await sim.stop();
  const replaced = deviceCertificate(t, 'envoy');
  await sim.start({ port, tls: replaced });
  assert.equal(await w.run('devices', 'trust', ids[`pvInverter:${port}`]!), 0, w.err.join('\n'));
  assert.ok(w.out.join('\n').includes(ids[`meter:${port}`]!), 'the other record of the gateway is named');
  const after = w.open();
  t.after(() => after.close());
  const tls = (id: string) => (after.devices.get(id)!.driver as Record<string, unknown>)['tls'];
  assert.deepEqual(tls(ids[`pvInverter:${port}`]!), replaced.pinned);
  assert.deepEqual(tls(ids[`meter:${port}`]!), replaced.pinned);
  assert.deepEqual(tls(ids[`meter:${elsewhere.port}`]!), other.pinned);
});

test('hub devices add recognises a Daikin adapter by its basic_info and adds an AC with its state', async (t) => {
  const sim = await started(t, new DaikinSim({ mac: 'A0B1C2D3E4F5' }));
  const w = workspace(t);
  assert.equal(await w.run('devices', 'add', '--user', 'household-1', '--host', '127.0.0.1', '--http-port', String(sim.port), '--name', 'Bedroom', '--room', 'Upstairs'), 0, w.err.join('\n'));
  const store = w.open();
  t.after(() => store.close());
  const [device] = store.devices.all();
  assert.equal(device!.kind, 'hvac');
  assert.equal(device!.hvacType, 'AC');
  assert.equal(device!.vendor, 'DAIKIN');
  assert.equal(device!.name, 'Bedroom');
  assert.equal(device!.staticData['room'], 'Upstairs');
  assert.equal(device!.state?.['mode'], 'COOL');
  assert.deepEqual(device!.driver, { type: 'daikin-brp069', host: '127.0.0.1', port: sim.port });
});

test('hub devices add of the same adapter and kind twice names the device and changes nothing; --update updates it in place', async (t) => {
  const sim = await started(t, new DaikinSim({ mac: 'A0B1C2D3E4F6' }));
  const w = workspace(t);
  const add = (...more: string[]) => w.run('devices', 'add', '--user', 'household-1', '--host', '127.0.0.1', '--http-port', String(sim.port), ...more);
  assert.equal(await add('--name', 'Bedroom'), 0, w.err.join('\n'));
  const before = w.open();
  const [device] = before.devices.all();
  before.close();
  w.err.length = 0;
  assert.equal(await add('--name', 'Guest room'), 1);
  assert.ok(w.err.join('\n').includes(`this hvac is device ${device!.id} already (DAIKIN "Bedroom" of household-1, at daikin-brp069, host 127.0.0.1, port ${sim.port}): nothing changed; give --update to update it in place`), w.err.join('\n'));
  const unchanged = w.open();
  assert.deepEqual(unchanged.devices.all(), [device]);
  unchanged.close();
  assert.equal(await add('--update', '--name', 'Guest room'), 0, w.err.join('\n'));
  assert.match(w.out.join('\n'), new RegExp(`updated hvac ${device!.id} `));
  const after = w.open();
  t.after(() => after.close());
  assert.equal(after.devices.count(), 1);
  assert.equal(after.devices.get(device!.id)?.name, 'Guest room');
  assert.equal(after.devices.get(device!.id)?.createdAtMs, device!.createdAtMs);
});

test('hub devices add with a token the gateway refuses adds nothing and says why', async (t) => {
  const cert = deviceCertificate(t, 'envoy');
  const sim = await started(t, new EnphaseSim(new SiteModel(), { token: TOKEN }), cert);
  const w = workspace(t);
  assert.equal(await w.run('devices', 'add', '--user', 'u', '--host', '127.0.0.1', '--driver', 'enphase-envoy', '--port', String(sim.port), '--token-file', w.secret('token', 'aaa.bbb.ccc')), 1);
  assert.match(w.err.join('\n'), /refused the token \(401\)/);
  const store = w.open();
  t.after(() => store.close());
  assert.equal(store.devices.all().length, 0);
});

test('hub devices add finds a BRP072C over HTTPS with the uuid given, and pins its certificate', async (t) => {
  const cert = deviceCertificate(t, 'daikin');
  const uuid = '0123456789abcdef0123456789abcdef';
  const sim = await started(t, new DaikinSim({ uuid }), cert);
  const w = workspace(t);
  assert.equal(await w.run('devices', 'add', '--user', 'u', '--host', '127.0.0.1', '--http-port', String(sim.port), '--uuid-file', w.secret('uuid', uuid)), 0, w.err.join('\n'));
  const store = w.open();
  t.after(() => store.close());
  const [device] = store.devices.all();
  assert.deepEqual(device!.driver, { type: 'daikin-brp069', host: '127.0.0.1', port: sim.port, scheme: 'https', uuid, tls: cert.pinned });
  // Asked for an Envoy's /info and a Powerwall's /api/status too (without credentials); every
  // request to the adapter's own paths carried the uuid.
  const own = sim.requests.filter((q) => q.path.startsWith('/common/') || q.path.startsWith('/aircon/'));
  assert.ok(own.length >= 3 && own.every((q) => q.headers['x-daikin-uuid'] === uuid));
});

test('hub scan recognises a BRP084 adapter (JSON API) by its edge.adp_i answer', async (t) => {
  const sim = await started(t, new DaikinBrp084Sim());
  const w = workspace(t);
  assert.equal(await w.run('scan', '127.0.0.1', '--http-port', String(sim.port)), 0, w.err.join('\n'));
  assert.match(w.out.join('\n'), /daikin-brp084\s+A4B1C2D3E4F5/);
});

test('hub devices add: a Powerwall gateway is added as its battery with the customer login, and again as its meter with --kind', async (t) => {
  const cert = deviceCertificate(t, 'powerwall');
  const sim = await started(t, new PowerwallSim(new SiteModel({ initialSocPct: 50 }), { email: 'o@example.com', password: 'ABCDE' }), cert);
  const w = workspace(t);
  const add = (...extra: string[]) => w.run('devices', 'add', '--user', 'u', '--host', '127.0.0.1', '--http-port', String(sim.port), '--email', 'o@example.com', '--password-file', w.secret('password', 'ABCDE'), ...extra);
  assert.equal(await add(), 0, w.err.join('\n'));
  assert.equal(await add('--kind', 'meter'), 0, w.err.join('\n'));
  const store = w.open();
  t.after(() => store.close());
  const devices = store.devices.all();
  assert.deepEqual(devices.map((d) => d.kind).sort(), ['battery', 'meter']);
  const battery = devices.find((d) => d.kind === 'battery')!;
  assert.equal(battery.vendor, 'TESLA');
  assert.equal(battery.staticData['batteryCapacity'], 13.5);
  assert.equal(battery.state?.['stateOfCharge'], 50);
});

test('hub devices add refuses a secret on the command line (ps, shell history), naming the file or standard input instead', async (t) => {
  const w = workspace(t);
  for (const [flag, value] of [['--token', TOKEN], ['--password', 'ABCDE'], ['--uuid', '0123456789abcdef0123456789abcdef']] as const) {
    assert.equal(await w.run('devices', 'add', '--user', 'u', '--host', '127.0.0.1', flag, value), 2);
    const said = w.err.join('\n');
    assert.match(said, new RegExp(`${flag} would put a device secret on the command line, .*give it with ${flag}-file FILE \\(its first line\\), or - for standard input, as for hub devices secret\\. Nothing was added\\.`));
    assert.ok(!said.includes(value), 'the refusal does not repeat the secret');
  }
  assert.equal(await w.run('devices', 'add', '--user', 'u', '--host', '127.0.0.1', `--token=${TOKEN}`), 2);
  // Two secrets cannot both come from standard input; an empty file is no secret.
  assert.equal(await w.run('devices', 'add', '--user', 'u', '--host', '127.0.0.1', '--password-file', '-', '--uuid-file', '-'), 2);
  assert.match(w.err.join('\n'), /only one secret can come from standard input/);
  assert.equal(await w.run('devices', 'add', '--user', 'u', '--host', '127.0.0.1', '--token-file', w.secret('empty', '')), 1);
  assert.match(w.err.join('\n'), /no token given \(.*empty is empty\); nothing changed/);
  const store = w.open();
  t.after(() => store.close());
  assert.equal(store.devices.all().length, 0);
});
