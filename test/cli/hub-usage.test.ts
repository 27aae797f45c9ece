// The `hub` command as a newcomer meets it: its help names every command, a mistyped option is an
// error listing the known ones, it says which database it works on (and when that is the demo's by
// default), `scan HOST:PORT` asks HTTP devices on that port too and hints at --http-port when nothing
// answers over Modbus, and `devices add --kind battery` on an Envoy says why it cannot be stored.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { runHub } from '../../src/cli/hub.ts';
import { ModbusSimServer } from '../../src/sim/modbus-sim-server.ts';
import { SiteModel } from '../../src/sim/site-model.ts';
import { EnphaseSim } from '../../src/sim/http/enphase-sim.ts';
import { deviceCertificate, started } from '../support/http-hub.ts';

function workspace(t: TestContext) {
  const dir = mkdtempSync(join(tmpdir(), 'hub-cli-usage-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const out: string[] = [];
  const err: string[] = [];
  const run = (...argv: string[]) => runHub(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, { HUB_DATA_DIR: dir });
  return { dir, out, err, run };
}

const TOKEN = 'eyJhbGciOiJFUzI1NiJ9.eyJhdWQiOiIxMjIzMDIwNDUwNDEifQ.c2ln';
/** The token in a file, as `devices add --token-file` reads it. */
function tokenFile(dir: string): string {
  writeFileSync(join(dir, 'token'), `${TOKEN}\n`, { mode: 0o600 });
  return join(dir, 'token');
}

test('hub --help names scan and devices among the commands', async (t) => {
  const w = workspace(t);
  assert.equal(await w.run('--help'), 0);
  const commands = w.out.join('\n').split('\n\n')[1]!; // the list of commands, before the details
  assert.match(commands, /^ {2}scan HOST\[:PORT\]\|SERIAL /m);
  assert.match(commands, /^ {2}devices add\|list\|remove\|trust\|secret /m);
});

test('an unknown option is an error that lists the known ones, not ignored', async (t) => {
  const w = workspace(t);
  assert.equal(await w.run('devices', 'add', '--usr', 'household-1', '--host', '127.0.0.1'), 2);
  assert.match(w.err.join('\n'), /unknown option --usr; known: --user --host --port .*--token-file/);
  assert.equal(await w.run('scan', '127.0.0.1', '--unit', '1'), 2);
  assert.match(w.err.join('\n'), /unknown option --unit; known: --units --timeout --http-port/);
  assert.equal(await w.run('devices', 'trust', 'abc', '--fingerprnt', 'AA'), 2);
  assert.match(w.err.join('\n'), /unknown option --fingerprnt; known: --fingerprint/);
});

test('each command says which database it uses; without HUB_CONFIG and HUB_DATA_DIR it says it is the demo\'s', async (t) => {
  const w = workspace(t);
  assert.equal(await w.run('keys', 'list'), 0);
  assert.equal(w.err[0], `hub: database ${join(w.dir, 'hub.db')}`);
  // As a newcomer runs it from a checkout: data/hub.db of the current directory.
  const cwd = mkdtempSync(join(tmpdir(), 'hub-cli-cwd-'));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const { HUB_CONFIG: _config, HUB_DATA_DIR: _dir, ...env } = process.env;
  const { stderr } = await promisify(execFile)(process.execPath, ['--import', import.meta.resolve('tsx'), resolve('src/cli/hub.ts'), 'keys', 'list'], { cwd, env });
  assert.match(stderr, new RegExp(`^hub: database ${join(cwd, 'data', 'hub.db')}: the demo's \\(HUB_CONFIG and HUB_DATA_DIR are unset\\); an installed hub's is changed with: sudo home-energy-hub <command>$`, 'm'));
});

test('scan HOST:PORT asks HTTP devices on that port; a Modbus scan that finds nothing hints at --http-port', async (t) => {
  const cert = deviceCertificate(t, 'envoy');
  const sim = await started(t, new EnphaseSim(new SiteModel({ pvPeakW: 5000 }), { token: TOKEN, serial: '122302045041' }), cert);
  const w = workspace(t);
  assert.equal(await w.run('scan', `127.0.0.1:${sim.port}`), 0, w.err.join('\n'));
  assert.match(w.out.join('\n'), /enphase-envoy\s+800-00664-r05 122302045041/);

  const empty = await ModbusSimServer.tcp(new Map());
  t.after(() => empty.close());
  w.out.length = 0;
  assert.equal(await w.run('scan', `127.0.0.1:${empty.port}`, '--units', '1', '--timeout', '200'), 1);
  assert.match(w.out.join('\n'), new RegExp(`no Modbus device found at 127\\.0\\.0\\.1:${empty.port}\\n  other unit ids: --units 1-247; an Enphase, Powerwall or Daikin answering on another port: --http-port N \\(${empty.port} was asked\\)`));
});

test('devices add --kind battery on an Envoy says the API has no ENPHASE battery, not "1 problem in the import file"', async (t) => {
  const cert = deviceCertificate(t, 'envoy');
  const sim = await started(t, new EnphaseSim(new SiteModel({ pvPeakW: 5000 }), { token: TOKEN, serial: '122302045041' }), cert);
  const w = workspace(t);
  assert.equal(await w.run('devices', 'add', '--user', 'household-1', '--host', '127.0.0.1', '--http-port', String(sim.port), '--token-file', tokenFile(w.dir), '--kind', 'battery'), 2);
  const said = w.err.join('\n');
  assert.match(said, /cannot add the ENPHASE batteries as a battery: the API's battery vendors are FRONIUS, SMA, HUAWEI, TESLA, without ENPHASE/);
  assert.doesNotMatch(said, /problem in the import file/);
});
