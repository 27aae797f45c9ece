// The relay's door from the partner's side, through a real broker to the real app (issue 34): input
// that used to end the hub, answers given from another request's cache, paths that climbed out of
// /v1.0.0/, and one partner's wrong key locking out the rest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ids } from '../support/hub.ts';
import { DEMO_USER } from '../../src/demo/site.ts';
import { RELAY_KEY as KEY, startRelayHub } from '../support/relay-hub.ts';
import { skipWithout } from '../support/peers.ts';
import type { RelayResponse } from '../../src/runtime/relay/relay.ts';

const mosquitto = { skip: skipWithout('mosquitto') };
const batteries = (size: number, key = KEY) => ({ method: 'GET', path: `/v1.0.0/batteries?size=${size}`, headers: { 'x-api-key': key } });

function errorOf(response: RelayResponse): { errorCode: string; message: string; validationErrors?: { field: string }[] } {
  assert.equal(response.headers['content-type'], 'application/json');
  return JSON.parse(response.body);
}

test('the docs\' step 6 call as written (heh_… with U+2026) is answered 400 naming the header, and the hub stays up', mosquitto, async (t) => {
  const { partner, daemon } = await startRelayHub(t);
  const written = Buffer.from('{"method":"GET","path":"/v1.0.0/batteries?size=5","headers":{"x-api-key":"heh_…"}}');
  const refused = await partner.call(written, { correlation: Buffer.from('1') });
  assert.equal(refused.status, 400);
  assert.deepEqual(errorOf(refused).validationErrors?.map((e) => e.field), ['headers.x-api-key']);
  assert.equal((await partner.call(batteries(1))).status, 200);
  assert.deepEqual(await (await fetch(`${daemon.url}/health`)).json(), { status: 'up' });
});

test('requests that cannot be answered normally are answered with an error, or dropped when there is nowhere to answer', mosquitto, async (t) => {
  const { partner } = await startRelayHub(t);
  // No correlation data: answered on the response topic all the same, without any.
  const uncorrelated = await partner.call(batteries(1), { correlation: undefined, responseTopic: 'partners/uncorrelated' });
  assert.equal(uncorrelated.status, 400);
  assert.deepEqual(errorOf(uncorrelated).validationErrors, [{ field: 'correlationData', message: 'is required (MQTT 5 correlation data)' }]);
  // No response topic, a wildcard one (the broker would drop the hub for publishing there), the
  // request topic itself: nowhere to answer, and the hub's link stays up.
  await partner.send(batteries(1), { correlationData: Buffer.from('a') });
  await partner.send(batteries(1), { responseTopic: 'partners/#', correlationData: Buffer.from('b') });
  await partner.send(batteries(1), { responseTopic: 'partners/+/x', correlationData: Buffer.from('c') });
  await partner.send(batteries(1), { responseTopic: partner.requestTopic, correlationData: Buffer.from('d') });
  await partner.send(Buffer.from([0xff, 0x00, 0xc3]), { responseTopic: 'partners/binary', correlationData: Buffer.from('e') });
  assert.equal((await partner.call(batteries(1))).status, 200);
});

test('an answer larger than maxResponseBytes is a 502, and the hub stays up', mosquitto, async (t) => {
  const { partner } = await startRelayHub(t, { maxResponseBytes: 1024 });
  const big = await partner.call({ method: 'GET', path: `/v1.0.0/users/${DEMO_USER}/vehicles/${ids.vehicle}/image.png`, headers: { 'x-api-key': KEY } });
  assert.equal(big.status, 502);
  assert.equal(errorOf(big).errorCode, 'RESPONSE_TOO_LARGE');
  assert.equal((await partner.call({ method: 'GET', path: '/v1.0.0/batteries?size=1', headers: { 'x-api-key': KEY } })).status, 200);
});

test('a new request under reused correlation data gets its own answer, never the earlier one\'s', mosquitto, async (t) => {
  const { partner } = await startRelayHub(t);
  const correlation = Buffer.from('1');
  const first = await partner.call(batteries(1), { correlation });
  const second = await partner.call(batteries(5), { correlation });
  assert.equal(JSON.parse(first.body).content.length, 1);
  assert.equal(JSON.parse(second.body).content.length, 2, 'the second request\'s own page');
  // The same read again is read again (fresh data), not served from a memory.
  const third = await partner.call(batteries(1), { correlation });
  assert.equal(JSON.parse(third.body).content.length, 1);
});

