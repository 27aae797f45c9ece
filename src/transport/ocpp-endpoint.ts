// The hub's OCPP-J 1.6 endpoint: WebSocket upgrades of `/ocpp/{chargePointId}` on the hub's own
// HTTP(S) server, subprotocol `ocpp1.6` only, HTTP Basic auth checked in the handshake (security
// profiles 1 and 2: profile 2 is the same over the hub's TLS listener). The framing, the message ids
// and the strict validation of every frame in both directions against the official OCPP 1.6 JSON
// schemas are ocpp-rpc's (https://github.com/mikuso/ocpp-rpc); this is the only file that imports it.
//
// One live connection per identity: a charger that reconnects (after a network change, say) while
// its old socket still looks open replaces it, and the old one is closed.
//
// A malformed frame is answered with a CALLERROR in OCPP-J 1.6 codes (ocpp16-error-codes.ts) and the
// connection stays up, however many come: closing it would not quiet the charger (a 1.6 charger
// reconnects at once and boots again), it would only take it offline and hold its commands, while
// the frames are already bounded (maxPayload) and each costs one small answer.
//
// ocpp-rpc, and the 1.7 MB of schemas it reads, is loaded on the first OCPP upgrade: a hub without
// OCPP chargers does not pay for it.
import { EventEmitter } from 'node:events';
import Module, { createRequire } from 'node:module';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../log.ts';
import { CHARGE_POINT_ID_PATTERN } from '../domain/ocpp-binding.ts';
import { ocpp16Frame } from './ocpp16-error-codes.ts';

export const OCPP_PATH_PREFIX = '/ocpp/';
export const OCPP_SUBPROTOCOL = 'ocpp1.6';

/** What the hub decided about a handshake; a refusal is answered with its HTTP status. */
export type HandshakeVerdict = { accept: true } | { accept: false; status: 400 | 401 | 429 | 503; reason: string; retryAfterSeconds?: number };

export interface OcppEndpointOptions {
  /** Decides whether a charger may connect: identity, the Basic-auth password (undefined without one), the client's address. */
  authenticate(identity: string, password: Buffer | undefined, remoteAddress: string): Promise<HandshakeVerdict>;
  log: Logger;
  /** How long a call to a charger waits for its answer. */
  callTimeoutMs?: number;
  /** WebSocket ping interval: a charger that stops answering pings is disconnected. */
  pingIntervalMs?: number;
}

/** An error whose code and description go back to the charger as a CALLERROR. */
export class OcppCallError extends Error {
  constructor(readonly code: 'NotImplemented' | 'NotSupported' | 'InternalError' | 'GenericError' | 'SecurityError' | 'PropertyConstraintViolation', message: string) {
    super(message);
    this.name = 'OcppCallError';
  }
}

/** A CALLERROR the charger answered a call of the hub's with. */
export class OcppRemoteError extends Error {
  constructor(readonly code: string, description: string) {
    super(description);
    this.name = 'OcppRemoteError';
  }
}

