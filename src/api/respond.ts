// Every response leaves with security headers, in two sets:
//
// - API answers (JSON) carry the set the OWASP REST Security Cheat Sheet names for APIs:
//   Cache-Control: no-store (device data and commands must not sit in a cache), a CSP that forbids
//   everything including framing, nosniff and X-Frame-Options: DENY. Headers that only steer
//   how a browser renders a document (referrer, DNS prefetch, COOP, XSS auditor…) do nothing for a
//   JSON body; each costs the server a validated header line on every answer.
// - Everything else (the docs page, logos, vehicle images, Hono's own answers) gets the document
//   set of Hono's secureHeaders middleware, with the hub's CSP and a same-site
//   Cross-Origin-Resource-Policy, unless its handler set a header itself (the pairing pages do).
// - Strict-Transport-Security belongs to the transport: the HTTPS server adds it to every answer
//   (HSTS_HEADER, daemon.ts), and plain HTTP never sends it (RFC 6797 §7.2).
//
// Why not that middleware: it sets them on the Response after the handler, which makes the Node
// adapter turn its lightweight Response into a full one with a Headers object, and any app-wide
// middleware also makes Hono run every request through its async composer. Together that was about
// a third of a detail read's CPU. So the API's answers are built here, complete (`json()`); the
// Node adapter writes such a Response (a string and a plain header object) straight to the socket.

export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

/** Sent on every answer of the HTTPS server only. */
export const HSTS_HEADER = ['strict-transport-security', 'max-age=15552000; includeSubDomains'] as const;

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-site',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};
const SECURITY_ENTRIES = Object.entries(SECURITY_HEADERS);
const JSON_HEADERS: Readonly<Record<string, string>> = { ...API_SECURITY_HEADERS, 'content-type': 'application/json' };

/**
 * Marks the responses built here, which already carry every header. A property rather than a
 * WeakSet: adding to a WeakSet on every request showed in profiles as the collector's ephemeron bookkeeping.
 */
const COMPLETE = Symbol('complete');
type Marked = Response & { [COMPLETE]?: true };

/** A JSON answer with all its headers. Header names are lower case; `headers` may add more. */
export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return jsonText(JSON.stringify(body), status, headers);
}

/** As json(), for a body already serialised (a remembered rendering, see present.detailJson). */
export function jsonText(text: string, status = 200, headers?: Record<string, string>): Response {
  // A fresh copy each time, as the Node adapter adds Content-Length to it; a copy of one template
  // keeps its shape (adding a key to a spread copy took V8's slow path).
  const all: Record<string, string> = { ...JSON_HEADERS };
  if (headers) for (const name in headers) all[name.toLowerCase()] = headers[name]!;
  const response: Marked = new Response(text, { status, headers: all });
  response[COMPLETE] = true;
  return response;
}

/**
 * Adds the security headers that a response lacks; a header its handler set is kept (the pairing
 * pages set their own policy). Returns a response whose headers can be changed.
 */
export function secure(response: Response): Response {
  if ((response as Marked)[COMPLETE] === true) return response;
  let out = response;
  try {
    out.headers.delete('x-powered-by');
  } catch {
    out = new Response(response.body, response); // immutable headers (a fetched or redirect Response)
    out.headers.delete('x-powered-by');
  }
  for (const [name, value] of SECURITY_ENTRIES) if (!out.headers.has(name)) out.headers.set(name, value);
  return out;
}
