// What reaches a client at the edge of the server, before or around the app: an early 413 that every
// client reads, over a connection that stays sound; and refusals Node or the adapter would make on
// their own (Host, target, Expect, chunked framing) answered as the API's error, its id logged.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon } from '../../src/daemon.ts';
import { ConfigSchema } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';

const KEY = 'edge-test-key-0123456789abcdefghijk';
const LIMIT = 64 * 1024;
const SIZES = [LIMIT + 1, 200 * 1024, 2 * 1024 * 1024, 5 * 1024 * 1024];
const PATH = '/v1.0.0/connections/chargers';

async function startDaemon(t: TestContext) {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-edge-'));
  const daemon = new Daemon({ config: ConfigSchema.parse({ dataDir, http: { port: 0 }, apiKey: KEY }), log: createLogger('info', sink) });
  await daemon.start();
  t.after(async () => {
    await daemon.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const logged = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { daemon, port: Number(new URL(daemon.url).port), logged };
}

function assertErrorBody(text: string, code: string): { id: string } {
  const body = JSON.parse(text) as { errorCode: string; id: string; message: string };
  assert.equal(body.errorCode, code);
  assert.match(body.id, /^[0-9a-f-]{36}$/);
  assert.equal(typeof body.message, 'string');
  return body;
}

const WEBSOCKET = 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';

const bodyOf = (size: number) => Buffer.alloc(size, 0x20);

test('fetch: a body over the limit, sent with a length or chunked, always reads the 413', async (t) => {
  const { daemon } = await startDaemon(t);
  for (const size of SIZES) {
    for (let round = 0; round < 5; round++) {
      const sized = await fetch(`${daemon.url}${PATH}`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: bodyOf(size) });
      assert.equal(sized.status, 413, `${size} bytes with a length`);
      assertErrorBody(await sized.text(), 'PAYLOAD_TOO_LARGE');
      const data = bodyOf(size);
      const stream = new ReadableStream({
        start(controller) {
          for (let at = 0; at < data.length; at += 16 * 1024) controller.enqueue(data.subarray(at, at + 16 * 1024));
          controller.close();
        },
      });
      const chunked = await fetch(`${daemon.url}${PATH}`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: stream, duplex: 'half' } as RequestInit);
      assert.equal(chunked.status, 413, `${size} bytes chunked`);
      assertErrorBody(await chunked.text(), 'PAYLOAD_TOO_LARGE');
    }
  }
});

test('a keep-alive agent: after a 413 the connection either serves the next request or said Connection: close', async (t) => {
  const { daemon } = await startDaemon(t);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.after(() => agent.destroy());
  const exchange = (method: string, path: string, body?: Buffer, chunked = false) => new Promise<{ status: number; connection?: string; text: string; socket: unknown }>((resolve, reject) => {
    const headers: Record<string, string> = { 'x-api-key': KEY, 'content-type': 'application/json' };
    if (body && !chunked) headers['content-length'] = String(body.length);
    const req = httpRequest(`${daemon.url}${path}`, { method, agent, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, text: Buffer.concat(parts).toString(), socket: req.socket }));
    });
    req.on('error', reject);
    if (body) for (let at = 0; at < body.length; at += 64 * 1024) req.write(body.subarray(at, at + 64 * 1024));
    req.end();
  });
  for (const size of SIZES) {
    for (const chunked of [false, true]) {
      const refused = await exchange('POST', PATH, bodyOf(size), chunked);
      assert.equal(refused.status, 413);
      assertErrorBody(refused.text, 'PAYLOAD_TOO_LARGE');
      const next = await exchange('GET', '/v1.0.0/batteries');
      assert.equal(next.status, 200, `the request after a ${size}-byte ${chunked ? 'chunked ' : ''}413`);
      if (refused.connection !== 'close') assert.equal(next.socket, refused.socket, 'a connection kept alive is the one reused');
    }
  }
});

