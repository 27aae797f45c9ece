// Every response leaves with the same security headers: those of Hono's secureHeaders middleware by
// default, with the hub's Content-Security-Policy and a same-site Cross-Origin-Resource-Policy.
//
// Why not that middleware: it sets them on the Response after the handler, which makes the Node
// adapter turn its lightweight Response into a full one with a Headers object, and any app-wide
// middleware also makes Hono run every request through its async composer. Together that was about
// a third of a detail read's CPU. So the hot answers are built here, complete (`json()`); the
// Node adapter writes such a Response (a string and a plain header object) straight to the socket.
// Anything else (docs page, logos, Hono's own answers) gets the headers added by `secure()`.

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-site',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=15552000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};
const SECURITY_ENTRIES = Object.entries(SECURITY_HEADERS);
const JSON_HEADERS: Readonly<Record<string, string>> = { ...SECURITY_HEADERS, 'content-type': 'application/json' };

/** Responses built here, which already carry every header. */
const complete = new WeakSet<Response>();

/** A JSON answer with all its headers. Header names are lower case; `headers` may add more. */
export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  // A fresh copy each time, as the Node adapter adds Content-Length to it; a copy of one template
  // keeps its shape (adding a key to a spread copy took V8's slow path).
  const all: Record<string, string> = { ...JSON_HEADERS };
  if (headers) for (const name in headers) all[name.toLowerCase()] = headers[name]!;
  const response = new Response(JSON.stringify(body), { status, headers: all });
  complete.add(response);
  return response;
}

/**
 * Adds the security headers that a response lacks; a header its handler set is kept (the pairing
 * pages set their own policy). Returns a response whose headers can be changed.
 */
export function secure(response: Response): Response {
  if (complete.has(response)) return response;
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
