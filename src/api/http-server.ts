// The Node HTTP(S) server around the app. Everything Node or the Hono adapter would answer on its own,
// before the app sees a request, is answered here in the API's own terms instead: the error body with
// its id in the log line and the API's security headers.
//
// - A request the adapter cannot turn into a URL (no Host, `Host: a b`, a backslash in the path, the
//   target `*`, a bad absolute URL): 400 BAD_REQUEST, where the adapter sent a bare 400.
// - `Expect:` other than 100-continue: 417 EXPECTATION_FAILED, where Node sent a bare 417.
// - Requests Node's parser refuses, CONNECT, and upgrades the OCPP endpoint does not take: client-errors.ts.
// - A body over the limit (64 KB): 413 PAYLOAD_TOO_LARGE from here (a connect page gets a page: its
//   form is posted by a browser), at once when Content-Length says so, else as soon as the limit is
//   passed; the rest is then read and dropped, up to a bound, so that the client, still sending,
//   reads the answer and its connection stays usable. Hono's adapter and
//   its body-limit middleware, reading through a web stream, cancelled that stream on the 413, which
//   destroyed the socket: half of the 2 MB uploads from Node's fetch ended in EPIPE instead of the
//   413, and the next request on a kept-alive connection in ECONNRESET. A body announced past the
//   bound is answered with `Connection: close`; one that runs past it is cut off there.
// - Bodies within the limit are read here and handed to the adapter whole (`rawBody`), so a body
//   whose chunked framing breaks never reaches the app: Node's parser answers it (400) and the
//   metrics and logs see a client's error, not a 500.
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import type { Logger } from '../log.ts';
import { answerClientErrors, answerOnSocket } from './client-errors.ts';
import { ERROR_STATUS, type ErrorCode } from './errors.ts';
import { HSTS_HEADER, json } from './respond.ts';
import { connectPageTooLarge } from './pairing/too-large.ts';

/** The most of an unread body drained to keep a connection usable: a few uploads' worth, not a flood. */
export const MAX_DRAIN_BYTES = 16 * 1024 * 1024;

export interface HubServerOptions {
  fetch: (request: Request, env: unknown) => Response | Promise<Response>;
  log: Logger;
  /** The largest request body taken (the API's 64 KB). */
  bodyLimitBytes: number;
  /** Counts an answer given here, in the request metrics. */
  countAnswer?: (method: string, status: number) => void;
  /** node:https's createServer and its certificate, when the hub serves HTTPS. */
  https?: { createServer: typeof import('node:https').createServer; cert: Buffer; key: Buffer };
}