test('curl reads the 413 of a large upload', async (t) => {
  const { daemon } = await startDaemon(t);
  const dir = mkdtempSync(join(tmpdir(), 'hub-edge-curl-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const size of SIZES) {
    const file = join(dir, `body-${size}`);
    writeFileSync(file, bodyOf(size));
    for (const chunked of [false, true]) {
      const args = ['-s', '-X', 'POST', '-H', `X-API-KEY: ${KEY}`, '-H', 'Content-Type: application/json', '--data-binary', `@${file}`, '-w', '\n%{http_code}', `${daemon.url}${PATH}`];
      if (chunked) args.splice(1, 0, '-H', 'Transfer-Encoding: chunked');
      const out = await new Promise<string>((resolve, reject) => execFile('curl', args, { maxBuffer: 1 << 20 }, (err, stdout) => (err ? reject(err) : resolve(stdout))));
      const [text, status] = [out.slice(0, out.lastIndexOf('\n')), out.slice(out.lastIndexOf('\n') + 1)];
      assert.equal(status, '413', `${size} bytes${chunked ? ' chunked' : ''}`);
      assertErrorBody(text, 'PAYLOAD_TOO_LARGE');
    }
  }
});

/** Sends raw bytes and reads until the server closes or a whole answer with a length has arrived. */
function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let answer = '';
    const done = () => {
      socket.destroy();
      resolve(answer);
    };
    socket.on('data', (c: Buffer) => {
      answer += c.toString();
      const head = answer.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)\r\n/i.exec(answer);
      if (head >= 0 && length && Buffer.byteLength(answer.slice(head + 4)) >= Number(length[1])) done();
    });
    socket.on('end', done);
    socket.on('error', (err) => (answer ? done() : reject(err)));
  });
}

test('refusals before the API (Host, target, Expect, an upgrade elsewhere than /ocpp/, CONNECT) are the API\'s error body with security headers, the id logged', async (t) => {
  const { port, logged } = await startDaemon(t);
  const auth = `X-API-KEY: ${KEY}\r\n`;
  const cases: Array<[string, string, number, string]> = [
    ['no Host', `GET /v1.0.0/batteries HTTP/1.1\r\n${auth}\r\n`, 400, 'BAD_REQUEST'],
    ['an empty Host', `GET /v1.0.0/batteries HTTP/1.1\r\nHost:\r\n${auth}\r\n`, 400, 'BAD_REQUEST'],
    ['Host: a b', `GET /v1.0.0/batteries HTTP/1.1\r\nHost: a b\r\n${auth}\r\n`, 400, 'BAD_REQUEST'],
    ['Host with a user', `GET /v1.0.0/batteries HTTP/1.1\r\nHost: user@hub\r\n${auth}\r\n`, 400, 'BAD_REQUEST'],
    ['Host: :99999', `GET /v1.0.0/batteries HTTP/1.1\r\nHost: :99999\r\n${auth}\r\n`, 400, 'BAD_REQUEST'],
    ['Host: [::1', `GET /v1.0.0/batteries HTTP/1.1\r\nHost: [::1\r\n${auth}\r\n`, 400, 'BAD_REQUEST'],
    ['a repeated Host', `GET /v1.0.0/batteries HTTP/1.1\r\nHost: a\r\nHost: b c\r\n${auth}\r\n`, 400, 'BAD_REQUEST'],
    ['a backslash in the path', `GET /v1.0.0\\batteries HTTP/1.1\r\nHost: hub\r\n${auth}\r\n`, 400, 'BAD_REQUEST'],
    ['the target *', `OPTIONS * HTTP/1.1\r\nHost: hub\r\n${auth}\r\n`, 400, 'BAD_REQUEST'],
    ['a bad absolute URL', `GET http://[bad/v1.0.0/batteries HTTP/1.1\r\nHost: hub\r\n${auth}\r\n`, 400, 'BAD_REQUEST'],
    ['Expect: foo', `POST ${PATH} HTTP/1.1\r\nHost: hub\r\n${auth}Expect: foo\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`, 417, 'EXPECTATION_FAILED'],
    // Only /ocpp/{id} takes WebSockets; elsewhere an upgrade got a text/plain "Not found".
    ['a WebSocket upgrade on an API path', `GET /v1.0.0/batteries HTTP/1.1\r\nHost: hub\r\n${auth}${WEBSOCKET}\r\n`, 404, 'NOT_FOUND'],
    ['a WebSocket upgrade on /', `GET / HTTP/1.1\r\nHost: hub\r\n${WEBSOCKET}\r\n`, 404, 'NOT_FOUND'],
    // The hub is no proxy: Node closed a CONNECT without an answer.
    ['CONNECT', `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n${auth}\r\n`, 405, 'METHOD_NOT_ALLOWED'],
  ];
  for (const [name, request, status, code] of cases) {
    const answer = await rawExchange(port, request);
    assert.match(answer, new RegExp(`^HTTP/1\\.1 ${status} `), `${name}: ${answer.slice(0, 60)}`);
    assert.match(answer, /\r\ncontent-type: application\/json\r\n/i, name);
    assert.match(answer, /\r\ncache-control: no-store\r\n/i, name);
    assert.match(answer, /\r\nx-content-type-options: nosniff\r\n/i, name);
    const body = assertErrorBody(answer.slice(answer.indexOf('\r\n\r\n') + 4), code);
    assert.ok(logged().some((line) => line['errorId'] === body.id), `${name}: the id is in a log line`);
  }
});

