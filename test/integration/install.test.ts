// systemd/install.sh into a scratch root: the layout an installer gets, and the installed daemon
// (compiled JavaScript, production dependencies only, from a clean npm ci) starting and answering
// /health; then upgrades on that root, killed at the dangerous points, a complete one and a rollback:
// after each, the hub of /opt/home-energy-hub/current starts.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { appendFileSync, chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { startHubProcess } from '../support/process.ts';
import { databaseAt, OLD_DATABASE_KEY_NAME, schemaVersionOf } from '../support/old-database.ts';
import { SCHEMA_VERSION } from '../../src/store/db.ts';

// One root for the install and the upgrades after it. The first install runs a real `npm ci
// --omit=dev` (offline, from the npm cache) into its fresh release directory; only the compiling of
// the two native bindings (better-sqlite3 and unix-dgram: minutes on a busy machine) is replaced by a
// copy of the checkout's, built for this very node. HUB_TEST_REAL_NPM_CI=1 runs the installer's own
// npm ci, compiling included. The upgrades take their dependencies from the first release.
const root = mkdtempSync(join(tmpdir(), 'hub-install-'));
after(() => rmSync(root, { recursive: true, force: true }));
const prefix = join(root, 'opt/home-energy-hub');
const dataDir = join(root, 'var/lib/home-energy-hub');
const database = join(dataDir, 'hub.db');
const unitPath = join(root, 'etc/systemd/system/home-energy-hub.service');
const hubEnv = { HUB_DATA_DIR: dataDir, HUB_CONFIG: join(root, 'etc/home-energy-hub/hub.yaml') };

