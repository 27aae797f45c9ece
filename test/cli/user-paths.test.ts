// `npm run hub -- …` typed in another directory than the package's: the files it names are meant
// from there (npm runs the script in the package root and says where it was typed in INIT_CWD).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { argumentsFrom, environmentFrom } from '../../src/cli/user-paths.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

test('file arguments and file flags are made absolute against the directory typed in; other words are left alone', () => {
  const cwd = '/home/me/docs';
  assert.deepEqual(argumentsFrom(['export', 'rel.json', '--with-secrets', '--passphrase-file', 'pass.txt'], cwd),
    ['export', '/home/me/docs/rel.json', '--with-secrets', '--passphrase-file', '/home/me/docs/pass.txt']);
  assert.deepEqual(argumentsFrom(['import', '../devices.json', '--update'], cwd), ['import', '/home/me/devices.json', '--update']);
  assert.deepEqual(argumentsFrom(['export', '-'], cwd), ['export', '-'], 'standard output stays');
  assert.deepEqual(argumentsFrom(['backup', '/abs/hub.db'], cwd), ['backup', '/abs/hub.db']);
  assert.deepEqual(argumentsFrom(['image', 'set', 'car-1', 'car.png'], cwd), ['image', 'set', 'car-1', '/home/me/docs/car.png']);
  assert.deepEqual(argumentsFrom(['config', 'check', 'hub.yaml'], cwd), ['config', 'check', '/home/me/docs/hub.yaml']);
  assert.deepEqual(argumentsFrom(['devices', 'secret', 'abc', 'token', '--from-file=t.txt'], cwd), ['devices', 'secret', 'abc', 'token', '--from-file=/home/me/docs/t.txt']);
  assert.deepEqual(argumentsFrom(['devices', 'add', '--user', 'u1', '--token-file', '-', '--host', 'envoy.local'], cwd),
    ['devices', 'add', '--user', 'u1', '--token-file', '-', '--host', 'envoy.local']);
  assert.deepEqual(argumentsFrom(['keys', 'create', 'tablet', '--user', 'u1'], cwd), ['keys', 'create', 'tablet', '--user', 'u1']);
  assert.deepEqual(environmentFrom({ HUB_DATA_DIR: 'data-8081', HUB_CONFIG: '/etc/hub.yaml', OTHER: 'x' }, cwd),
    { HUB_DATA_DIR: '/home/me/docs/data-8081', HUB_CONFIG: '/etc/hub.yaml', OTHER: 'x' });
});

test('npm run hub -- export rel.json typed in another directory writes the file there and names its whole path', { timeout: 120_000 }, (t) => {
  const typedIn = mkdtempSync(join(tmpdir(), 'hub-typed-in-'));
  t.after(() => rmSync(typedIn, { recursive: true, force: true }));
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const out = execFileSync(npm, ['--prefix', ROOT, 'run', '--silent', 'hub', '--', 'export', 'rel.json'], {
    cwd: typedIn, encoding: 'utf8', env: { ...process.env, HUB_DATA_DIR: 'data', HUB_CONFIG: undefined }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  assert.ok(existsSync(join(typedIn, 'rel.json')), `written where it was typed: ${out}`);
  assert.ok(!existsSync(join(ROOT, 'rel.json')), 'not in the package root');
  assert.ok(out.includes(join(typedIn, 'rel.json')), out);
  assert.ok(existsSync(join(typedIn, 'data', 'hub.db')), 'HUB_DATA_DIR=data is the data directory there too');
  assert.deepEqual(JSON.parse(readFileSync(join(typedIn, 'rel.json'), 'utf8')), []);
});
