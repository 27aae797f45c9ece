// HTTP(S) requests to a device on the home network: one request, a hard time limit, and, over
// HTTPS, trust in the one certificate the installer accepted (trust on first use). Devices such as
// an Enphase gateway or a Powerwall serve a self-signed certificate no public CA vouches for; the
// hub does not switch verification off for them. The TLS handshake is completed first and the
// SHA-256 fingerprint of the certificate the device presented (whose key signed the handshake) must
// be the accepted one's; only then is the socket handed to the request, so a device that presents any
// other certificate is refused before a byte of the request (a token, a password) is sent. The
// certificate's names are not checked: devices are reached by an address their certificate does not
// name (an Envoy's is issued to "envoy"). Nor are its dates: a pin is trust in that very certificate,
// whatever its validity period says, and a gateway without a battery clock may boot years behind (or a
// device's own clock made the certificate with dates in the hub's future). Without a pin (a maker's
// cloud), the chain, the name and the dates are checked as a browser would.
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { isIP } from 'node:net';
import { X509Certificate } from 'node:crypto';

/** The certificate a device is trusted with: its PEM and the SHA-256 fingerprint (AB:CD:…). */
export interface PinnedCertificate {
  sha256: string;
  pem: string;
}

export interface HttpTarget {
  scheme: 'http' | 'https';
  host: string;
  port: number;
  /** For https to a device: its accepted certificate. */
  pinned?: PinnedCertificate;
  /**
   * For https to a maker's cloud (BMW CarData, Volvo): the certificate chain and the host name are
   * verified as a browser would, against the public CAs or, when given, this CA's PEM (a test's).
   */
  verified?: { ca?: string };
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT';
  /** Path with its query. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Answers longer than this are cut and refused (a device is not a file server). */
  maxBytes?: number;
}

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** The device did not answer in time (it hangs, or is too slow). */
export class HttpTimeoutError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'HttpTimeoutError';
  }
}

/** The device presented a certificate other than the one the installer accepted. */
export class CertificateChangedError extends Error {
  constructor(readonly presented: string | undefined, readonly pinned: string) {
    super(`the device presented another TLS certificate (SHA-256 ${presented ?? 'unknown'}) than the one accepted `
      + `(${pinned}); if the device was replaced or reset, accept the new one with \`hub devices trust\``);
    this.name = 'CertificateChangedError';
  }
}

/** HTTPS without an accepted certificate: the installer has to accept one first. */
export class NoPinnedCertificateError extends Error {
  constructor() {
    super('no TLS certificate accepted for this device yet: add it with `hub devices add` or accept its certificate with `hub devices trust`');
    this.name = 'NoPinnedCertificateError';
  }
}

const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

export function fingerprintOf(pem: string): string {
  return new X509Certificate(pem).fingerprint256;
}

/** Sends one request and reads the whole answer; rejects on timeout, abort, connection or TLS trouble. */
export function httpRequest(target: HttpTarget, request: HttpRequest): Promise<HttpAnswer> {
  if (target.scheme === 'https' && !target.pinned && !target.verified) return Promise.reject(new NoPinnedCertificateError());
  // Aborted already (the hub stopping): no request is made at all.
  if (request.signal?.aborted) return Promise.reject(request.signal.reason instanceof Error ? request.signal.reason : new Error('aborted'));
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: '*/*', ...request.headers };
    if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
    const common = { host: target.host, port: target.port, method: request.method, path: request.path, headers, agent: false as const };
    const pinned = target.pinned;
    const req = pinned
      ? https.request({
        ...common,
        agent: undefined, // a request without an agent takes its socket from createConnection
        createConnection: (_options, handOver) => {
          // Verification by the pin alone (not the chain, not the dates): see the top of this file.
          const socket = tls.connect({ host: target.host, port: target.port, servername: isIP(target.host) ? undefined : target.host, rejectUnauthorized: false });
          socket.once('secureConnect', () => {
            const presented = socket.getPeerCertificate()?.fingerprint256;
            if (presented === pinned.sha256) return handOver(null, socket);
            socket.destroy();
            handOver(new CertificateChangedError(presented, pinned.sha256), socket);
          });
          socket.once('error', (err) => handOver(err, socket));
          return undefined;
        },
      })
      : target.scheme === 'https'
        ? https.request({ ...common, ca: target.verified?.ca, servername: isIP(target.host) ? undefined : target.host })
        : http.request(common);
    const limit = request.maxBytes ?? DEFAULT_MAX_BYTES;
    let settled = false;
    const finish = (err: Error | undefined, answer?: HttpAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      if (err) {
        req.destroy();
        reject(err);
      } else resolve(answer!);
    };
    const timer = setTimeout(() => finish(new HttpTimeoutError(request.timeoutMs)), request.timeoutMs);
    const onAbort = () => finish(request.signal!.reason instanceof Error ? request.signal!.reason : new Error('aborted'));
    request.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err: NodeJS.ErrnoException) => finish(err));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) finish(new Error(`answer larger than ${limit} bytes`));
        else chunks.push(chunk);
      });
      res.on('end', () => finish(undefined, { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (err) => finish(err));
    });
    req.end(request.body);
  });
}

/** The connection could not be opened at all (refused, no route, no such host): nothing was sent. */
export function neverConnected(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ECONNREFUSED' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'ENOTFOUND' || code === 'EAI_AGAIN';
}

/**
 * The certificate a device presents, for the installer to accept (trust on first use). The
 * handshake runs with verification on: the certificate is read as the handshake completes and the
 * connection is then refused by Node's own check (or closed, when a public CA vouches for it);
 * nothing is ever sent over it.
 */
export function peekCertificate(host: string, port: number, timeoutMs: number): Promise<PinnedCertificate> {
  return new Promise((resolve, reject) => {
    let seen: PinnedCertificate | undefined;
    const socket = tls.connect({ host, port, servername: isIP(host) ? undefined : host, rejectUnauthorized: true });
    const timer = setTimeout(() => done(new HttpTimeoutError(timeoutMs)), timeoutMs);
    const done = (err?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (seen) resolve(seen);
      else reject(err ?? new Error('the device presented no certificate'));
    };
    socket.prependListener('secure', () => {
      const cert = socket.getPeerCertificate(true);
      if (cert?.raw) {
        const pem = `-----BEGIN CERTIFICATE-----\n${cert.raw.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
        seen = { sha256: cert.fingerprint256, pem };
      }
    });
    socket.on('secureConnect', () => done());
    socket.on('error', (err) => done(err));
  });
}