interface Run { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

/**
 * Runs the installer in a process group of its own (detached): a hook or a stand-in npm of the test
 * ends the whole run with `kill -KILL 0`, as a power cut or a closed SSH session would.
 */
function install(args: string[], env: Record<string, string> = {}, at = root): Promise<Run> {
  const child = spawn('bash', ['systemd/install.sh', '--root', at, ...args], {
    detached: true,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

const currentRelease = (at = prefix) => readlinkSync(join(at, 'current'));
const previousRelease = (at = prefix) => (existsSync(join(at, 'previous')) ? readlinkSync(join(at, 'previous')) : undefined);
const releases = () => readdirSync(join(prefix, 'releases')).sort();
// The first install builds dist/ in this checkout; the runs after it need not build it again.
const built = { HUB_INSTALL_BUILD: 'true' };

/** The hub as the unit starts it: node /opt/home-energy-hub/current/dist/src/main.js, until /health answers. */
async function installedHubAnswers(at = root): Promise<void> {
  const env = { HUB_DATA_DIR: join(at, 'var/lib/home-energy-hub'), HUB_CONFIG: join(at, 'etc/home-energy-hub/hub.yaml') };
  const hub = await startHubProcess(env, [], 30_000, join(at, 'opt/home-energy-hub/current/dist/src/main.js'));
  try {
    const res = await fetch(`${hub.url}/health`);
    assert.deepEqual(await res.json(), { status: 'up' });
  } finally {
    await hub.kill('SIGTERM');
  }
}

/** npm ci without its install scripts, then the checkout's compiled bindings (read, never changed). */
function npmCiWithCheckoutBindings(dir: string): string {
  const modules = realpathSync('node_modules');
  const path = join(dir, 'npm-ci.sh');
  writeFileSync(path, ['#!/bin/sh', 'set -e', 'npm ci --omit=dev --offline --ignore-scripts --no-audit --no-fund',
    ...['better-sqlite3/build/Release/better_sqlite3.node', 'unix-dgram/build/Release/unix_dgram.node'].map((binding) =>
      `mkdir -p node_modules/${dirname(binding)} && cp '${join(modules, binding)}' node_modules/${binding}`)].join('\n') + '\n');
  chmodSync(path, 0o755);
  return path;
}

test('install.sh lays out /opt (a release and current), /etc and the unit, and the installed hub runs', { timeout: 600_000 }, async (t) => {
  const scripts = mkdtempSync(join(tmpdir(), 'hub-install-npm-'));
  t.after(() => rmSync(scripts, { recursive: true, force: true }));
  const run = await install([], process.env['HUB_TEST_REAL_NPM_CI'] === '1' ? { npm_config_offline: 'true' } : { HUB_INSTALL_NPM_CI: npmCiWithCheckoutBindings(scripts) });
  assert.equal(run.code, 0, run.stderr);

  const release = currentRelease();
  assert.match(release, /^releases\/\d+\.\d+\.\d+-[0-9a-f]+-\d{8}T\d{6}Z$/);
  const current = join(prefix, 'current');
  assert.ok(existsSync(join(current, 'dist/src/main.js')), 'compiled daemon');
  assert.ok(existsSync(join(current, 'node_modules/better-sqlite3')), 'its own node_modules');
  assert.ok(!existsSync(join(current, 'node_modules/typescript')), 'no dev dependencies');
  assert.ok(!existsSync(join(prefix, 'dist')), 'nothing run from /opt/home-energy-hub itself');
  // The unit's Documentation= and the README's links point into the release's docs/.
  for (const doc of readFileSync(unitPath, 'utf8').match(/^Documentation=(.*)$/m)![1]!.split(' ')) {
    assert.ok(existsSync(join(root, doc.replace('file://', ''))), `the unit's documentation ${doc} is installed`);
  }
  assert.ok(existsSync(join(current, 'docs/install.md')), 'docs installed');
  const unit = readFileSync(unitPath, 'utf8');
  // The node install.sh found on PATH (`command -v node`: a link such as /usr/local/bin/node, or the
  // binary itself), which is the node running this test.
  const execStart = /^ExecStart=(\S+) \/opt\/home-energy-hub\/current\/dist\/src\/main\.js$/m.exec(unit);
  assert.ok(execStart, 'the unit starts the release\'s dist/src/main.js');
  assert.equal(realpathSync(execStart[1]!), realpathSync(process.execPath), 'with the node found on PATH');
  assert.match(unit, /^WorkingDirectory=\/opt\/home-energy-hub\/current$/m);
  assert.match(readFileSync(join(root, 'etc/home-energy-hub/hub.yaml'), 'utf8'), /^http:/m);
  const cli = join(root, 'usr/local/bin/home-energy-hub');
  assert.equal(statSync(cli).mode & 0o111, 0o111);
  assert.match(readFileSync(cli, 'utf8'), /\/opt\/home-energy-hub\/current\/dist\/src\/cli\/hub\.js/);

  // Its page at / gives the installed hub's admin command, not the checkout's npm ones.
  const hub = await startHubProcess({ ...hubEnv, HUB_DATA_DIR: join(root, 'scratch-data') }, [], 30_000, join(current, 'dist/src/main.js'));
  try {
    assert.deepEqual(await (await fetch(`${hub.url}/health`)).json(), { status: 'up' });
    const page = await (await fetch(`${hub.url}/`)).text();
    assert.match(page, /sudo home-energy-hub keys create NAME/);
    assert.doesNotMatch(page, /npm (start|run)/);
  } finally {
    await hub.kill();
    rmSync(join(root, 'scratch-data'), { recursive: true, force: true });
  }
});

test('an upgrade killed after copying, during npm ci or before the switch leaves the old hub starting; a complete one switches, keeps the data and an edited unit, and rolls back', { timeout: 600_000 }, async (t) => {
  const first = currentRelease();
  const scripts = mkdtempSync(join(tmpdir(), 'hub-install-scripts-'));
  t.after(() => rmSync(scripts, { recursive: true, force: true }));
  const script = (name: string, text: string) => {
    const path = join(scripts, name);
    writeFileSync(path, `#!/bin/sh\n${text}\n`);
    chmodSync(path, 0o755);
    return path;
  };
  // The upgrades' dependencies: the first release's, from its clean npm ci (a copy: never a link).
  const npmCi = script('npm-ci.sh', `cp -a '${join(prefix, first, 'node_modules')}' .`);
  // An npm ci cut off half-way: one package in, then the run is killed.
  const npmCiKilled = script('npm-ci-killed.sh', `mkdir node_modules && cp -a '${join(prefix, first, 'node_modules/better-sqlite3')}' node_modules/ && kill -KILL 0`);
  const hook = script('hook.sh', '[ "$1" = "$HUB_TEST_KILL_AT" ] && kill -KILL 0\nexit 0');
  const killedAt = async (step: string, npm = npmCi) => {
    const run = await install([], { ...built, HUB_INSTALL_NPM_CI: npm, HUB_INSTALL_HOOK: hook, HUB_TEST_KILL_AT: step });
    assert.equal(run.signal, 'SIGKILL', 'the whole run was killed');
    assert.ok(!run.stdout.includes('switched:'), `killed at ${step} before it switched: ${run.stdout}`);
    return run;
  };

  // The data of a hub installed from an older main: schema 5, a key.
  mkdirSync(dataDir, { recursive: true });
  databaseAt(database, 5);

  await t.test('killed before the switch: the new release checked and in place, the old one still current, the database unchanged', async () => {
    await killedAt('moved');
    assert.equal(currentRelease(), first);
    assert.equal(releases().filter((name) => !name.startsWith('.')).length, 2, 'the new release lies beside the old');
    assert.equal(schemaVersionOf(database), 5, 'the check migrated a copy, not the database');
    assert.deepEqual(readdirSync(dataDir).filter((name) => name.includes('.bak')), [], 'nor made a backup beside it');
    await installedHubAnswers();
    // That start migrated the database, copying it first.
    assert.equal(schemaVersionOf(database), SCHEMA_VERSION);
    assert.equal(readdirSync(dataDir).filter((name) => new RegExp(`^hub\\.db\\.v5-before-v${SCHEMA_VERSION}\\..*\\.bak$`).test(name)).length, 1);
  });

  await t.test('killed right after copying the new release: the old hub starts', async () => {
    await killedAt('copied');
    assert.equal(currentRelease(), first);
    assert.ok(releases().some((name) => name.startsWith('.incoming-')), 'the scratch directory a killed run leaves');
    await installedHubAnswers();
  });

  await t.test('killed during npm ci: the old hub starts, and the half-made node_modules is never used', async () => {
    await killedAt('none', npmCiKilled);
    assert.equal(currentRelease(), first);
    await installedHubAnswers();
  });

  await t.test('a complete upgrade: switched, the old release kept as previous, leftovers removed, the data and an edited unit kept', async () => {
    appendFileSync(unitPath, '# an edit made on the gateway\n');
    const run = await install([], { ...built, HUB_INSTALL_NPM_CI: npmCi });
    assert.equal(run.code, 0, run.stderr);
    const second = currentRelease();
    assert.notEqual(second, first);
    assert.equal(previousRelease(), first);
    assert.deepEqual(releases(), [first, second].map((name) => name.replace('releases/', '')).sort(), 'the half-made and unswitched ones are gone');
    assert.ok(existsSync(join(prefix, second, 'node_modules/hono')), 'a complete node_modules, not the killed run\'s');
    assert.match(run.stdout, new RegExp(`database: .*hub\\.db, schema ${SCHEMA_VERSION}, which this release opens as it is`));
    assert.match(run.stdout, /kept: \/etc\/home-energy-hub\/hub\.yaml as it was/);
    assert.match(run.stdout, /kept: \/var\/lib\/home-energy-hub \(the database with its devices, keys/);
    const kept = /kept as (\/etc\/systemd\/system\/home-energy-hub\.service\.local-\S+)\./.exec(run.stdout);
    assert.ok(kept, run.stdout);
    assert.match(readFileSync(join(root, kept[1]!), 'utf8'), /# an edit made on the gateway/);
    assert.doesNotMatch(readFileSync(unitPath, 'utf8'), /an edit made on the gateway/);
    assert.match(run.stdout, /override\.conf/);
    await installedHubAnswers();
    const keys = await promisify(execFile)(process.execPath, [join(prefix, 'current/dist/src/cli/hub.js'), 'keys', 'list'], { env: { ...process.env, ...hubEnv } });
    assert.match(keys.stdout, new RegExp(OLD_DATABASE_KEY_NAME));
  });

  await t.test('--rollback switches back to the previous release, which starts', async () => {
    const second = currentRelease();
    const run = await install(['--rollback']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(currentRelease(), first);
    assert.equal(previousRelease(), second);
    assert.match(run.stdout, /rolled back/);
    await installedHubAnswers();
  });

  await t.test('an older release over a newer database: refused at install, naming the backup, nothing changed', async () => {
    const raw = new Database(database);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    const before = { current: currentRelease(), previous: previousRelease(), releases: releases(), unit: readFileSync(unitPath, 'utf8') };
    const run = await install([], { ...built, HUB_INSTALL_NPM_CI: npmCi });
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, new RegExp(`schema version ${SCHEMA_VERSION + 1}, newer than this release knows \\(${SCHEMA_VERSION}\\)`));
    assert.match(run.stderr, new RegExp(`hub\\.db\\.v5-before-v${SCHEMA_VERSION}\\.\\S+\\.bak`), 'the backup to restore');
    assert.match(run.stderr, /nothing was changed/);
    assert.deepEqual({ current: currentRelease(), previous: previousRelease(), releases: releases(), unit: readFileSync(unitPath, 'utf8') }, before);
    const back = await install(['--rollback']);
    assert.notEqual(back.code, 0, 'nor does a rollback switch to a release that would refuse it');
    assert.equal(currentRelease(), before.current);
    assert.equal(schemaVersionOf(database), SCHEMA_VERSION + 1);
  });
});

test('a hub installed before releases (run from /opt/home-energy-hub/dist) is upgraded: its files become the previous release, its unit is kept aside, and a rollback runs it again', { timeout: 300_000 }, async (t) => {
  const legacy = mkdtempSync(join(tmpdir(), 'hub-install-legacy-'));
  t.after(() => rmSync(legacy, { recursive: true, force: true }));
  const legacyPrefix = join(legacy, 'opt/home-energy-hub');
  const first = join(prefix, currentRelease());
  // The layout install.sh made before releases: /opt/home-energy-hub/{dist,node_modules,…}, its unit
  // and admin command running them there, and a database of schema 5 with a key.
  for (const name of ['dist', 'node_modules', 'package.json', 'package-lock.json', 'README.md']) {
    cpSync(join(first, name), join(legacyPrefix, name), { recursive: true, verbatimSymlinks: true });
  }
  const legacyUnit = readFileSync(join(first, 'home-energy-hub.service'), 'utf8').replaceAll('/opt/home-energy-hub/current', '/opt/home-energy-hub');
  mkdirSync(join(legacy, 'etc/systemd/system'), { recursive: true });
  writeFileSync(join(legacy, 'etc/systemd/system/home-energy-hub.service'), legacyUnit);
  cpSync(join(root, 'etc/home-energy-hub'), join(legacy, 'etc/home-energy-hub'), { recursive: true });
  mkdirSync(join(legacy, 'var/lib/home-energy-hub'), { recursive: true });
  databaseAt(join(legacy, 'var/lib/home-energy-hub/hub.db'), 5);

  const run = await install([], { ...built, HUB_INSTALL_NPM_CI: join(tmpdir(), 'no-such-npm') }, legacy).then((failed) => {
    assert.notEqual(failed.code, 0, 'a failed npm ci installs nothing');
    assert.deepEqual(readdirSync(join(legacyPrefix, 'releases')), [], 'and leaves no release');
    assert.ok(existsSync(join(legacyPrefix, 'dist/src/main.js')), 'nor touches the running install');
    const scripts = mkdtempSync(join(tmpdir(), 'hub-install-legacy-npm-'));
    t.after(() => rmSync(scripts, { recursive: true, force: true }));
    writeFileSync(join(scripts, 'npm-ci.sh'), `#!/bin/sh\ncp -a '${join(first, 'node_modules')}' .\n`);
    chmodSync(join(scripts, 'npm-ci.sh'), 0o755);
    return install([], { ...built, HUB_INSTALL_NPM_CI: join(scripts, 'npm-ci.sh') }, legacy);
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /this release migrates it to \d+ at its start, backing it up first/);
  assert.match(run.stdout, /kept as \/etc\/systemd\/system\/home-energy-hub\.service\.local-/);
  const previous = previousRelease(legacyPrefix);
  assert.match(previous ?? '', /^releases\/installed-before-/);
  for (const name of ['dist', 'node_modules', 'package.json']) assert.ok(!existsSync(join(legacyPrefix, name)), `${name} moved into the previous release`);
  await installedHubAnswers(legacy);

  const back = await install(['--rollback'], {}, legacy);
  assert.equal(back.code, 0, back.stderr);
  assert.equal(currentRelease(legacyPrefix), previous);
  await installedHubAnswers(legacy);
});

test('install.sh checks its inputs before it changes anything: a checkout without the example configuration installs nothing', async (t) => {
  // A checkout where data/ was deleted to reset the demo, from a time the example lived there; or any
  // checkout missing a file: the installer names it and leaves the root untouched.
  const checkout = mkdtempSync(join(tmpdir(), 'hub-install-src-'));
  const root = mkdtempSync(join(tmpdir(), 'hub-install-root-'));
  t.after(() => rmSync(checkout, { recursive: true, force: true }));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  for (const file of ['systemd/install.sh', 'systemd/home-energy-hub.service', 'systemd/check-release.mjs', 'scripts/check-node.mjs', 'package.json', 'package-lock.json', 'README.md', 'tsconfig.build.json']) {
    cpSync(file, join(checkout, file));
  }
  cpSync('src', join(checkout, 'src'), { recursive: true });
  cpSync('docs', join(checkout, 'docs'), { recursive: true });
  const run = promisify(execFile)('bash', [join(checkout, 'systemd/install.sh'), '--root', root]);
  await assert.rejects(run, (err: Error & { stderr: string }) => {
    assert.match(err.stderr, /this checkout lacks systemd\/hub\.example\.yaml: nothing was installed/);
    return true;
  });
  assert.deepEqual(readdirSync(root), [], 'nothing written under the root');
  assert.equal(existsSync(join(checkout, 'dist')), false, 'nothing built');
});

test('nothing tracked lives in data/: deleting it to reset the demo loses no example', () => {
  assert.equal(existsSync('data/hub.example.yaml'), false);
  assert.match(readFileSync('systemd/hub.example.yaml', 'utf8'), /^http:/m);
  assert.match(readFileSync('.gitignore', 'utf8'), /^data\/$/m);
});
