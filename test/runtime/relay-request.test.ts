// What a relayed request may be (src/runtime/relay/relay-request.ts): every field checked as data, the
// path normalised before the /v1.0.0/ check, every refusal an answer with the API's error body.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isValidRelayRequest, parseRelayRequest, payloadLimit, requestFingerprint, type RelayResponse, type ValidRelayRequest } from '../../src/runtime/relay/relay-request.ts';

const LIMIT = 4096;

function parse(request: unknown): ValidRelayRequest | RelayResponse {
  return parseRelayRequest(Buffer.isBuffer(request) ? request : Buffer.from(JSON.stringify(request)), LIMIT);
}

function refusal(request: unknown): { status: number; errorCode: string; fields: string[] } {
  const parsed = parse(request);
  assert.ok(!isValidRelayRequest(parsed), `expected a refusal of ${JSON.stringify(request)}`);
  const body = JSON.parse(parsed.body);
  assert.match(body.id, /^[0-9a-f-]{36}$/);
  return { status: parsed.status, errorCode: body.errorCode, fields: (body.validationErrors ?? []).map((e: { field: string }) => e.field) };
}

function forwarded(path: string): string {
  const parsed = parse({ method: 'GET', path });
  assert.ok(isValidRelayRequest(parsed), `expected ${path} to be forwarded, got ${JSON.stringify(parsed)}`);
  return parsed.path;
}

test('the docs\' old step 6 key (heh_… with U+2026) is a 400 naming the header, not a throw', () => {
  assert.deepEqual(refusal({ method: 'GET', path: '/v1.0.0/batteries?size=5', headers: { 'x-api-key': 'heh_…' } }),
    { status: 400, errorCode: 'BAD_REQUEST', fields: ['headers.x-api-key'] });
});

test('header values HTTP cannot carry, wrong types and doubled names are refused by field', () => {
  for (const value of ['a\r\nx-injected: 1', 'nul\u0000', 'é', 'x'.repeat(3000)]) {
    assert.deepEqual(refusal({ method: 'GET', path: '/v1.0.0/batteries', headers: { 'content-type': value } }).fields, ['headers.content-type']);
  }
  for (const value of [5, null, true, ['k'], { k: 1 }]) {
    assert.deepEqual(refusal({ method: 'GET', path: '/v1.0.0/batteries', headers: { 'X-API-KEY': value } }).fields, ['headers.x-api-key']);
  }
  assert.deepEqual(refusal({ method: 'GET', path: '/v1.0.0/batteries', headers: { 'x-api-key': 'a', 'X-Api-Key': 'b' } }).fields, ['headers.x-api-key']);
  for (const headers of [[], 'x-api-key: k', 7]) {
    assert.deepEqual(refusal({ method: 'GET', path: '/v1.0.0/batteries', headers }).fields, ['headers']);
  }
  // Headers that are not forwarded are ignored, whatever they hold.
  const ok = parse({ method: 'get', path: '/v1.0.0/batteries', headers: { 'x-other\n': { deep: [1] }, Accept: 'application/json' } });
  assert.ok(isValidRelayRequest(ok));
  assert.deepEqual(ok.headers, { accept: 'application/json' });
  assert.equal(ok.method, 'GET');
});

test('any JSON type in method, path, body and bodyEncoding is a 400 naming the field', () => {
  for (const method of [undefined, null, 1, 'G ET', 'CONNECT', 'TRACE', ['GET'], {}]) {
    assert.deepEqual(refusal({ method, path: '/v1.0.0/batteries' }).fields, ['method']);
  }
  for (const path of [undefined, null, 1, [], {}, '', 'v1.0.0/batteries', '/v1.0.0/ batteries', '/v1.0.0/bätteries', `/v1.0.0/${'a'.repeat(2100)}`, '/v1.0.0/%zz']) {
    assert.deepEqual(refusal({ method: 'GET', path }).fields, ['path'], `path ${JSON.stringify(path)}`);
  }
  for (const body of [1, true, [], {}]) {
    assert.deepEqual(refusal({ method: 'POST', path: '/v1.0.0/batteries', body }).fields, ['body']);
  }
  assert.deepEqual(refusal({ method: 'POST', path: '/v1.0.0/x', body: '\ud800' }).fields, ['body']);
  assert.deepEqual(refusal({ method: 'POST', path: '/v1.0.0/x', body: 'not base64!', bodyEncoding: 'base64' }).fields, ['body']);
  assert.deepEqual(refusal({ method: 'POST', path: '/v1.0.0/x', body: 'abc', bodyEncoding: 'hex' }).fields, ['bodyEncoding']);
  assert.deepEqual(refusal({ method: 5, path: 5, headers: 5, body: 5 }).fields, ['method', 'path', 'headers', 'body']);
});

