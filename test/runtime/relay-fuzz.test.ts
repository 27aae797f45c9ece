// Property: no relayed request ends the hub. Thousands of generated requests (any JSON in any field,
// header values HTTP cannot carry, paths that try to climb out, binary and non-JSON payloads, missing
// or unusable response topics and correlation data) go through a real broker to the real relay and
// app. Each one that names a usable response topic is answered there with a well-formed answer, no
// 500 among them; afterwards a normal request still works.
//
// A failing run prints its seed; replay it with FC_SEED=<seed> (and FC_PATH=<path> if given).
// FC_RUNS_FACTOR=<n> multiplies the number of runs, for a longer search.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ids } from '../support/hub.ts';
import { RELAY_KEY as KEY, startRelayHub } from '../support/relay-hub.ts';
import { skipWithout } from '../support/peers.ts';
import type { RelayResponse } from '../../src/runtime/relay/relay.ts';

const RUNS = Math.max(1, Math.round(2000 * Number(process.env['FC_RUNS_FACTOR'] ?? 1)));
/** The property stops searching past this (and says how many runs it made); the test's own bound is above it. */
const TIME_LIMIT_MS = 60_000;

const json = fc.jsonValue({ maxDepth: 3 });
/** Strings of every kind: lone surrogates, controls, what HTTP cannot carry, and the docs' old placeholder. */
const anyString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('heh_…', 'a\r\nx-injected: 1', '\u0000', 'é', '\ud800', ' ', '', KEY, 'x'.repeat(3000)),
);
const anyValue = fc.oneof(anyString, json);

const segment = fc.oneof(
  fc.constantFrom('..', '.', '', '%2e%2e', '%2E', '.%2e', '%2f', '%5c', '\\', '..%2f', '%252e%252e', '%zz', '%00', 'health', 'metrics',
    'connect', 'callback', 'batteries', 'hvacs', 'vehicles', 'chargers', 'commands', 'charging-stop', 'image.png', 'users', 'home', 'live',
    ids.battery, ids.vehicle, ids.hvac, 'demo-household'),
  fc.string({ maxLength: 12 }),
);
const path = fc.tuple(
  fc.constantFrom('/v1.0.0/', '/', '//', '/v1.0.0', '', '/v1.0.0/../', '\\v1.0.0\\', '/V1.0.0/', '/v1.0.0%2f'),
  fc.array(segment, { maxLength: 6 }),
  fc.constantFrom('', '?size=1', '?size=-1', '?page=x&size=5000', '#frag', '?a=/../../health#/..', '?'),
).map(([prefix, segments, tail]) => `${prefix}${segments.join('/')}${tail}`);

const headerName = fc.oneof(fc.constantFrom('x-api-key', 'X-API-KEY', 'X-Api-Key', 'content-type', 'accept', 'if-none-match', 'content-length', 'host'), fc.string({ maxLength: 12 }));
const headers = fc.oneof(
  { weight: 4, arbitrary: fc.dictionary(headerName, fc.oneof({ weight: 3, arbitrary: anyString }, json), { maxKeys: 4 }) },
  { weight: 2, arbitrary: fc.constant({ 'x-api-key': KEY, 'content-type': 'application/json' }) },
  { weight: 1, arbitrary: json },
);

const request = fc.record({
  method: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS', 'get', 'CONNECT', 'TRACE', 'G ET', '') }, anyValue),
  path: fc.oneof({ weight: 4, arbitrary: path }, anyValue),
  headers,
  body: fc.oneof(anyValue, json.map((v) => JSON.stringify(v)), fc.constant('{"schedules":[]}')),
  bodyEncoding: fc.oneof({ weight: 3, arbitrary: fc.constantFrom('utf8', 'base64') }, anyValue),
  extra: anyValue,
}, { requiredKeys: [] });

