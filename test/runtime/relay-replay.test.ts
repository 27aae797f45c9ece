// Redelivery memory (src/runtime/relay/relay-replay.ts): recognised by response topic, correlation data and
// the request itself; a pending duplicate shares the first one's answer; bounded in entries, bytes
// and time. Time is the memory's own clock, moved by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReplayMemory } from '../../src/runtime/relay/relay-replay.ts';
import type { RelayResponse } from '../../src/runtime/relay/relay-request.ts';

const ONE = Buffer.from('1');

function response(status: number, body = 'ok'): RelayResponse {
  return { status, headers: {}, body, bodyEncoding: 'utf8' };
}

function deferred(): { promise: Promise<RelayResponse>; resolve: (r: RelayResponse) => void } {
  let resolve!: (r: RelayResponse) => void;
  const promise = new Promise<RelayResponse>((r) => (resolve = r));
  return { promise, resolve };
}

function memory(limits: Partial<{ maxEntries: number; maxBytes: number; windowMs: number }> = {}) {
  const clock = { now: 0 };
  const replay = new ReplayMemory({ maxEntries: 100, maxBytes: 1_000_000, windowMs: 60_000, ...limits }, () => clock.now);
  return { replay, clock };
}

test('a duplicate while the first is pending gets that one\'s answer; another request under the same correlation does not', async () => {
  const { replay } = memory();
  const first = deferred();
  replay.remember('r/1', ONE, 'post-a', true, first.promise);
  const duplicate = replay.earlier('r/1', ONE, 'post-a');
  assert.equal(duplicate, first.promise);
  assert.equal(replay.earlier('r/1', ONE, 'get-b'), undefined, 'a different request is carried out');
  assert.equal(replay.earlier('r/2', ONE, 'post-a'), undefined, 'another response topic is another partner');
  assert.equal(replay.earlier('r/1', Buffer.from('2'), 'post-a'), undefined);
  first.resolve(response(200, 'command'));
  assert.deepEqual(await duplicate, response(200, 'command'));
});

test('a write\'s answer is kept for the window; a read\'s only while pending; "try again" answers are not kept', async () => {
  const { replay, clock } = memory();
  replay.remember('r', ONE, 'post', true, Promise.resolve(response(200, 'command')));
  replay.remember('r', Buffer.from('read'), 'get', false, Promise.resolve(response(200, 'page')));
  replay.remember('r', Buffer.from('busy'), 'post', true, Promise.resolve(response(503)));
  replay.remember('r', Buffer.from('limited'), 'post', true, Promise.resolve(response(429)));
  await new Promise(setImmediate);
  assert.deepEqual(await replay.earlier('r', ONE, 'post'), response(200, 'command'));
  assert.equal(replay.earlier('r', Buffer.from('read'), 'get'), undefined);
  assert.equal(replay.earlier('r', Buffer.from('busy'), 'post'), undefined);
  assert.equal(replay.earlier('r', Buffer.from('limited'), 'post'), undefined);
  clock.now = 59_999;
  assert.ok(replay.earlier('r', ONE, 'post'));
  clock.now = 60_000;
  assert.equal(replay.earlier('r', ONE, 'post'), undefined, 'past the window');
  assert.equal(replay.size, 0);
});

test('a different request under reused correlation data replaces the earlier, even one still pending', async () => {
  const { replay } = memory();
  const first = deferred();
  replay.remember('r', ONE, 'a', true, first.promise);
  replay.remember('r', ONE, 'b', true, Promise.resolve(response(200, 'b')));
  await new Promise(setImmediate);
  first.resolve(response(200, 'a'));
  await new Promise(setImmediate);
  assert.equal(replay.earlier('r', ONE, 'a'), undefined);
  assert.deepEqual(await replay.earlier('r', ONE, 'b'), response(200, 'b'));
  assert.equal(replay.size, 1);
});

test('memory is bounded in entries and in bytes, oldest first; an answer over the byte bound is not kept', async () => {
  const { replay } = memory({ maxEntries: 10, maxBytes: 20_000 });
  for (let i = 0; i < 50; i++) replay.remember('r', Buffer.from(String(i)), 'post', true, Promise.resolve(response(200, String(i))));
  await new Promise(setImmediate);
  assert.equal(replay.size, 10);
  assert.equal(replay.earlier('r', Buffer.from('39'), 'post'), undefined);
  assert.ok(replay.earlier('r', Buffer.from('40'), 'post'));

  for (let i = 0; i < 10; i++) replay.remember('big', Buffer.from(String(i)), 'post', true, Promise.resolve(response(200, 'x'.repeat(5_000))));
  await new Promise(setImmediate);
  assert.ok(replay.keptBytes <= 20_000, `${replay.keptBytes} bytes kept`);
  assert.ok(replay.earlier('big', Buffer.from('9'), 'post'));
  assert.equal(replay.earlier('big', Buffer.from('0'), 'post'), undefined);

  replay.remember('huge', ONE, 'post', true, Promise.resolve(response(200, 'x'.repeat(30_000))));
  await new Promise(setImmediate);
  assert.equal(replay.earlier('huge', ONE, 'post'), undefined);
  assert.ok(replay.keptBytes <= 20_000);
});
