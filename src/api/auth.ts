// X-API-KEY on every /v1.0.0 route. Failed attempts are counted per client address, so a key cannot
// be guessed at network speed: past the limit the address gets 429 until its minute is over.
import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { ApiDeps } from './deps.ts';
import { ApiError } from './errors.ts';
import { AuthFailures } from '../runtime/auth-failures.ts';
import type { VerifiedKey } from '../store/api-keys.ts';

declare module 'hono' {
  interface ContextVariableMap {
    /** The key this request presented, once verified: its id and what it may reach (see keyOf). */
    apiKey: VerifiedKey;
  }
}

export function clientAddress(c: Parameters<MiddlewareHandler>[0]): string {
  // Calls that arrive through the relay say so: the relay names them by a hash of the presented key.
  const declared = (c.env as { clientAddress?: unknown } | undefined)?.clientAddress;
  if (typeof declared === 'string') return declared;
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'in-process';
  }
}

/**
 * A request header. Read from Node's request when there is one: Hono's `c.req.header()` makes the
 * Node adapter build a Headers object of every header first.
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming?.headers) return c.req.header(name);
  const value = incoming.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * The key check as a function that throws 401 or 429, and returns the verified key, which it also
 * puts on the context (keyOf). Failures are counted in `deps.authFailures` when given (the daemon
 * shares it with the OCPP endpoint), else in a counter of this call's own.
 */
export function apiKeyCheck(deps: ApiDeps): (c: Context) => VerifiedKey {
  const failures = deps.authFailures ?? new AuthFailures(() => deps.settings.authFailuresPerMinute);
  return (c) => {
    // The client's address matters only once some client has failed: keep the happy path lean.
    let client: string | undefined;
    if (failures.any) {
      client = clientAddress(c);
      const retryAfter = failures.retryAfterSeconds(client);
      if (retryAfter > 0) {
        throw new ApiError('TOO_MANY_REQUESTS', 'Too many failed authentication attempts', undefined, { 'Retry-After': String(retryAfter) });
      }
    }
    // First catch up with other processes' writes: a key the CLI revoked fails now, and the
    // store's remembered records and totals are current for the rest of the request.
    deps.store.sync();
    const key = requestHeader(c, 'x-api-key');
    const verified = key && key.length <= 512 ? deps.store.apiKeys.identify(key) : undefined;
    if (!verified) {
      failures.count(client ?? clientAddress(c));
      // A missing or empty key is a client set up wrong (an unset shell variable), not a guess: say so.
      throw new ApiError('UNAUTHORIZED', key === undefined ? 'Unauthorized: no X-API-KEY header was sent'
        : key.trim() === '' ? 'Unauthorized: the X-API-KEY header is empty' : undefined);
    }
    // What the key may reach travels with the request: the operations filter by it (operation.ts),
    // and per-key work (a live stream) can tell keys apart by its id.
    c.set('apiKey', verified);
    return verified;
  };
}

/**
 * The key the request presented, verified by apiKeyCheck earlier in the request (undefined before):
 * for work that must tell keys apart, such as a limit of live streams per key.
 */
export function keyOf(c: Context): VerifiedKey | undefined {
  return c.get('apiKey');
}

/** 403 for a key scoped to one household on what is hub-wide (the metrics): it would tell of other households. */
function requirePartnerKey(key: VerifiedKey, what: string): void {
  if (key.userId !== null) throw new ApiError('FORBIDDEN', `This key is scoped to one household; ${what} covers the whole hub`);
}

/** The check of a partner's key (no scope) as middleware: GET /metrics, which is hub-wide. */
export function requirePartnerApiKey(deps: ApiDeps, what: string): MiddlewareHandler {
  const check = apiKeyCheck(deps);
  return async (c, next) => {
    requirePartnerKey(check(c), what);
    await next();
  };
}