test('one command POST delivered twice at once creates one command, and both get its answer', mosquitto, async (t) => {
  const { partner, daemon } = await startRelayHub(t);
  const before = daemon.db.commands.ofDeviceId(ids.vehicle, 'ALL').length;
  const stop = { method: 'POST', path: `/v1.0.0/vehicles/${ids.vehicle}/commands/charging-stop`, headers: { 'x-api-key': KEY } };
  const correlation = randomBytes(8);
  const [a, b] = await Promise.all([partner.call(stop, { correlation }), partner.call(stop, { correlation })]);
  const again = await partner.call(stop, { correlation });
  assert.equal(a.status, 200);
  assert.deepEqual(b, a);
  assert.deepEqual(again, a);
  assert.equal(daemon.db.commands.ofDeviceId(ids.vehicle, 'ALL').length, before + 1);
  // Another partner (another response topic) with the same correlation data is another call.
  const other = await partner.call(stop, { correlation, responseTopic: 'partners/other' });
  assert.notEqual(JSON.parse(other.body).id, JSON.parse(a.body).id);
  assert.equal(daemon.db.commands.ofDeviceId(ids.vehicle, 'ALL').length, before + 2);
});

test('relayed paths are normalised before the /v1.0.0/ check: climbing out is 404 and reaches no other route', mosquitto, async (t) => {
  const { partner } = await startRelayHub(t);
  for (const path of ['/v1.0.0/../health', '/v1.0.0/%2e%2e/connect/callback', '/v1.0.0/%2E%2E/metrics', '/v1.0.0\\..\\health',
    '/v1.0.0/..%2fhealth', '/v1.0.0/x/../../home/live', '/health?/v1.0.0/', '/metrics']) {
    const answer = await partner.call({ method: 'GET', path, headers: { 'x-api-key': KEY } });
    assert.equal(answer.status, 404, path);
    assert.deepEqual({ ...errorOf(answer), id: undefined }, { errorCode: 'NOT_FOUND', message: 'Only /v1.0.0/ paths are relayed', id: undefined }, path);
  }
  const dotted = await partner.call({ method: 'GET', path: '/v1.0.0/./x/..//batteries?size=1#frag', headers: { 'x-api-key': KEY } });
  assert.equal(dotted.status, 200);
  assert.equal(JSON.parse(dotted.body).content.length, 1);
});

test('failed keys through the relay are limited per presented key: one careless partner locks out only itself', mosquitto, async (t) => {
  const { partner } = await startRelayHub(t, {}, { authFailuresPerMinute: 5 });
  const wrong = (n: number) => partner.call(batteries(1, 'wrong-key-of-partner-a'), { correlation: Buffer.from(`a${n}`) });
  for (let i = 0; i < 5; i++) assert.equal((await wrong(i)).status, 401);
  const limited = await wrong(5);
  assert.equal(limited.status, 429);
  assert.ok(Number(limited.headers['retry-after']) > 0);
  assert.equal((await partner.call(batteries(1))).status, 200, 'a partner with a valid key is not locked out');
  assert.equal((await partner.call(batteries(1, 'wrong-key-of-partner-b'))).status, 401, 'nor is another key');
  assert.equal((await partner.call({ method: 'GET', path: '/v1.0.0/batteries' })).status, 401, 'nor a call without a key');
  // The limited key stays limited though the others pass.
  assert.equal((await wrong(6)).status, 429);
});

test('a guesser trying a new key each time is bounded relay-wide; the partners\' working keys still pass', mosquitto, async (t) => {
  const { partner } = await startRelayHub(t);
  assert.equal((await partner.call(batteries(1))).status, 200, 'the partner\'s key has worked');
  for (let i = 0; i < 100; i++) assert.equal((await partner.call(batteries(1, `guess-${i}`))).status, 401);
  const bounded = await partner.call(batteries(1, 'guess-100'));
  assert.equal(bounded.status, 429);
  assert.ok(Number(bounded.headers['retry-after']) > 0);
  assert.equal((await partner.call(batteries(1))).status, 200);
  assert.equal((await partner.call({ method: 'GET', path: '/v1.0.0/batteries' })).status, 401, 'no key guesses nothing');
});
