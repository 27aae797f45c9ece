// npm test on a machine without the Debian test peers: tests needing a missing peer are skipped and
// one closing line says what and how to install it; under CI=true the same run fails. Peers are made
// "missing" with HUB_TEST_MISSING_PEERS; "every peer present" uses only the peers this machine has,
// so that the test passes on a fresh machine without them as on one with all of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { hasPeer, PEERS } from './peers.ts';

const FIXTURE = 'test/support/fixtures/needs-peers.fixture.ts';

function npmTest(env: Record<string, string | undefined>): Promise<{ code: number; out: string }> {
  // Not this run's: the child is a run of its own (NODE_TEST_CONTEXT would make it report to us).
  const { CI: _ci, NODE_TEST_CONTEXT: _context, HUB_TEST_RUN: _run, ...base } = process.env;
  return new Promise((resolve) => {
    execFile(process.execPath, ['scripts/run-tests.mjs', FIXTURE], { env: { ...base, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr });
    });
  });
}

test('without a peer, its tests are skipped and one closing line names it and the install command', async () => {
  const { code, out } = await npmTest({ HUB_TEST_MISSING_PEERS: 'chromium,mbpoll' });
  assert.equal(code, 0, out);
  assert.match(out, /a test that needs chromium .*# needs chromium \(sudo bash scripts\/install-test-peers\.sh\)/);
  assert.match(out, /ℹ skipped 2/);
  assert.match(out, /ℹ pass 1/);
  const last = out.trimEnd().split('\n').at(-1)!;
  assert.equal(last, 'skipped for want of test peers: chromium (1 file), mbpoll (1 file); install them with: sudo bash scripts/install-test-peers.sh');
});

test('under CI=true a missing peer fails the run', async () => {
  const { code, out } = await npmTest({ HUB_TEST_MISSING_PEERS: 'chromium,mbpoll', CI: 'true' });
  assert.notEqual(code, 0);
  assert.match(out, /chromium is missing: sudo bash scripts\/install-test-peers\.sh/);
  assert.match(out, /mbpoll missing: sudo bash scripts\/install-test-peers\.sh/);
  assert.doesNotMatch(out, /skipped for want of test peers/);
});

test('with every peer present nothing is skipped and no line is added', async () => {
  // The peers the fixture needs are among those here (none on a machine without any: then the
  // fixture's tests need nothing, and the closing line must still be absent).
  const here = PEERS.filter((peer) => hasPeer(peer)).slice(0, 2);
  const { code, out } = await npmTest({ FIXTURE_PEERS: here.join(','), HUB_TEST_MISSING_PEERS: process.env['HUB_TEST_MISSING_PEERS'] ?? '' });
  assert.equal(code, 0, out);
  assert.match(out, /ℹ skipped 0/);
  assert.match(out, /ℹ pass 3/);
  assert.doesNotMatch(out, /skipped for want of test peers/);
});
