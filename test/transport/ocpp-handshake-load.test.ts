// 150 bad OCPP handshakes at once, over real sockets on loopback, against a whole hub with a paired
// charger: the expensive password checks are bounded (no hash for an unknown id or a locked-out
// client, a bounded queue answered 503 with Retry-After past it), and the real charger still gets in.
// How long it waits is measured by bench/ocpp-handshakes.ts, not asserted here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ocppCharger, startOcppHub } from '../support/ocpp-hub.ts';
import { handshake } from '../support/ocpp-handshake.ts';

const CHARGER = '0c000000-0000-4000-8000-00000000c101';

test('150 concurrent bad handshakes cost at most the failure limit in hashes, overflow gets 503 with Retry-After, and the real charger connects', async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP-001')], { config: { http: { port: 0, authFailuresPerMinute: 5 } } });
  const url = hub.daemon.url;
  const answers = await Promise.all(Array.from({ length: 150 }, (_, i) => handshake(url, 'ZAP-001', `wrong-password-${String(i).padStart(4, '0')}`, '127.0.0.2')));
  const statuses = new Set(answers.map((a) => a.status));
  assert.deepEqual([...statuses].filter((s) => ![401, 429, 503].includes(s)), [], `only refusals: ${[...statuses]}`);
  assert.ok(statuses.has(503), 'the queue of password checks filled up');
  for (const answer of answers) if (answer.status === 503 || answer.status === 429) assert.match(answer.retryAfter ?? '', /^[1-9]\d*$/);
  const stats = hub.daemon.ocpp!.authStats;
  assert.ok(stats.hashes <= 5, `no hash once the client is locked out (limit 5 a minute): ${stats.hashes}`);
  assert.ok(stats.maxQueued <= 32, `the queue stayed bounded: ${stats.maxQueued}`);

  // Once locked out (one at a time until it is), the client costs nothing, whatever it sends; unknown ids from elsewhere neither.
  for (let i = 0; (await handshake(url, 'ZAP-001', `wrong-again-password-${i}`, '127.0.0.2')).status !== 429; i++) assert.ok(i < 5);
  assert.ok(hub.daemon.ocpp!.authStats.hashes <= 5);
  const hashesBefore = hub.daemon.ocpp!.authStats.hashes;
  const locked = await Promise.all(Array.from({ length: 20 }, () => handshake(url, 'ZAP-001', 'correct-horse-battery-1', '127.0.0.2')));
  assert.deepEqual(new Set(locked.map((a) => a.status)), new Set([429]));
  const unknown = await Promise.all(Array.from({ length: 20 }, (_, i) => handshake(url, `ZAP-9${i}`, 'correct-horse-battery-1', '127.0.0.3')));
  assert.deepEqual(new Set(unknown.map((a) => a.status)), new Set([401, 429]));
  assert.equal(hub.daemon.ocpp!.authStats.hashes, hashesBefore);

  // The real charger, from its own address, gets in.
  const sim = hub.sim('ZAP-001');
  await sim.connect();
  await hub.online(CHARGER, true);
});
