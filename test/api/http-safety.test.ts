// Safety over a real socket: keys, limits, media types, unknown routes and methods, headers, and
// what an error may reveal (nothing internal; its id is in the log line).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon } from '../../src/daemon.ts';
import { prepareImport } from '../../src/domain/import.ts';
import { ConfigSchema } from '../../src/config.ts';
import { createLogger, silentLogger } from '../../src/log.ts';
import { createTestHub, ids, json } from '../support/hub.ts';
import { demoRecords, DEMO_USER } from '../../src/demo/site.ts';

const KEY = 'test-key-0123456789abcdefghijklmnop';

async function startDaemon(t: { after: (fn: () => Promise<void> | void) => void }, overrides: Record<string, unknown> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-safety-'));
  const config = ConfigSchema.parse({ dataDir, http: { port: 0, ...overrides }, apiKey: KEY });
  const daemon = new Daemon({ config, log: silentLogger() });
  await daemon.start();
  t.after(async () => {
    await daemon.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return daemon;
}

/** A raw HTTP exchange, so that chunked bodies and exact headers are under the test's control. */
function raw(url: string, options: { method?: string; headers?: Record<string, string>; chunks?: Buffer[] }) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts).toString() }));
    });
    req.on('error', reject);
    for (const chunk of options.chunks ?? []) req.write(chunk);
    req.end();
  });
}

test('the daemon listens on loopback by default', () => {
  const config = ConfigSchema.parse({});
  assert.equal(config.http.host, '127.0.0.1');
  assert.equal(config.http.port, 8080);
});

test('every /v1.0.0 route needs a valid key, unknown routes included', async (t) => {
  const daemon = await startDaemon(t);
  for (const path of ['/v1.0.0/batteries', `/v1.0.0/batteries/${ids.unknown}`, '/v1.0.0/no-such-route', '/v1.0.0/openapi.json']) {
    const cases: [Record<string, string>, string][] = [
      [{}, 'Unauthorized: no X-API-KEY header was sent'],
      // `curl -H "X-API-KEY: $KEY"` with KEY unset.
      [{ 'x-api-key': '' }, 'Unauthorized: the X-API-KEY header is empty'],
      [{ 'x-api-key': 'wrong' }, 'Unauthorized'],
      [{ 'x-api-key': `${KEY}x` }, 'Unauthorized'],
    ];
    for (const [headers, message] of cases) {
      const res = await fetch(daemon.url + path, { headers });
      assert.equal(res.status, 401, path);
      const body = await json(res);
      assert.equal(body.errorCode, 'UNAUTHORIZED');
      assert.equal(body.message, message);
    }
  }
  assert.equal((await fetch(`${daemon.url}/v1.0.0/batteries`, { headers: { 'x-api-key': KEY } })).status, 200);
});

test('a revoked key stops working at once, even when revoked by another process', async (t) => {
  const daemon = await startDaemon(t);
  const { Store } = await import('../../src/store/store.ts');
  const { databasePath } = await import('../../src/config.ts');
  const cli = Store.open(databasePath(daemon.config));
  const { key } = cli.apiKeys.create('app', Date.now());
  assert.equal((await fetch(`${daemon.url}/v1.0.0/batteries`, { headers: { 'x-api-key': key } })).status, 200);
  assert.equal(cli.apiKeys.revoke('app', Date.now()), 1);
  cli.close();
  assert.equal((await fetch(`${daemon.url}/v1.0.0/batteries`, { headers: { 'x-api-key': key } })).status, 401);
});

test('too many failed keys from one address get 429 with Retry-After', async (t) => {
  const daemon = await startDaemon(t, { authFailuresPerMinute: 3 });
  for (let i = 0; i < 3; i++) assert.equal((await fetch(`${daemon.url}/v1.0.0/batteries`, { headers: { 'x-api-key': 'guess' } })).status, 401);
  const limited = await fetch(`${daemon.url}/v1.0.0/batteries`, { headers: { 'x-api-key': KEY } });
  assert.equal(limited.status, 429);
  assert.equal((await json(limited)).errorCode, 'TOO_MANY_REQUESTS');
  assert.ok(Number(limited.headers.get('retry-after')) > 0);
});

