// Requests that Node's HTTP parser refuses before the app sees them (a request line or headers past
// Node's 16 KB limit, a method it does not know, a malformed request) still get the error body of
// the specification, with its id in the log line, instead of Node's bare status line. A request
// that timed out, or a socket already gone, is left to Node.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../log.ts';
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
    const id = randomUUID();
    const body = JSON.stringify({ errorCode: 'BAD_REQUEST', id, message: MESSAGES[code] ?? 'Malformed HTTP request' });
    log.info({ errorId: id, errorCode: 'BAD_REQUEST', status: 400, reason: code }, 'request rejected by the HTTP parser');
    const headers = Object.entries({ ...API_SECURITY_HEADERS, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), connection: 'close' })
      .map(([name, value]) => `${name}: ${value}\r\n`).join('');
    socket.end(`HTTP/1.1 400 Bad Request\r\n${headers}\r\n${body}`);
  });
}
