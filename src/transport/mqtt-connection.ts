// One MQTT client for a configured broker: MQTT 5 (falling back to 3.1.1 when the broker only
// speaks that), TLS with a CA or a client certificate, username/password, and reconnection with
// jittered exponential back-off so that a houseful of hubs does not hammer a broker in step.
// Subscriptions are restored by mqtt.js on reconnect (resubscribe); its offline queue is turned off
// so that nothing stale is sent after a reconnect.
import { readFileSync } from 'node:fs';
import type { IClientOptions, MqttClient } from 'mqtt';
import type { Logger } from '../log.ts';

export interface MqttEndpoint {
  /** mqtt://, mqtts://, ws:// or wss:// with host and port. */
  url: string;
  clientId?: string;
  username?: string;
  password?: string;
  /** PEM files: the CA that signed the broker's certificate; a client certificate and key. */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /** 5 by default; 4 (3.1.1) is tried when a broker refuses 5. */
  protocolVersion?: 4 | 5;
  keepaliveSeconds?: number;
  /**
   * False: a lost connection is left to the caller, which reconnects with new credentials (a maker's
   * cloud broker whose password is an hour-long token). mqtt.js reconnects by itself otherwise.
   */
  reconnect?: boolean;
  /** The CA's PEM itself, where it is not a file (a test's CA for a maker's cloud broker). */
  ca?: string;
  /** The oldest TLS version taken (a maker's broker that requires TLS 1.3); Node's default otherwise. */
  minTlsVersion?: 'TLSv1.2' | 'TLSv1.3';
  /** The last will the broker publishes when the connection dies without a clean goodbye. */
  will?: { topic: string; payload: string; qos: 0 | 1; retain: boolean };
}

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  random?: () => number;
}

/** Full jitter: a random delay between half the exponential step and the step itself. */
export function backoffDelay(attempt: number, { initialMs, maxMs, random = Math.random }: BackoffOptions): number {
  const step = Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 20));
  return Math.round(step / 2 + random() * (step / 2));
}

export function clientOptions(endpoint: MqttEndpoint, protocolVersion: 4 | 5): IClientOptions {
  const options: IClientOptions = {
    protocolVersion,
    clientId: endpoint.clientId ?? `home-energy-hub-${Math.random().toString(16).slice(2, 10)}`,
    keepalive: endpoint.keepaliveSeconds ?? 30,
    clean: true,
    connectTimeout: 10_000,
    resubscribe: true,
    queueQoSZero: false,
    reconnectPeriod: endpoint.reconnect === false ? 0 : backoffDelay(0, { initialMs: 1000, maxMs: 60_000 }),
  };
  if (endpoint.will) options.will = { ...endpoint.will, payload: Buffer.from(endpoint.will.payload) };
  if (endpoint.username !== undefined) options.username = endpoint.username;
  if (endpoint.password !== undefined) options.password = endpoint.password;
  if (endpoint.caFile) options.ca = readFileSync(endpoint.caFile);
  if (endpoint.ca) options.ca = endpoint.ca;
  if (endpoint.certFile) options.cert = readFileSync(endpoint.certFile);
  if (endpoint.keyFile) options.key = readFileSync(endpoint.keyFile);
  if (endpoint.caFile || endpoint.ca || endpoint.certFile) options.rejectUnauthorized = true;
  // mqtt.js hands its options to tls.connect.
  if (endpoint.minTlsVersion) Object.assign(options, { minVersion: endpoint.minTlsVersion });
  return options;
}