const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
const payload = fc.oneof(
  { weight: 8, arbitrary: request.map((r) => Buffer.from(JSON.stringify(r))) },
  { weight: 1, arbitrary: json.map((v) => Buffer.from(JSON.stringify(v) ?? 'null')) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)) },
  { weight: 1, arbitrary: fc.constantFrom(Buffer.from(deep), Buffer.alloc(200_000, 0x61), Buffer.from(`{"method":"GET","path":"/v1.0.0/batteries","body":"${'x'.repeat(100_000)}"}`), Buffer.alloc(0)) },
);

/** Where to answer: a topic of the run's own (most runs), none, or one the hub must not publish to. */
const topicKind = fc.oneof({ weight: 8, arbitrary: fc.constant('own' as const) }, fc.constantFrom('none', 'partners/fuzz/#', 'partners/+/x', '') );
const correlation = fc.option(fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => Buffer.from(bytes)), { freq: 8 });

function assertWellFormed(answer: RelayResponse): void {
  assert.ok(Number.isInteger(answer.status) && answer.status >= 200 && answer.status <= 599, `status ${answer.status}`);
  assert.notEqual(answer.status, 500, `an internal error: ${answer.body}`);
  assert.ok(answer.bodyEncoding === 'utf8' || answer.bodyEncoding === 'base64');
  assert.equal(typeof answer.body, 'string');
  for (const value of Object.values(answer.headers)) assert.equal(typeof value, 'string');
  // (A HEAD's error has the head and no body.)
  if (answer.status >= 400 && answer.body !== '' && answer.bodyEncoding === 'utf8' && answer.headers['content-type']?.startsWith('application/json')) {
    const error = JSON.parse(answer.body);
    assert.equal(typeof error.errorCode, 'string');
    assert.match(error.id, /^[0-9a-f-]{36}$/);
  }
}

test('any relayed request is answered on its response topic, and the hub stays up', { skip: skipWithout('mosquitto'), timeout: TIME_LIMIT_MS + 60_000 }, async (t) => {
  // Many calls go without a valid key; a high limit keeps the key's own bucket open for the checks.
  const { partner, daemon } = await startRelayHub(t, {}, { authFailuresPerMinute: 1_000_000 });
  // Once the key has worked, the relay-wide bound on wrong keys (tripped by the runs) lets it pass.
  assert.equal((await partner.call({ method: 'GET', path: '/v1.0.0/batteries?size=1', headers: { 'x-api-key': KEY } })).status, 200);
  let run = 0;
  let answered = 0;
  const started = performance.now();
  await fc.assert(
    fc.asyncProperty(payload, topicKind, correlation, async (body, kind, correlationData) => {
      run++;
      if (kind !== 'own') return partner.send(body, { responseTopic: kind === 'none' ? undefined : kind, correlationData: correlationData ?? undefined });
      const responseTopic = `partners/fuzz/${run}`;
      const answer = partner.answerOn(responseTopic, correlationData ?? undefined, 10_000);
      await partner.send(body, { responseTopic, correlationData: correlationData ?? undefined });
      assertWellFormed(await answer);
      answered++;
    }),
    {
      numRuns: RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS, includeErrorInReport: true,
      ...(process.env['FC_SEED'] !== undefined && { seed: Number(process.env['FC_SEED']) }),
      ...(process.env['FC_PATH'] !== undefined && { path: process.env['FC_PATH'] }),
    },
  );
  t.diagnostic(`${run} requests, ${answered} answered, in ${Math.round(performance.now() - started)} ms`);
  assert.ok(answered > run / 2, `only ${answered} of ${run} runs were answered`);

  const normal = await partner.call({ method: 'GET', path: '/v1.0.0/batteries?size=1', headers: { 'x-api-key': KEY } });
  assert.equal(normal.status, 200);
  assert.equal(JSON.parse(normal.body).content.length, 1);
  assert.deepEqual(await (await fetch(`${daemon.url}/health`)).json(), { status: 'up' });
});