test('broken chunked framing is the client\'s fault: a 400, a 4xx in the log and the metrics, never a 500', async (t) => {
  const { daemon, port, logged } = await startDaemon(t);
  const metrics = async () => (await (await fetch(`${daemon.url}/metrics`, { headers: { 'x-api-key': KEY } })).text());
  for (let i = 0; i < 5; i++) {
    const answer = await rawExchange(port, `DELETE /v1.0.0/batteries/6f1c2a4e-0000-4000-8000-00000000b001 HTTP/1.1\r\nHost: hub\r\nX-API-KEY: ${KEY}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nxx\r\n0\r\n\r\n`);
    assert.match(answer, /^HTTP\/1\.1 400 /);
  }
  const text = await metrics();
  assert.doesNotMatch(text, /hub_http_requests_total\{[^}]*status="5xx"[^}]*\} [1-9]/);
  assert.equal(logged().filter((line) => Number(line['level']) >= 50).length, 0, 'nothing logged at error level');
});

/** Follows the answers arriving on a raw socket: `answered(n)` resolves once n whole answers (by their Content-Length) are in. */
function answersOn(socket: Socket) {
  let received = '';
  const count = () => {
    let whole = 0;
    let rest = received;
    for (;;) {
      const head = rest.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)\r\n/i.exec(rest.slice(0, head));
      if (head < 0 || !length || rest.length - head - 4 < Number(length[1])) return whole;
      whole++;
      rest = rest.slice(head + 4 + Number(length[1]));
    }
  };
  let waiting: (() => void) | undefined;
  let failure: Error | undefined;
  socket.on('data', (data: Buffer) => { received += data.toString('latin1'); waiting?.(); });
  socket.on('error', (err) => { failure = err; waiting?.(); });
  socket.on('close', () => waiting?.());
  const answered = (n: number) => new Promise<void>((resolve, reject) => {
    waiting = () => {
      if (count() >= n) resolve();
      else if (socket.destroyed) reject(new Error(`the connection ended (${failure?.message ?? 'closed'}) after ${count()} answers: ${received.slice(0, 200)}`));
    };
    waiting();
  });
  return { answered, received: () => received };
}

const HVACS = '/v1.0.0/users/u1/hvacs';
const chunkOf = (data: Buffer) => Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);

