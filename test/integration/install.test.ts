// systemd/install.sh into a scratch root: the layout an installer gets, and the installed daemon
// (compiled JavaScript, production dependencies only) starting and answering /health.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createInterface } from 'node:readline';

test('install.sh lays out /opt, /etc and the unit, and the installed hub runs', { timeout: 240_000 }, async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'hub-install-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  await promisify(execFile)('bash', ['systemd/install.sh', '--root', root], { maxBuffer: 10 * 1024 * 1024 });

  const prefix = join(root, 'opt/home-energy-hub');
  assert.ok(existsSync(join(prefix, 'dist/src/main.js')), 'compiled daemon');
  assert.ok(!existsSync(join(prefix, 'node_modules/typescript')), 'no dev dependencies');
  const unit = readFileSync(join(root, 'etc/systemd/system/home-energy-hub.service'), 'utf8');
  assert.match(unit, new RegExp(`^ExecStart=${process.execPath.replace(/[.]/g, '\\.')} /opt/home-energy-hub/dist/src/main\\.js$`, 'm'));
  assert.match(readFileSync(join(root, 'etc/home-energy-hub/hub.yaml'), 'utf8'), /^http:/m);
  assert.equal(statSync(join(root, 'usr/local/bin/home-energy-hub')).mode & 0o111, 0o111);

  const child = spawn(process.execPath, [join(prefix, 'dist/src/main.js')], {
    env: { ...process.env, HUB_DATA_DIR: join(root, 'var'), HUB_HTTP_PORT: '0', HUB_CONFIG: join(root, 'etc/home-energy-hub/hub.yaml') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.after(() => child.kill('SIGKILL'));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('installed hub did not start')), 20_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === 'hub listening') { clearTimeout(timer); resolve(entry.url!); }
    });
  });
  const res = await fetch(`${url}/health`);
  assert.deepEqual(await res.json(), { status: 'up' });
  // Its page at / gives the installed hub's admin command, not the checkout's npm ones.
  const page = await (await fetch(`${url}/`)).text();
  assert.match(page, /sudo home-energy-hub keys create NAME/);
  assert.doesNotMatch(page, /npm (start|run)/);
});

test('install.sh checks its inputs before it changes anything: a checkout without the example configuration installs nothing', async (t) => {
  // A checkout where data/ was deleted to reset the demo, from a time the example lived there; or any
  // checkout missing a file: the installer names it and leaves the root untouched.
  const checkout = mkdtempSync(join(tmpdir(), 'hub-install-src-'));
  const root = mkdtempSync(join(tmpdir(), 'hub-install-root-'));
  t.after(() => rmSync(checkout, { recursive: true, force: true }));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  for (const file of ['systemd/install.sh', 'systemd/home-energy-hub.service', 'scripts/check-node.mjs', 'package.json', 'package-lock.json', 'README.md', 'tsconfig.build.json']) {
    cpSync(file, join(checkout, file));
  }
  cpSync('src', join(checkout, 'src'), { recursive: true });
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
