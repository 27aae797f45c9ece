// Requests that Node's HTTP parser refuses before the app sees them (a request line or headers past
// Node's 16 KB limit, a method it does not know, a malformed request) still get the error body of
// the specification, with its id in the log line, instead of Node's bare status line. A request
// that timed out, or a socket already gone, is left to Node. A CONNECT (the hub is no proxy) and a
// WebSocket upgrade on a path other than the OCPP endpoint's get the same error body.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../log.ts';
import { ERROR_STATUS, type ErrorCode } from './errors.ts';
import { API_SECURITY_HEADERS } from './respond.ts';

const MESSAGES: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'Request line and headers must be at most 16 KB',
  HPE_INVALID_METHOD: 'Unknown HTTP method',
};

export function answerClientErrors(server: Server, log: Logger): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const code = err.code ?? '';
    if (code === 'ECONNRESET' || code === 'ERR_HTTP_REQUEST_TIMEOUT' || !socket.writable) {
      socket.destroy();
      return;
    }
    answerOnSocket(socket, 'BAD_REQUEST', MESSAGES[code] ?? 'Malformed HTTP request', log, code, 'request rejected by the HTTP parser');
  });
}

/**
 * Writes the API's error body straight on a socket that no Node response belongs to (a request the
 * parser refused, a WebSocket upgrade or CONNECT the hub does not serve) and closes it.
 */
export function answerOnSocket(socket: Duplex, code: ErrorCode, message: string, log: Logger, reason: string, logMessage = 'request rejected before the API', extraHeaders: Record<string, string> = {}): void {
  const id = randomUUID();
  const status = ERROR_STATUS[code];
  log.info({ errorId: id, errorCode: code, status, reason }, logMessage);
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ errorCode: code, id, message });
  const headers = Object.entries({ ...API_SECURITY_HEADERS, ...extraHeaders, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), connection: 'close' })
    .map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${headers}\r\n${body}`);
}
