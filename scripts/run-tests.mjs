// `npm test`: every *.test.ts under test/ and drivers/ (or the files named) through node's test
// runner with tsx, the spec reporter on stdout. When tests were skipped for want of a test peer
// (test/support/peers.ts), one closing line names the peers and the command that installs them.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function testFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const named = process.argv.slice(2);
const files = named.length > 0 ? named : [...testFiles('test'), ...testFiles('drivers')].sort();
const run = `${process.pid}-${Date.now()}`;
const record = join(tmpdir(), `hub-test-peers-${run}.txt`);
const tsx = join('node_modules', '.bin', 'tsx');
const child = spawn(tsx, ['--test', '--test-reporter=spec', '--test-reporter-destination=stdout', ...files], {
  stdio: 'inherit',
  env: { ...process.env, HUB_TEST_RUN: run },
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  if (existsSync(record)) {
    const missed = new Map();
    for (const line of readFileSync(record, 'utf8').split('\n').filter(Boolean)) {
      const [peer, file] = line.split('\t');
      if (!missed.has(peer)) missed.set(peer, new Set());
      missed.get(peer).add(file);
    }
    rmSync(record, { force: true });
    const list = [...missed].map(([peer, where]) => `${peer} (${where.size} file${where.size === 1 ? '' : 's'})`).join(', ');
    console.log(`skipped for want of test peers: ${list}; install them with: sudo bash scripts/install-test-peers.sh`);
  }
  process.exit(signal ? 1 : code ?? 1);
});