test('bodies over 64 KB get 413, with Content-Length and chunked alike, and change nothing', async (t) => {
  const daemon = await startDaemon(t);
  const big = Buffer.from(JSON.stringify({ schedules: [], pad: 'x'.repeat(70 * 1024) }));
  const url = `${daemon.url}/v1.0.0/hvacs/${ids.hvac}/commands/schedule`;
  const declared = await raw(url, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json', 'content-length': String(big.length) }, chunks: [big] });
  assert.equal(declared.status, 413);
  assert.equal(JSON.parse(declared.body).errorCode, 'PAYLOAD_TOO_LARGE');
  const chunks = Array.from({ length: 10 }, (_, i) => big.subarray(i * 8000, (i + 1) * 8000));
  const chunked = await raw(url, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, chunks });
  assert.equal(chunked.status, 413);
  assert.equal(JSON.parse(chunked.body).errorCode, 'PAYLOAD_TOO_LARGE');
  assert.equal(daemon.db.commands.allPending().length, 0);
});

test('unknown routes are 404 NOT_FOUND; a known path with another method is 405 with Allow', async (t) => {
  const daemon = await startDaemon(t);
  const headers = { 'x-api-key': KEY };
  const missing = await fetch(`${daemon.url}/v1.0.0/solar-panels`, { headers });
  assert.equal(missing.status, 404);
  assert.equal((await json(missing)).errorCode, 'NOT_FOUND');
  const wrong = await fetch(`${daemon.url}/v1.0.0/batteries/${ids.battery}`, { method: 'PUT', headers });
  assert.equal(wrong.status, 405);
  assert.equal((await json(wrong)).errorCode, 'METHOD_NOT_ALLOWED');
  assert.equal(wrong.headers.get('allow'), 'DELETE, GET, HEAD');
  const post = await fetch(`${daemon.url}/v1.0.0/batteries`, { method: 'POST', headers });
  assert.equal(post.status, 405);
  // A trailing slash names no route of the API: 404, not a 405 that lists GET as allowed.
  for (const path of [`/v1.0.0/batteries/${ids.battery}/`, '/v1.0.0/batteries/', '/v1.0.0/connections/chargers/']) {
    const res = await fetch(daemon.url + path, { headers });
    assert.equal(res.status, 404, path);
    assert.equal((await json(res)).errorCode, 'NOT_FOUND', path);
  }
});

test('a known query parameter given twice is a 400 naming it; an unknown one repeated is ignored', async (t) => {
  const daemon = await startDaemon(t);
  const headers = { 'x-api-key': KEY };
  // First a clean parse of the same parameter, so that the remembered query cannot hide the check.
  assert.equal((await fetch(`${daemon.url}/v1.0.0/batteries?sortField=VENDOR`, { headers })).status, 200);
  const twice = await fetch(`${daemon.url}/v1.0.0/batteries?sortField=VENDOR&sortField=BOGUS&size=5&size=5`, { headers });
  assert.equal(twice.status, 400);
  const body = await json(twice);
  assert.equal(body.errorCode, 'BAD_REQUEST');
  assert.deepEqual(body.validationErrors.map((e: { field: string }) => e.field).sort(), ['size', 'sortField']);
  const again = await fetch(`${daemon.url}/v1.0.0/batteries?sortField=VENDOR&sortField=BOGUS&size=5&size=5`, { headers });
  assert.equal(again.status, 400, 'a refused query is not remembered as good');
  assert.equal((await fetch(`${daemon.url}/v1.0.0/batteries?utm=a&utm=b`, { headers })).status, 200);
});

