// The OCPP handshake's password checks are bounded: cheap refusals first (a locked-out client, an
// unknown charge point id, a password no charger could send) cost no hash; the rest wait in a bounded
// queue (here 2 per client, 8 in all), clients served in turn, past which the handshake gets 503
// with Retry-After; a check that
// waited while its client got locked out costs no hash either. The hash is gated here so that the
// queue's state is known; test/transport/ocpp-handshake-load.test.ts does it over real sockets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OcppAuthenticator, passwordCandidate } from '../../../src/runtime/ocpp/ocpp-auth.ts';
import { AuthFailures } from '../../../src/runtime/auth-failures.ts';
import { silentLogger } from '../../../src/log.ts';
import type { Store } from '../../../src/store/store.ts';
import type { OcppPairing } from '../../../src/runtime/ocpp/ocpp-pairing.ts';

const GOOD = 'correct-horse-battery-1';

function authenticator(perMinute = 30) {
  const gates: Array<{ password: string; open: () => void }> = [];
  const hashed: string[] = [];
  const failures = new AuthFailures(() => perMinute);
  const store = { sync() {}, ocpp: { credential: (id: string) => (id === 'ZAP-001' ? { deviceId: 'd1', passwordHash: 'stored-hash' } : undefined) } } as unknown as Store;
  const auth = new OcppAuthenticator({
    store, failures, log: silentLogger(), pairing: { accepts: () => false } as unknown as OcppPairing, queue: { perClient: 2, total: 8 },
    verify: (password) => {
      hashed.push(String(password));
      return new Promise((resolve) => gates.push({ password: String(password), open: () => resolve(String(password) === GOOD) }));
    },
  });
  /** Lets the running hash finish, once it has started. */
  const release = async () => {
    while (gates.length === 0) await new Promise((r) => setImmediate(r));
    gates.shift()!.open();
  };
  return { auth, failures, hashed, release };
}

test('an unknown charge point id, no password or a password no charger could send is refused without a hash', async () => {
  const { auth, hashed, failures } = authenticator();
  for (const [id, password] of [['ZAP-999', GOOD], ['ZAP-001', undefined], ['ZAP-001', 'short'], ['ZAP-001', 'x'.repeat(41)], ['ZAP-001', 'a space is not printable here']] as const) {
    const verdict = await auth.authenticate(id, password === undefined ? undefined : Buffer.from(password), '192.0.2.1');
    assert.deepEqual(verdict, { accept: false, status: 401, reason: 'Unknown charge point or wrong password' });
  }
  assert.deepEqual(hashed, []);
  assert.equal(auth.stats.hashes, 0);
  assert.ok(failures.any, 'each counted as a failure');
});

test('a password is hashed once: as sent when printable, in hexadecimal when sent as an AuthorizationKey\'s bytes', () => {
  assert.deepEqual(passwordCandidate(Buffer.from(GOOD)), Buffer.from(GOOD));
  assert.equal(passwordCandidate(Buffer.from('00ff10203040506070809a0b0c0d0e0f', 'hex')), '00ff10203040506070809a0b0c0d0e0f');
  assert.equal(passwordCandidate(Buffer.from([1, 2, 3, 4, 5, 6, 7])), undefined, 'too short to be a key');
  assert.equal(passwordCandidate(Buffer.alloc(21, 1)), undefined, 'too long to be a decoded key');
});

test('the queue of password checks is bounded per client and in all: past it, 503 with Retry-After and no hash', async () => {
  const { auth, hashed, release } = authenticator(1000);
  const wrong = (i: number) => Buffer.from(`wrong-password-${String(i).padStart(4, '0')}`);
  const first = [auth.authenticate('ZAP-001', wrong(1), '192.0.2.1'), auth.authenticate('ZAP-001', wrong(2), '192.0.2.1')];
  const third = await auth.authenticate('ZAP-001', wrong(3), '192.0.2.1');
  assert.deepEqual(third, { accept: false, status: 503, reason: 'The central system is busy checking other chargers; try again', retryAfterSeconds: 1 });
  // Other clients fill the rest of the queue (8 in all), then everyone gets 503.
  const others = [3, 4, 5, 6, 7, 8].map((n) => auth.authenticate('ZAP-001', wrong(10 + n), `192.0.2.${n}`));
  assert.equal((await auth.authenticate('ZAP-001', Buffer.from(GOOD), '192.0.2.99')).accept, false, 'the queue is full');
  assert.equal(auth.stats.maxQueued, 8);
  assert.equal(auth.stats.busy, 2);
  for (let i = 0; i < 8; i++) await release();
  for (const verdict of await Promise.all([...first, ...others])) assert.equal(verdict.accept === false && verdict.status, 401);
  assert.equal(hashed.length, 8, 'one hash per admitted check, none for the refused');
  // The queue drained: the good charger gets in.
  const good = auth.authenticate('ZAP-001', Buffer.from(GOOD), '192.0.2.99');
  await release();
  assert.deepEqual(await good, { accept: true });
  // And reconnects without a hash.
  assert.deepEqual(await auth.authenticate('ZAP-001', Buffer.from(GOOD), '192.0.2.99'), { accept: true });
  assert.equal(hashed.length, 9);
});

test('a locked-out client costs no hash, also for a check that was waiting when it got locked out', async () => {
  const { auth, hashed, release } = authenticator(2);
  const a = auth.authenticate('ZAP-001', Buffer.from('wrong-password-0001'), '192.0.2.1');
  const b = auth.authenticate('ZAP-001', Buffer.from('wrong-password-0002'), '192.0.2.1');
  // An unknown id from the same client is one failure, the first check's wrong password the second: locked out.
  assert.equal(((await auth.authenticate('ZAP-404', Buffer.from(GOOD), '192.0.2.1')) as { status: number }).status, 401);
  await release();
  assert.equal(((await a) as { status: number }).status, 401);
  const waited = await b;
  assert.equal(waited.accept === false && waited.status, 429);
  assert.ok(waited.accept === false && (waited.retryAfterSeconds ?? 0) > 0);
  const later = await auth.authenticate('ZAP-001', Buffer.from(GOOD), '192.0.2.1');
  assert.equal(later.accept === false && later.status, 429, 'even the right password waits for the minute');
  assert.equal(hashed.length, 1, 'only the first check hashed');
});

test('clients are served in turn: a flood from one client delays another\'s charger by one check, not by the flood', async () => {
  const { auth, hashed, release } = authenticator(1000);
  const flood = [1, 2].map((i) => auth.authenticate('ZAP-001', Buffer.from(`wrong-password-000${i}`), '192.0.2.1'));
  const flood2 = [3, 4].map((i) => auth.authenticate('ZAP-001', Buffer.from(`wrong-password-000${i}`), '192.0.2.2'));
  const good = auth.authenticate('ZAP-001', Buffer.from(GOOD), '192.0.2.99');
  for (let i = 0; i < 5; i++) await release();
  await Promise.all([...flood, ...flood2, good]);
  assert.deepEqual(hashed, ['wrong-password-0001', 'wrong-password-0003', GOOD, 'wrong-password-0002', 'wrong-password-0004']);
  assert.deepEqual(await good, { accept: true });
});
