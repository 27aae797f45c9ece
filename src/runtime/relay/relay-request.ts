// What a relayed request may be, checked as data before anything of it reaches the app. The relay's
// request topic is open to whoever the relay broker lets publish there, so a payload is untrusted
// bytes: any JSON type may stand in any field, a string may hold what HTTP cannot carry, and the
// path may try to climb out of /v1.0.0/. Each refusal is an answer (the API's error body), never a
// throw: one careless partner must not end the hub for every household behind it.
import { createHash } from 'node:crypto';
import type { ValidationError } from '../../domain/validation.ts';

export interface RelayResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  bodyEncoding: 'utf8' | 'base64';
}

/** A request that passed every check: what the app is handed, and nothing else. */
export interface ValidRelayRequest {
  method: string;
  /** Normalised: starts with /v1.0.0/, no dot segments, no encoded slash, query kept, fragment dropped. */
  path: string;
  /** Only the forwarded headers, by lower-case name. */
  headers: Record<string, string>;
  /** Only for methods that carry one. */
  body?: Buffer;
}

export const API_PREFIX = '/v1.0.0/';
export const FORWARDED_REQUEST_HEADERS = ['x-api-key', 'content-type', 'if-none-match', 'accept'];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const MAX_PATH_LENGTH = 2048;
const MAX_HEADER_LENGTH = 2048;
/** An HTTP request line and a header value: visible ASCII (a path has no space; a value may have space and tab). */
const PATH_CHARS = /^\/[\x21-\x7e]*$/;
const HEADER_VALUE_CHARS = /^[\t\x20-\x7e]*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The largest payload read at all: the body limit twice over (base64 and JSON escapes grow it) and
 * room for the envelope. Past it the payload is not even parsed.
 */
export function payloadLimit(maxRequestBytes: number): number {
  return maxRequestBytes * 2 + 16 * 1024;
}

/** The payload as a request the app may be handed, or the answer that refuses it. */
export function parseRelayRequest(payload: Buffer, maxRequestBytes: number): ValidRelayRequest | RelayResponse {
  if (payload.length > payloadLimit(maxRequestBytes)) return errorResponse(413, 'PAYLOAD_TOO_LARGE', 'Relay request too large');
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(payload));
  } catch {
    return invalid('payload', 'must be a JSON object in UTF-8');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return invalid('payload', 'must be a JSON object in UTF-8');
  const request = parsed as Record<string, unknown>;
  const errors: ValidationError[] = [];

  const method = typeof request['method'] === 'string' ? request['method'].toUpperCase() : undefined;
  if (method === undefined || !METHODS.includes(method)) errors.push({ field: 'method', message: `must be one of ${METHODS.join(', ')}` });

  const path = normaliseRelayPath(request['path']);
  if (typeof path === 'object') errors.push(path);

  const headers = forwardedHeaders(request['headers'], errors);
  const body = requestBody(request['body'], request['bodyEncoding'], errors);
  if (errors.length > 0 || method === undefined || typeof path === 'object' || !headers) {
    return errorResponse(400, 'BAD_REQUEST', 'Bad relay request', errors);
  }
  // Outside the API, as for any route the app does not have: 404, and nothing of it reaches the app.
  if (path === NOT_RELAYED) return errorResponse(404, 'NOT_FOUND', 'Only /v1.0.0/ paths are relayed');
  if (body && body.length > maxRequestBytes) return errorResponse(413, 'PAYLOAD_TOO_LARGE', 'Payload too large');
  const valid: ValidRelayRequest = { method, path, headers };
  if (body && method !== 'GET' && method !== 'HEAD') valid.body = body;
  return valid;
}

const NOT_RELAYED = Symbol('not relayed');

/**
 * The path as the app would route it, or NOT_RELAYED when that is not under /v1.0.0/. The check is
 * made on the normalised form, and that same form is what is forwarded: URL parsing resolves `..`,
 * `%2e%2e` and backslashes, so a check of the raw text would pass `/v1.0.0/../health`.
 */