test('API answers carry the security headers of an API, documents those of a page', async (t) => {
  const daemon = await startDaemon(t);
  // OWASP's REST Security Cheat Sheet: the headers every API response should carry.
  const api = {
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
  };
  for (const [path, status] of [[`/v1.0.0/batteries`, 200], [`/v1.0.0/batteries/${ids.battery}`, 404], ['/v1.0.0/solar-panels', 404]] as const) {
    const res = await fetch(daemon.url + path, { headers: { 'x-api-key': KEY } });
    assert.equal(res.status, status);
    for (const [name, value] of Object.entries(api)) assert.equal(res.headers.get(name), value, `${path}: ${name}`);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(res.headers.get('x-powered-by'), null);
    assert.equal(res.headers.get('strict-transport-security'), null, 'HSTS never over plain HTTP (RFC 6797 7.2)');
  }
  const unauthorized = await fetch(`${daemon.url}/v1.0.0/batteries`);
  assert.equal(unauthorized.status, 401);
  assert.equal(unauthorized.headers.get('cache-control'), 'no-store');

  const docs = await fetch(`${daemon.url}/docs`);
  assert.equal(docs.status, 200);
  assert.equal(docs.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(docs.headers.get('x-frame-options'), 'SAMEORIGIN');
  assert.equal(docs.headers.get('referrer-policy'), 'no-referrer');
  assert.equal(docs.headers.get('cross-origin-resource-policy'), 'same-site');
  assert.match(docs.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  assert.equal(docs.headers.get('x-powered-by'), null);
});

test('an unexpected error is a bare 500 whose id is in the log line, without stack or SQL', async (t) => {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
  const hub = createTestHub({
    log: createLogger('info', sink),
    runtime: {
      refresh: async () => { throw Object.assign(new Error('SELECT secret FROM api_keys WHERE x'), { name: 'SqliteError', code: 'SQLITE_ERROR' }); },
      commandCreated: () => {},
      deviceDeleted: () => {},
    },
  });
  t.after(hub.close);
  hub.seed(demoRecords(hub.clock.now()));
  const res = await hub.request(`/chargers/${ids.charger}/refresh`);
  assert.equal(res.status, 500);
  const text = await res.text();
  const body = JSON.parse(text);
  assert.deepEqual(Object.keys(body), ['errorCode', 'id', 'message']);
  assert.equal(body.errorCode, 'INTERNAL_SERVER_ERROR');
  assert.doesNotMatch(text, /SELECT|api_keys|at \w+ \(/);
  const logged = lines.map((l) => JSON.parse(l)).find((l) => l.errorId === body.id);
  assert.ok(logged, 'the error id is in a log line');
  assert.equal(logged.cause.code, 'SQLITE_ERROR');
  assert.doesNotMatch(lines.join(''), /SELECT|stack|at async/);
  assert.doesNotMatch(lines.join(''), new RegExp(hub.key));
});

test('client errors are logged with their id too', async (t) => {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
  const hub = createTestHub({ log: createLogger('info', sink) });
  t.after(hub.close);
  const body = await json(await hub.request(`/batteries/${ids.unknown}`));
  assert.ok(lines.some((l) => JSON.parse(l).errorId === body.id));
});

test('a 304 for the vehicle image keeps the PNG type over the socket (the adapter would say text/plain)', async (t) => {
  const daemon = await startDaemon(t);
  const now = Date.now();
  const prepared = prepareImport(demoRecords(now), now, (id) => daemon.db.devices.get(id)?.kind);
  daemon.db.importDevices(prepared.devices, prepared.images, now);
  const url = `${daemon.url}/v1.0.0/users/${DEMO_USER}/vehicles/${ids.vehicle}/image.png`;
  const first = await fetch(url, { headers: { 'x-api-key': KEY } });
  assert.equal(first.status, 200);
  await first.arrayBuffer();
  const again = await fetch(url, { headers: { 'x-api-key': KEY, 'if-none-match': first.headers.get('etag')! } });
  assert.equal(again.status, 304);
  assert.equal(again.headers.get('content-type'), 'image/png');
  assert.equal(again.headers.get('etag'), first.headers.get('etag'));
});

test('a request Node\'s parser refuses (oversized headers, unknown method) still gets the error body, its id logged', async (t) => {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-safety-'));
  const daemon = new Daemon({ config: ConfigSchema.parse({ dataDir, http: { port: 0 }, apiKey: KEY }), log: createLogger('info', sink) });
  await daemon.start();
  t.after(async () => {
    await daemon.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const { port } = new URL(daemon.url);
  const exchange = (text: string) => new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.end(text));
    const parts: Buffer[] = [];
    socket.on('data', (c: Buffer) => parts.push(c));
    socket.on('end', () => resolve(Buffer.concat(parts).toString()));
    socket.on('error', reject);
  });
  for (const request of [
    `GET /v1.0.0/batteries?name=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: hub\r\n\r\n`,
    'FOO /v1.0.0/batteries HTTP/1.1\r\nHost: hub\r\n\r\n',
  ]) {
    const answer = await exchange(request);
    assert.match(answer, /^HTTP\/1\.1 400 /);
    assert.match(answer, /\r\ncontent-type: application\/json\r\n/i);
    assert.match(answer, /\r\ncache-control: no-store\r\n/i);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    assert.equal(body.errorCode, 'BAD_REQUEST');
    assert.match(body.id, /^[0-9a-f-]{36}$/);
    assert.ok(lines.some((line) => line.includes(body.id)), 'the error id is in a log line');
  }
});