export type OcppHandler = (payload: Record<string, unknown>) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** One charger's live connection. */
export interface OcppConnection {
  readonly identity: string;
  readonly remoteAddress: string;
  readonly isOpen: boolean;
  /** Calls an action on the charger and resolves with its answer; rejects with OcppRemoteError, or when closed or timed out. */
  call(action: string, payload: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>>;
  /** Handles an action the charger calls; one without a handler is answered NotImplemented. */
  handle(action: string, handler: OcppHandler): void;
  close(reason?: string): Promise<void>;
}

// The parts of ocpp-rpc used here (its own typings are loose).
interface RpcClient extends EventEmitter {
  identity: string;
  state: number;
  handshake: { remoteAddress: string | undefined; request: IncomingMessage };
  call(method: string, params: unknown, options?: { signal?: AbortSignal; callTimeoutMs?: number }): Promise<unknown>;
  handle(method: string, handler: (call: { params: unknown }) => Promise<unknown>): void;
  close(options?: { code?: number; reason?: string; force?: boolean }): Promise<unknown>;
  sendRaw(message: string): void;
}
interface RpcServer extends EventEmitter {
  auth(callback: (accept: (session?: object, protocol?: string) => void, reject: (code: number, message: string) => void,
    handshake: { identity: string; password: Buffer | undefined; protocols: Set<string>; remoteAddress: string | undefined; request: IncomingMessage }) => void): void;
  handleUpgrade: (request: IncomingMessage, socket: Duplex, head: Buffer) => Promise<void>;
  close(options?: { code?: number; reason?: string; force?: boolean }): Promise<void>;
}
interface RpcModule {
  RPCServer: new (options: Record<string, unknown>) => RpcServer;
  createRPCError(code: string, message?: string, details?: object): Error;
}

const OPEN = 1;
/** How long a charger has to answer the hub's closing handshake. */
const CLOSE_GRACE_MS = 2000;

/**
 * Emits 'connection' (OcppConnection) for every accepted charger, before any of its messages is
 * handled (the listener registers its handlers then), and 'disconnect' (OcppConnection) when one
 * closes, for whatever reason, including being replaced.
 */
export class OcppEndpoint extends EventEmitter {
  private server: RpcServer | undefined;
  private loading: Promise<RpcModule> | undefined;
  private rpc: RpcModule | undefined;
  private readonly live = new Map<string, Connection>();
  private stopped = false;

  constructor(private readonly options: OcppEndpointOptions) {
    super();
  }

  /** Identities with a live connection now. */
  get connected(): number {
    return this.live.size;
  }

  connection(identity: string): OcppConnection | undefined {
    return this.live.get(identity);
  }

  /**
   * For the HTTP server's 'upgrade' event: true when the request is the OCPP endpoint's (it is then
   * answered here, accepted or refused); false for any other path, which the caller refuses.
   */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const identity = identityOf(request.url ?? '/');
    if (identity === null) return false;
    if (this.stopped) {
      refuse(socket, 503, 'The hub is stopping');
      return true;
    }
    if (identity === undefined) {
      refuse(socket, 404, 'A charge point id is 1 to 48 letters, digits or . _ ~ -');
      return true;
    }
    socket.on('error', () => socket.destroy()); // a client gone mid-handshake is no fault of the hub's
    this.serverReady().then((server) => server.handleUpgrade(request, socket, head)).catch((err: unknown) => {
      this.options.log.warn({ err: errorSummary(err) }, 'ocpp: handshake failed');
      refuse(socket, 500, 'Internal error');
    });
    return true;
  }

  /** Closes every connection (each within Connection.close's grace); further upgrades are refused. */
  async stop(): Promise<void> {
    this.stopped = true;
    const closing = [...this.live.values()].map((c) => c.close('The central system is stopping'));
    this.live.clear();
    await Promise.allSettled(closing);
    await this.server?.close({ code: 1001, force: true }).catch(() => {});
  }