export function normaliseRelayPath(raw: unknown): string | typeof NOT_RELAYED | ValidationError {
  if (typeof raw !== 'string') return { field: 'path', message: 'must be a string' };
  if (raw.length > MAX_PATH_LENGTH) return { field: 'path', message: `must be at most ${MAX_PATH_LENGTH} characters long` };
  if (!PATH_CHARS.test(raw)) return { field: 'path', message: 'must start with / and be visible ASCII (percent-encode the rest)' };
  let url: URL;
  try {
    url = new URL(`http://relay.invalid${raw}`);
  } catch {
    return { field: 'path', message: 'is not a valid URL path' };
  }
  // Double slashes would reach no route; collapsed, the path is the one the partner meant.
  const pathname = url.pathname.replace(/\/{2,}/g, '/');
  for (const segment of pathname.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return { field: 'path', message: 'has a malformed percent-encoding' };
    }
    // An encoded slash, backslash or dot segment left after parsing is a second try at climbing out.
    if (/[/\\]/.test(decoded) || decoded === '.' || decoded === '..') return NOT_RELAYED;
  }
  if (!pathname.startsWith(API_PREFIX)) return NOT_RELAYED;
  const path = pathname + url.search;
  // What the app will parse again must be what was checked here.
  if (new URL(`http://relay.invalid${path}`).pathname !== pathname) return NOT_RELAYED;
  return path;
}

/** The forwarded headers, by lower-case name; other headers are ignored whatever they hold. */
function forwardedHeaders(raw: unknown, errors: ValidationError[]): Record<string, string> | undefined {
  const headers: Record<string, string> = {};
  if (raw === undefined || raw === null) return headers;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    errors.push({ field: 'headers', message: 'must be an object of header names and string values' });
    return undefined;
  }
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    const lower = name.toLowerCase();
    if (!FORWARDED_REQUEST_HEADERS.includes(lower)) continue;
    const field = `headers.${lower}`;
    if (lower in headers) errors.push({ field, message: 'is given twice (header names are case-insensitive)' });
    else if (typeof value !== 'string') errors.push({ field, message: 'must be a string' });
    else if (value.length > MAX_HEADER_LENGTH) errors.push({ field, message: `must be at most ${MAX_HEADER_LENGTH} characters long` });
    else if (!HEADER_VALUE_CHARS.test(value)) errors.push({ field, message: 'must be visible ASCII, space or tab (what an HTTP header can carry)' });
    else headers[lower] = value;
  }
  return headers;
}

function requestBody(raw: unknown, encoding: unknown, errors: ValidationError[]): Buffer | undefined {
  if (encoding !== undefined && encoding !== null && encoding !== 'utf8' && encoding !== 'base64') {
    errors.push({ field: 'bodyEncoding', message: 'must be utf8 or base64' });
    return undefined;
  }
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string') {
    errors.push({ field: 'body', message: 'must be a string (JSON sent as text, or base64 with bodyEncoding base64)' });
    return undefined;
  }
  if (encoding === 'base64') {
    if (!BASE64.test(raw)) {
      errors.push({ field: 'body', message: 'must be base64' });
      return undefined;
    }
    return Buffer.from(raw, 'base64');
  }
  // A lone surrogate would reach the app as U+FFFD: a different body than the partner sent.
  if (/\p{Surrogate}/u.test(raw)) {
    errors.push({ field: 'body', message: 'must be valid Unicode text' });
    return undefined;
  }
  return Buffer.from(raw, 'utf8');
}

/**
 * What identifies a request for redelivery: the same method, normalised path, forwarded headers and
 * body are the same call, however the partner's JSON was spelt.
 */
export function requestFingerprint(request: ValidRelayRequest): string {
  const hash = createHash('sha256');
  hash.update(`${request.method}\n${request.path}\n`);
  for (const name of Object.keys(request.headers).sort()) hash.update(`${name}:${request.headers[name]}\n`);
  hash.update('\n');
  if (request.body) hash.update(request.body);
  return hash.digest('hex');
}

export function isValidRelayRequest(parsed: ValidRelayRequest | RelayResponse): parsed is ValidRelayRequest {
  return 'method' in parsed;
}

function invalid(field: string, message: string): RelayResponse {
  return errorResponse(400, 'BAD_REQUEST', 'Bad relay request', [{ field, message }]);
}

/** The API's error body (decisions §2), for refusals the relay makes before the app. */
export function errorResponse(status: number, errorCode: string, message: string, validationErrors?: ValidationError[], headers: Record<string, string> = {}): RelayResponse {
  const body: Record<string, unknown> = { errorCode, id: crypto.randomUUID(), message };
  if (validationErrors) body['validationErrors'] = validationErrors;
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), bodyEncoding: 'utf8' };
}