export function createHubServer(options: HubServerOptions): Server {
  const { log } = options;
  const refused = (code: ErrorCode, message: string, reason: string, method: string | undefined, extra: Record<string, string> = {}) => {
    const id = randomUUID();
    options.countAnswer?.(method ?? 'GET', ERROR_STATUS[code]);
    log.info({ errorId: id, errorCode: code, status: ERROR_STATUS[code], reason }, 'request rejected before the API');
    return json({ errorCode: code, id, message }, ERROR_STATUS[code], extra);
  };
  const listener = getRequestListener(options.fetch, {
    // The adapter's clean-up of unread bodies resets connections; drainUnread() below replaces it.
    autoCleanupIncoming: false,
    errorHandler: (err) => {
      const message = err instanceof Error ? err.message : String(err);
      return refused('BAD_REQUEST', requestErrorMessage(message), message.slice(0, 100), dispatching?.method);
    },
  });
  // The request being handed to the adapter: it refuses synchronously, so errorHandler knows it.
  let dispatching: IncomingMessage | undefined;
  const dispatch = (request: IncomingMessage, response: ServerResponse) => {
    dispatching = request;
    void listener(request, response);
    dispatching = undefined;
  };
  const tooLarge = (request: IncomingMessage, response: ServerResponse) => {
    drainUnread(request, response);
    const answer = refused('PAYLOAD_TOO_LARGE', `Request body larger than ${options.bodyLimitBytes} bytes`, `${request.method} ${String(request.url).slice(0, 100)}`, request.method);
    // A browser posting a connect page's form gets a page, not the API's JSON.
    writeResponse(connectPageTooLarge(String(request.url), request.headers['accept-language']) ?? answer, response);
  };
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    if (options.https) response.setHeader(...HSTS_HEADER);
    // RFC 9112 3.2: more than one Host line is a 400 (Node would quietly keep the first).
    if (hostLines(request.rawHeaders) > 1) {
      drainUnread(request, response);
      return writeResponse(refused('BAD_REQUEST', 'A request must carry exactly one Host header', 'repeated Host', request.method), response);
    }
    // A GET or HEAD body means nothing to the API: it is read and dropped from the start, within
    // MAX_DRAIN_BYTES like every body the hub does not take. (Node alone drops it too once the answer
    // is written, in resOnFinish's req._dump(), and its connection served the next request just as
    // well: test/api/http-edge.test.ts; what this adds is the bound.)
    if (request.method === 'GET' || request.method === 'HEAD') {
      if (hasBody(request)) drainUnread(request, response);
      return dispatch(request, response);
    }
    const announced = Number(request.headers['content-length']);
    if (announced > options.bodyLimitBytes) return tooLarge(request, response);
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > options.bodyLimitBytes) {
        request.off('data', onData).off('end', onEnd);
        chunks.length = 0;
        tooLarge(request, response);
      } else {
        chunks.push(chunk);
      }
    };
    const onEnd = () => {
      (request as IncomingMessage & { rawBody?: Buffer }).rawBody = Buffer.concat(chunks, size);
      dispatch(request, response);
    };
    request.on('data', onData).on('end', onEnd);
    // Broken framing or a client gone mid-body: Node's parser answers (client-errors.ts); nothing to do.
    request.on('error', () => {});
  };
  // Node answers a request without Host with a bare 400 of its own unless told not to; the adapter
  // then refuses it, and errorHandler above words the answer.
  const serverOptions = { requireHostHeader: false };
  const server = (options.https
    ? options.https.createServer({ ...serverOptions, cert: options.https.cert, key: options.https.key }, handle)
    : createHttpServer(serverOptions, handle)) as Server;
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    if (options.https) response.setHeader(...HSTS_HEADER);
    const answer = refused('EXPECTATION_FAILED', 'Expect: only 100-continue is supported', `expect ${String(request.headers.expect).slice(0, 40)}`, request.method, { connection: 'close' });
    drainUnread(request, response);
    writeResponse(answer, response);
  });
  answerClientErrors(server, log);
  // Node closes a CONNECT without a word when nothing listens for it; the API answers it like any
  // method it has no route for.
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    options.countAnswer?.('CONNECT', 405);
    // RFC 9110 15.5.6: a 405 names the methods the target takes; a CONNECT's target is no resource
    // of the hub's, so it names the methods the hub serves at all.
    answerOnSocket(socket, 'METHOD_NOT_ALLOWED', 'CONNECT is not supported: the hub is not a proxy', log, `CONNECT ${String(request.url).slice(0, 100)}`,
      undefined, { allow: 'GET, HEAD, POST, DELETE' });
  });
  return server;
}

function hasBody(request: IncomingMessage): boolean {
  return request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
}

function hostLines(rawHeaders: string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.length === 4 && rawHeaders[i]!.toLowerCase() === 'host') count++;
  return count;
}

function requestErrorMessage(reason: string): string {
  if (/host/i.test(reason)) return 'A valid Host header is required';
  if (/backslash/i.test(reason)) return 'A backslash is not allowed in the request path';
  return 'Malformed request target';
}

/**
 * Once the answer is written, reads and drops what the client still sends of its body, so that it
 * reads the answer and its connection stays usable; past MAX_DRAIN_BYTES the connection is closed.
 * A body announced larger than that is answered with `Connection: close` in the first place.
 */
function drainUnread(request: IncomingMessage, response: ServerResponse): void {
  const announced = Number(request.headers['content-length']);
  if (announced > MAX_DRAIN_BYTES) response.shouldKeepAlive = false;
  let drained = 0;
  request.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > MAX_DRAIN_BYTES) request.socket.destroy();
  });
  request.on('error', () => {});
  request.resume();
}

/** Writes a fetch Response on a Node response (for the answers given outside the adapter). */
function writeResponse(answer: Response, response: ServerResponse): void {
  const headers: Record<string, string> = {};
  answer.headers.forEach((value, name) => (headers[name] = value));
  void answer.text().then((body) => {
    headers['content-length'] = String(Buffer.byteLength(body));
    response.writeHead(answer.status, headers);
    response.end(body);
  });
}