  private serverReady(): Promise<RpcServer> {
    if (this.server) return Promise.resolve(this.server);
    this.loading ??= Promise.resolve().then(loadOcppRpc);
    return this.loading.then((rpc) => {
      if (this.server) return this.server;
      this.rpc = rpc;
      const server = new rpc.RPCServer({
        protocols: [OCPP_SUBPROTOCOL],
        strictMode: true,
        callTimeoutMs: this.options.callTimeoutMs ?? 30_000,
        pingIntervalMs: this.options.pingIntervalMs ?? 30_000,
        // Never closed for malformed frames (see the top of this file); ocpp-rpc's default too.
        maxBadMessages: Infinity,
        respondWithDetailedErrors: false,
        // A frame is one OCPP message; the largest a charger sends (a MeterValues batch) is well
        // under this, and nothing larger is read into memory.
        wssOptions: { maxPayload: 256 * 1024 },
      });
      server.auth((accept, reject, handshake) => {
        // Only OCPP 1.6; a charger offering nothing else is refused before its password is checked.
        if (!handshake.protocols.has(OCPP_SUBPROTOCOL)) {
          reject(400, `The central system speaks subprotocol ${OCPP_SUBPROTOCOL} only`);
          return;
        }
        const address = handshake.remoteAddress ?? 'unknown';
        this.options.authenticate(handshake.identity, handshake.password, address).then((verdict) => {
          if (verdict.accept) accept({}, OCPP_SUBPROTOCOL);
          // ocpp-rpc's refusal carries no headers: one that tells when to try again is written here.
          else if (verdict.retryAfterSeconds !== undefined) refuse(handshake.request.socket, verdict.status, verdict.reason, { 'Retry-After': String(verdict.retryAfterSeconds) });
          else reject(verdict.status, verdict.reason);
        }, (err: unknown) => {
          this.options.log.warn({ err: errorSummary(err) }, 'ocpp: authentication failed');
          reject(500, 'Internal error');
        });
      });
      server.on('client', (client: RpcClient) => this.accepted(client));
      server.on('error', (err: unknown) => this.options.log.warn({ err: errorSummary(err) }, 'ocpp: server error'));
      this.server = server;
      return server;
    });
  }

  private accepted(client: RpcClient): void {
    // Every CALLERROR the library writes goes out in OCPP 1.6 codes.
    const send = client.sendRaw.bind(client);
    client.sendRaw = (message) => send(ocpp16Frame(message));
    const connection = new Connection(client, this.rpc!, this.options.log);
    const previous = this.live.get(client.identity);
    this.live.set(client.identity, connection);
    client.once('close', () => {
      if (this.live.get(client.identity) === connection) this.live.delete(client.identity);
      this.emit('disconnect', connection);
    });
    // Logged at the 1st, 10th, 100th… malformed frame of a connection: a charger stuck sending
    // garbage must not fill the SD card with one line per frame.
    let badFrames = 0;
    client.on('badMessage', ({ error }: { error: unknown }) => {
      badFrames++;
      if (/^10*$/.test(String(badFrames))) {
        this.options.log.info({ chargePointId: client.identity, count: badFrames, err: errorSummary(error) }, 'ocpp: malformed frame refused');
      }
    });
    client.on('strictValidationFailure', ({ method, outbound, error }: { method: string; outbound: boolean; error: { details?: unknown } }) => {
      // ocpp-rpc puts the whole offending payload in the CALLERROR's details, emitted here before it
      // is thrown: up to 256 KiB echoed back to the charger, and a deeply nested one (found by
      // test/transport/ocpp-fuzz.test.ts) overflowed JSON.stringify's stack, which made ocpp-rpc
      // close the connection. The description names what is wrong; the details stay empty.
      error.details = {};
      this.options.log.info({ chargePointId: client.identity, action: method, outbound }, 'ocpp: a message did not validate against the OCPP 1.6 schema');
    });
    // The new connection is the charger's; the old one is closed after the new is known, so that
    // its close is told as the end of a connection that is no longer the live one.
    if (previous) void previous.close('Replaced by a new connection of the same charge point');
    this.emit('connection', connection);
  }
}

class Connection implements OcppConnection {
  readonly identity: string;
  readonly remoteAddress: string;

  constructor(private readonly client: RpcClient, private readonly rpc: RpcModule, private readonly log: Logger) {
    this.identity = client.identity;
    this.remoteAddress = client.handshake.remoteAddress ?? 'unknown';
  }

  get isOpen(): boolean {
    return this.client.state === OPEN;
  }

