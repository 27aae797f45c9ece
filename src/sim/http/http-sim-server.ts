// The base of the HTTP device simulators: a server on a loopback port, plain HTTP or HTTPS with the
// certificate given (self-signed, as the real devices have), routing requests to the device's
// handler. Faults on demand: `hang` (takes the request, never answers), `rateLimitAfter` (answers
// 429 with Retry-After once that many requests came within the window), `status` (answers every
// request with that status), `delayMs` (answers late). Requests are recorded, with the most that were
// open at once, so tests see what the hub sent and whether it waited for one answer before the next.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

export interface SimRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface SimAnswer {
  status?: number;
  body: string;
  contentType?: string;
  headers?: Record<string, string | string[]>;
}

export interface SimFaults {
  hang: boolean;
  /** Requests allowed per `rateWindowMs` before 429; 0 for no limit. */
  rateLimitAfter: number;
  rateWindowMs: number;
  retryAfterSeconds: number;
  status: number | undefined;
  delayMs: number;
}

export interface SimTls {
  cert: string | Buffer;
  key: string | Buffer;
}

export abstract class HttpDeviceSim {
  readonly faults: SimFaults = { hang: false, rateLimitAfter: 0, rateWindowMs: 1000, retryAfterSeconds: 1, status: undefined, delayMs: 0 };
  readonly requests: SimRequest[] = [];
  /** Requests taken and not answered yet, and the most there ever were. */
  open = 0;
  mostOpen = 0;
  private server: http.Server | undefined;
  private readonly sockets = new Set<Socket>();
  private recent: number[] = [];
  private waiters: (() => void)[] = [];

  /** The device's answer to a request; undefined is a 404. */
  protected abstract answer(request: SimRequest): SimAnswer | undefined;

  /** Resolves when the device has taken `count` requests in all (tests wait on it, not on time). */
  requestsReach(count: number, timeoutMs = 5000): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the device took ${this.requests.length} requests, not ${count}, within ${timeoutMs} ms`)), timeoutMs);
      const check = () => {
        if (this.requests.length < count) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
        resolve();
      };
      this.waiters.push(check);
    });
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  async start(options: { host?: string; port?: number; tls?: SimTls } = {}): Promise<this> {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => this.handle(req, res);
    const server = options.tls ? https.createServer({ cert: options.tls.cert, key: options.tls.key }, handler) : http.createServer(handler);
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    server.on('secureConnection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
    });
    this.server = server;
    return this;
  }

  /** Closes the server and every connection, hanging ones too. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://device');
      const request: SimRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      this.requests.push(request);
      for (const waiter of [...this.waiters]) waiter();
      if (this.faults.hang) return; // the request is taken and never answered
      const now = Date.now();
      if (this.faults.rateLimitAfter > 0) {
        this.recent = this.recent.filter((at) => now - at < this.faults.rateWindowMs);
        this.recent.push(now);
        if (this.recent.length > this.faults.rateLimitAfter) {
          return send(res, { status: 429, body: '{"code":429,"error":"Too Many Requests"}', headers: { 'retry-after': String(this.faults.retryAfterSeconds) } });
        }
      }
      if (this.faults.status !== undefined) return send(res, { status: this.faults.status, body: '' });
      this.open++;
      this.mostOpen = Math.max(this.mostOpen, this.open);
      const reply = () => {
        this.open--;
        let answer: SimAnswer | undefined;
        try {
          answer = this.answer(request);
        } catch (err) {
          answer = { status: 500, body: (err as Error).message };
        }
        send(res, answer ?? { status: 404, body: 'Not Found' });
      };
      if (this.faults.delayMs > 0) setTimeout(reply, this.faults.delayMs);
      else reply();
    });
  }
}

function send(res: http.ServerResponse, answer: SimAnswer): void {
  res.writeHead(answer.status ?? 200, { 'content-type': answer.contentType ?? 'application/json', ...answer.headers });
  res.end(answer.body);
}

export function json(value: unknown, status = 200): SimAnswer {
  return { status, body: JSON.stringify(value) };
}
