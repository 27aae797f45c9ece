// The relay-wide bound on key guessing (src/runtime/relay/relay-key-guard.ts): past the wrong keys a minute
// allows, keys not seen working wait for the minute's end; the partners' working keys still pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RelayKeyGuard } from '../../src/runtime/relay/relay-key-guard.ts';

function guard(perMinute = 3) {
  const clock = { now: 1_000 };
  return { clock, guard: new RelayKeyGuard(perMinute, 'relay:no-key', () => clock.now) };
}

test('past the wrong keys a minute allows, unknown keys wait out the minute; working keys and no key pass', () => {
  const { guard: g, clock } = guard();
  g.answered('relay:good', 200);
  for (const key of ['relay:a', 'relay:b']) g.answered(key, 401);
  assert.equal(g.retryAfterSeconds('relay:c'), 0, 'under the bound');
  g.answered('relay:c', 401);
  assert.equal(g.retryAfterSeconds('relay:d'), 60);
  assert.equal(g.retryAfterSeconds('relay:good'), 0);
  assert.equal(g.retryAfterSeconds('relay:no-key'), 0);
  clock.now += 59_500;
  assert.equal(g.retryAfterSeconds('relay:d'), 1);
  clock.now += 500;
  assert.equal(g.retryAfterSeconds('relay:d'), 0, 'the minute is over');
  g.answered('relay:d', 401);
  assert.equal(g.retryAfterSeconds('relay:e'), 0, 'a new minute counts from one');
});

test('calls without a key, refusals other than 401, and a key revoked since it worked', () => {
  const { guard: g } = guard(2);
  for (let i = 0; i < 10; i++) g.answered('relay:no-key', 401);
  for (let i = 0; i < 10; i++) g.answered('relay:x', 429);
  assert.equal(g.retryAfterSeconds('relay:y'), 0, 'neither is a guess');
  g.answered('relay:revoked', 200);
  g.answered('relay:revoked', 401);
  g.answered('relay:other', 401);
  assert.ok(g.retryAfterSeconds('relay:revoked') > 0, 'known no longer');
});