test('a GET with a body, sent chunked while the answer is written, leaves its kept-alive connection sound for the next request', { timeout: 20_000 }, async (t) => {
  const { port } = await startDaemon(t);
  const piece = bodyOf(16 * 1024);
  for (let i = 0; i < 20; i++) {
    const socket = connect(port, '127.0.0.1');
    t.after(() => socket.destroy());
    const { answered, received } = answersOn(socket);
    socket.write(`GET ${HVACS} HTTP/1.1\r\nHost: hub\r\nX-API-KEY: ${KEY}\r\nTransfer-Encoding: chunked\r\n\r\n`);
    socket.write(chunkOf(piece));
    await answered(1);
    // The rest of the 200 KB body comes after the answer, then the next request on the same connection.
    for (let sent = piece.length; sent < 200 * 1024; sent += piece.length) socket.write(chunkOf(piece));
    socket.write('0\r\n\r\n');
    socket.write(`GET ${HVACS} HTTP/1.1\r\nHost: hub\r\nX-API-KEY: ${KEY}\r\n\r\n`);
    if (/\r\nconnection: close\r\n/i.test(received())) continue; // a connection the hub will not keep says so
    await answered(2);
    assert.match(received().slice(received().lastIndexOf('HTTP/1.1 ')), /^HTTP\/1\.1 200 /, `try ${i}`);
    socket.destroy();
  }
});

// Issue 32, item 3, as a client sends it: a keep-alive agent's GET with a body (chunked or with a
// length), then the next request on the same socket; and the whole exchange written at once. Every
// try must end in two 200s, on the same socket unless the first answer said Connection: close
// (RFC 9112 9.6). The report's 200 KB gets 50 tries a framing, the sizes around it a few. The report
// saw 8 of 50 fail; on Node 20 neither this code nor the code before its drain (f58b52d^) fails any,
// so this pins what holds: a reset or a stalled body after the answer fails it.
test('a GET with a body from a keep-alive agent, or written whole with the next request, never breaks that next request', { timeout: 20_000 }, async (t) => {
  const { daemon, port } = await startDaemon(t);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.after(() => agent.destroy());
  const get = (body?: Buffer, chunked = false) => new Promise<{ status: number; connection?: string; socket: unknown }>((resolve, reject) => {
    const headers: Record<string, string> = { 'x-api-key': KEY };
    // Named explicitly: Node's client sends a GET's body with no framing at all otherwise.
    if (body) headers[chunked ? 'transfer-encoding' : 'content-length'] = chunked ? 'chunked' : String(body.length);
    const req = httpRequest(`${daemon.url}${HVACS}`, { agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, socket: req.socket }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
  for (const [size, tries] of [[LIMIT + 1, 5], [200 * 1024, 50], [2 * 1024 * 1024, 5]] as const) {
    for (const chunked of [true, false]) {
      for (let i = 0; i < tries; i++) {
        const what = `${size} bytes${chunked ? ' chunked' : ''}, try ${i}`;
        const first = await get(bodyOf(size), chunked);
        assert.equal(first.status, 200, what);
        const next = await get().catch((err: Error) => assert.fail(`the request after a GET with ${what}: ${err.message}`));
        assert.equal(next.status, 200, what);
        if (first.connection !== 'close') assert.equal(next.socket, first.socket, `${what}: a connection kept alive is the one reused`);
      }
    }
  }
  const request = `GET ${HVACS} HTTP/1.1\r\nHost: hub\r\nX-API-KEY: ${KEY}\r\n`;
  for (let i = 0; i < 50; i++) {
    const socket = connect(port, '127.0.0.1');
    t.after(() => socket.destroy());
    const { answered, received } = answersOn(socket);
    socket.write(Buffer.concat([Buffer.from(`${request}Transfer-Encoding: chunked\r\n\r\n`), chunkOf(bodyOf(200 * 1024)), Buffer.from(`0\r\n\r\n${request}\r\n`)]));
    await answered(2);
    assert.deepEqual(received().match(/HTTP\/1\.1 \d+ /g), ['HTTP/1.1 200 ', 'HTTP/1.1 200 '], `written whole, try ${i}`);
    socket.destroy();
  }
});

test('CONNECT gets its 405 with an Allow header (RFC 9110 15.5.6)', async (t) => {
  const { port } = await startDaemon(t);
  const answer = await rawExchange(port, `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nX-API-KEY: ${KEY}\r\n\r\n`);
  assert.match(answer, /^HTTP\/1\.1 405 /);
  assert.match(answer, /\r\nallow: GET, HEAD, POST, DELETE\r\n/i);
});
