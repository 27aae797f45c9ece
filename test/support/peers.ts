// The test peers from Debian's packages (.ci/apt-packages): which are on this machine, and what a
// test that needs a missing one does. On a developer's machine it is skipped, with the peer named,
// and `npm test` (scripts/run-tests.mjs) ends with one line naming every peer it missed and the
// command that installs them. Under CI=true a missing peer fails the run instead: CI proves it all.
// HUB_TEST_MISSING_PEERS=chromium,mosquitto makes peers count as missing (to test this very path).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

export const INSTALL_PEERS = 'sudo bash scripts/install-test-peers.sh';
/** Debian's libfaketime: preloaded, it moves a process's wall clock (test/support/faketime.ts). */
export const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

/** Whether a command the tests start by name (spawn('socat', …)) is found on PATH, as they find it. */
const onPath = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

// Each is looked for where the tests take it from: by name on PATH, or at the path they start.
const CHECKS = {
  mosquitto: () => onPath('mosquitto'),
  socat: () => onPath('socat'),
  mbpoll: () => onPath('mbpoll'),
  pymodbus: () => spawnSync('/usr/bin/python3', ['-c', 'import pymodbus'], { stdio: 'ignore' }).status === 0,
  chromium: () => existsSync('/usr/bin/chromium'),
  libfaketime: () => existsSync(LIBFAKETIME),
} as const;

export type Peer = keyof typeof CHECKS;
export const PEERS = Object.keys(CHECKS) as Peer[];

const forcedMissing = new Set((process.env['HUB_TEST_MISSING_PEERS'] ?? '').split(',').map((p) => p.trim()).filter(Boolean));
const known = new Map<Peer, boolean>();

export function hasPeer(peer: Peer): boolean {
  if (forcedMissing.has(peer)) return false;
  let present = known.get(peer);
  if (present === undefined) known.set(peer, (present = CHECKS[peer]()));
  return present;
}

const failedInCi = new Set<Peer>();

/**
 * For a test's `skip` option: false when every peer is here, else the reason naming the missing
 * ones. Under CI a missing peer is not skipped: a test saying so fails instead.
 */
export function skipWithout(...peers: Peer[]): string | false {
  const missing = peers.filter((peer) => !hasPeer(peer));
  if (missing.length === 0) return false;
  if (process.env['CI'] === 'true') {
    for (const peer of missing) {
      if (failedInCi.has(peer)) continue;
      failedInCi.add(peer);
      test(`test peer ${peer} is installed (CI runs every test)`, () => assert.fail(`${peer} is missing: ${INSTALL_PEERS} (.ci/apt-packages)`));
    }
    return false;
  }
  record(missing);
  return `needs ${missing.join(', ')} (${INSTALL_PEERS})`;
}

/** As skipWithout(), inside a running test: true when the test was skipped (return at once). */
export function skippedWithout(t: TestContext, ...peers: Peer[]): boolean {
  const missing = peers.filter((peer) => !hasPeer(peer));
  if (missing.length === 0) return false;
  if (process.env['CI'] === 'true') assert.fail(`${missing.join(', ')} missing: ${INSTALL_PEERS} (.ci/apt-packages)`);
  record(missing);
  t.skip(`needs ${missing.join(', ')} (${INSTALL_PEERS})`);
  return true;
}

/** Tells scripts/run-tests.mjs what was missed, for its closing line. */
function record(missing: Peer[]): void {
  const run = process.env['HUB_TEST_RUN'];
  if (!run) return;
  const file = relative(process.cwd(), process.argv[1] ?? '') || 'a test file';
  appendFileSync(join(tmpdir(), `hub-test-peers-${run}.txt`), missing.map((peer) => `${peer}\t${file}\n`).join(''));
}