  async call(action: string, payload: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
    if (!this.isOpen) throw new Error('the charger is not connected');
    try {
      return (await this.client.call(action, payload, signal ? { signal } : undefined)) as Record<string, unknown>;
    } catch (err) {
      const code = (err as { rpcErrorCode?: unknown }).rpcErrorCode;
      if (typeof code === 'string') throw new OcppRemoteError(code, (err as Error).message);
      throw err;
    }
  }

  handle(action: string, handler: OcppHandler): void {
    this.client.handle(action, async ({ params }) => {
      try {
        return await handler((params ?? {}) as Record<string, unknown>);
      } catch (err) {
        if (err instanceof OcppCallError) throw this.rpc.createRPCError(err.code, err.message);
        // Whatever went wrong inside the hub stays in its log; the charger learns only that it did.
        this.log.warn({ chargePointId: this.identity, action, err: errorSummary(err) }, 'ocpp: handling a message failed');
        throw this.rpc.createRPCError('InternalError', 'The central system could not process the message');
      }
    });
  }

  /**
   * A closing handshake; a charger that does not answer it within CLOSE_GRACE_MS (a dead network, a
   * replaced connection) has its socket cut, rather than holding the hub's stop for the WebSocket
   * library's 30 s.
   */
  async close(reason = 'Closed by the central system'): Promise<void> {
    const cut = setTimeout(() => this.client.handshake.request.socket.destroy(), CLOSE_GRACE_MS);
    await this.client.close({ code: 1000, reason }).catch(() => {});
    clearTimeout(cut);
  }
}

/**
 * Loads ocpp-rpc with the OCPP 1.6 schemas only. As shipped, loading it builds validators for OCPP
 * 1.6, 2.0.1 and 2.1 (1.7 MB of schemas, about 13 MB of RSS measured for the two the hub never
 * speaks): its list of standard validators (lib/standard-validators.js) is put in the module cache
 * first, holding the 1.6 validator built by the library's own createValidator from its own schema
 * file. Should the package's layout change, it is loaded as shipped.
 */
function loadOcppRpc(): RpcModule {
  const require = createRequire(import.meta.url);
  try {
    const listPath = require.resolve('ocpp-rpc/lib/standard-validators.js');
    if (!require.cache[listPath]) {
      const { createValidator } = require('ocpp-rpc/lib/validator.js') as { createValidator(protocol: string, schema: unknown): unknown };
      const list = new Module(listPath);
      list.filename = listPath;
      list.loaded = true;
      list.exports = [createValidator(OCPP_SUBPROTOCOL, require('ocpp-rpc/lib/schemas/ocpp1_6.json'))];
      require.cache[listPath] = list;
    }
  } catch {
    // another layout: the library as shipped
  }
  return require('ocpp-rpc') as RpcModule;
}

/**
 * The charge point id of an OCPP upgrade: null when the path is not the endpoint's, undefined when
 * it is but names no acceptable identity (decoded; ocpp-rpc would throw on a malformed escape).
 */
export function identityOf(url: string): string | null | undefined {
  const path = url.split('?', 1)[0]!;
  if (!path.startsWith(OCPP_PATH_PREFIX)) return null;
  const rest = path.slice(OCPP_PATH_PREFIX.length);
  if (rest.includes('/')) return undefined;
  let identity: string;
  try {
    identity = decodeURIComponent(rest);
  } catch {
    return undefined;
  }
  return CHARGE_POINT_ID_PATTERN.test(identity) ? identity : undefined;
}

/** Answers a handshake with an HTTP status and closes the socket. */
export function refuse(socket: Duplex, status: number, message: string, headers: Record<string, string> = {}): void {
  if (socket.writable) {
    const reason = { 400: 'Bad Request', 401: 'Unauthorized', 404: 'Not Found', 429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable' }[status] ?? 'Error';
    const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    socket.write(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\n${extra}Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`);
  }
  socket.destroy();
}

function errorSummary(err: unknown): { type: string; message: string } {
  return err instanceof Error ? { type: err.name, message: err.message } : { type: typeof err, message: String(err) };
}