/** Connects, trying MQTT 5 first; resolves once connected, rejects on the first hard failure. */
export async function connectMqtt(endpoint: MqttEndpoint, log: Logger, backoff: BackoffOptions = { initialMs: 1000, maxMs: 60_000 }): Promise<MqttClient> {
  // Loaded on first use: a hub without a broker or relay does not carry mqtt.js (about 8 MB) in memory.
  const { default: mqtt } = await import('mqtt');
  const versions: (4 | 5)[] = endpoint.protocolVersion === 4 ? [4] : [5, 4];
  let lastError: Error | undefined;
  for (const version of versions) {
    const client = mqtt.connect(endpoint.url, clientOptions(endpoint, version));
    try {
      await new Promise<void>((resolve, reject) => {
        // mqtt.js reports a refused CONNACK as 'error' but a failed socket or TLS handshake only as
        // 'close' (it would retry for ever): the first attempt decides.
        let cause: Error | undefined;
        client.once('connect', () => resolve());
        client.once('error', (err) => { cause = err; reject(err); });
        // A 3.1.1-only broker may just hang up on an MQTT 5 CONNECT (aedes does): worth a 3.1.1 try.
        client.once('close', () => reject(cause ?? Object.assign(new Error('connection closed before the broker accepted it'), { hungUp: true })));
        client.stream?.once?.('error', (err: Error) => { cause = err; });
      });
      if (endpoint.reconnect !== false) attachBackoff(client, backoff, log);
      log.info({ broker: redactUrl(endpoint.url), protocolVersion: version }, 'mqtt connected');
      return client;
    } catch (err) {
      lastError = err as Error;
      await client.endAsync(true);
      const tls = tlsFailure(err);
      if (tls) {
        // No MQTT was spoken: another protocol version would meet the same handshake.
        throw new Error(`cannot connect to MQTT broker ${redactUrl(endpoint.url)}: the TLS handshake failed (${tls})`);
      }
      if (version === versions.at(-1) || (!isUnsupportedProtocol(err) && !(err as { hungUp?: boolean }).hungUp)) break;
      log.info({ broker: redactUrl(endpoint.url) }, 'broker refused MQTT 5; trying 3.1.1');
    }
  }
  throw new Error(`cannot connect to MQTT broker ${redactUrl(endpoint.url)}: ${lastError?.message ?? 'unknown error'}`);
}

/**
 * What failed in a TLS handshake, in OpenSSL's words (`tlsv1 alert protocol version`: the broker and
 * the hub share no TLS version), or undefined when the error is not one of TLS. An alert from the
 * peer comes as a socket's EPROTO whose message quotes OpenSSL (`…:SSL routines:<function>:<reason>:…`);
 * Node's own checks of the peer's certificate come with their codes.
 */
function tlsFailure(err: unknown): string | undefined {
  const e = err as { code?: unknown; reason?: unknown; message?: string };
  const openssl = /SSL routines:[^:]*:([^:]+)/.exec(e.message ?? '');
  if (openssl) return openssl[1];
  if (typeof e.code === 'string' && (/^ERR_(SSL|TLS)_/.test(e.code) || TLS_CERTIFICATE_CODES.has(e.code))) return e.message;
  return undefined;
}

const TLS_CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'CERT_SIGNATURE_FAILURE',
]);

function attachBackoff(client: MqttClient, backoff: BackoffOptions, log: Logger): void {
  let attempt = 0;
  noDelay(client);
  client.on('connect', () => {
    noDelay(client);
    if (attempt > 0) log.info({ attempts: attempt }, 'mqtt reconnected');
    attempt = 0;
    client.options.reconnectPeriod = backoffDelay(0, backoff);
  });
  client.on('close', () => {
    attempt++;
    // mqtt.js reads reconnectPeriod each time it schedules a reconnect.
    if (!client.disconnecting) client.options.reconnectPeriod = backoffDelay(attempt, backoff);
  });
  client.on('offline', () => log.warn('mqtt broker unreachable; reconnecting'));
  client.on('error', (err) => log.warn({ err: { type: err.name, message: err.message } }, 'mqtt error'));
}

/**
 * Commands and events are small packets sent one after another; with Nagle's algorithm a packet
 * waits for the broker's delayed acknowledgement of the previous one (40 ms on Linux), which
 * measured as 40 ms of a command's latency. mqtt.js leaves it on; each new socket gets it off.
 */
function noDelay(client: MqttClient): void {
  const socket = client.stream as unknown as { setNoDelay?: (on: boolean) => void };
  socket.setNoDelay?.(true);
}

/**
 * The broker's CONNACK refused the protocol version: 0x84 Unsupported Protocol Version (MQTT 5), 1
 * the 3.1.1 refusal some brokers answer with. Only a CONNACK's numeric code counts: a TLS alert's
 * text ("protocol version") is no word of MQTT's.
 */
function isUnsupportedProtocol(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 0x84 || code === 1;
}

/** A broker URL without credentials, fit for a log line. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(invalid url)';
  }
}