test('a payload that is not a JSON object in UTF-8, or too large, is refused', () => {
  for (const payload of ['', '{not json', '[]', '"GET"', 'null', '42']) {
    assert.deepEqual(refusal(Buffer.from(payload)).fields, ['payload'], payload);
  }
  assert.deepEqual(refusal(Buffer.from([0x7b, 0xff, 0xfe, 0x7d])).fields, ['payload'], 'invalid UTF-8');
  assert.deepEqual(refusal(Buffer.from(`${'['.repeat(10_000)}${']'.repeat(10_000)}`)).fields, ['payload'], 'deep nesting');
  const deep = `${'{"a":'.repeat(1500)}1${'}'.repeat(1500)}`;
  assert.deepEqual(refusal(Buffer.from(`{"method":"GET","path":"/v1.0.0/x","headers":{"accept":${deep}},"body":${deep}}`)).fields, ['headers.accept', 'body'], 'deep fields');
  assert.equal(refusal(Buffer.alloc(payloadLimit(LIMIT) + 1, 0x20)).status, 413);
  assert.equal(refusal({ method: 'POST', path: '/v1.0.0/x', body: 'x'.repeat(LIMIT + 1) }).status, 413);
  const base64 = parse({ method: 'POST', path: '/v1.0.0/x', body: Buffer.from('{"a":1}').toString('base64'), bodyEncoding: 'base64' });
  assert.ok(isValidRelayRequest(base64));
  assert.equal(base64.body?.toString(), '{"a":1}');
});

test('paths are normalised before the /v1.0.0/ check: climbing out is 404, and nothing else is forwarded', () => {
  for (const path of [
    '/v1.0.0/../health', '/v1.0.0/%2e%2e/connect/callback', '/v1.0.0/%2E%2E/metrics', '/v1.0.0/.%2e/health',
    '/v1.0.0/..%2fhealth', '/v1.0.0%2f..%2fhealth', '/v1.0.0/%5c..%5chealth', '/v1.0.0\\..\\health', '/v1.0.0/batteries/../../health',
    '/v1.0.0/x/%2e%2e%2f%2e%2e%2fhealth', '/health?/v1.0.0/', '/health#/v1.0.0/', '/v1.0.0', '/v1.0.0?x=/v1.0.0/', '/metrics', '/v1.0.00/x', '/v1.0.0/x%2fy',
  ]) {
    assert.deepEqual(refusal({ method: 'GET', path }), { status: 404, errorCode: 'NOT_FOUND', fields: [] }, path);
  }
  assert.equal(forwarded('/v1.0.0/batteries?size=5'), '/v1.0.0/batteries?size=5');
  assert.equal(forwarded('/v1.0.0/./batteries'), '/v1.0.0/batteries');
  assert.equal(forwarded('/v1.0.0/x/../batteries'), '/v1.0.0/batteries');
  assert.equal(forwarded('//v1.0.0//batteries'), '/v1.0.0/batteries');
  assert.equal(forwarded('/v1.0.0/batteries#/../../health'), '/v1.0.0/batteries');
  assert.equal(forwarded('/v1.0.0/batteries?next=/../../health'), '/v1.0.0/batteries?next=/../../health');
  // A percent sign kept literal is data for the app, not a second decoding.
  assert.equal(forwarded('/v1.0.0/%252e%252e/health'), '/v1.0.0/%252e%252e/health');
});

test('the fingerprint is the request, however its JSON was spelt', () => {
  const a = parse({ method: 'post', path: '/v1.0.0/./x', headers: { 'X-API-KEY': 'k', 'Content-Type': 'application/json' }, body: '{}' });
  const b = parse({ body: '{}', headers: { 'content-type': 'application/json', 'x-api-key': 'k', other: 1 }, path: '/v1.0.0/x', method: 'POST' });
  const c = parse({ method: 'POST', path: '/v1.0.0/x', headers: { 'x-api-key': 'k', 'content-type': 'application/json' }, body: '{ }' });
  const d = parse({ method: 'POST', path: '/v1.0.0/x', headers: { 'x-api-key': 'other', 'content-type': 'application/json' }, body: '{}' });
  assert.ok(isValidRelayRequest(a) && isValidRelayRequest(b) && isValidRelayRequest(c) && isValidRelayRequest(d));
  assert.equal(requestFingerprint(a), requestFingerprint(b));
  assert.notEqual(requestFingerprint(a), requestFingerprint(c));
  assert.notEqual(requestFingerprint(a), requestFingerprint(d));
});
