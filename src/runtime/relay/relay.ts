// The cloud relay: an outbound MQTT 5 connection through which a relay's partner calls reach the
// same API, so that a hub behind a home router needs no open port. A request is a message on
// `<prefix>/<hubId>/requests` carrying a response topic and correlation data; the answer goes to that
// topic with the same correlation data. Every relayed call goes through the same Hono app, so it
// needs a valid key like any other; the relay is never treated as local or trusted.
import type { MqttClient, IPublishPacket } from 'mqtt';
import type { Hono } from 'hono';
import type { Logger } from '../../log.ts';
import { EventEmitter } from 'node:events';
import { createHash } from 'node:crypto';
import type { MqttEndpoint } from '../../transport/mqtt-connection.ts';
import { BrokerLink } from '../../transport/broker-link.ts';
import { errorResponse, isValidRelayRequest, parseRelayRequest, requestFingerprint, type RelayResponse, type ValidRelayRequest } from './relay-request.ts';
import { DEFAULT_REPLAY_LIMITS, ReplayMemory, type ReplayLimits } from './relay-replay.ts';
import { RelayKeyGuard } from './relay-key-guard.ts';

export type { RelayResponse } from './relay-request.ts';

export interface RelaySettings extends MqttEndpoint {
  hubId: string;
  topicPrefix: string;
  requestTimeoutMs: number;
  maxInFlight: number;
  /** Largest request body accepted (the HTTP limit applies again inside the app). */
  maxRequestBytes: number;
  maxResponseBytes: number;
  /** Redelivery memory; the defaults serve a hub (tests shrink them). */
  replay?: ReplayLimits;
}

const FORWARDED_RESPONSE_HEADERS = ['content-type', 'etag', 'cache-control', 'allow', 'retry-after'];
/** Reads are carried out again when redelivered (harmless, and a kept answer would be stale). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const utf8 = new TextDecoder('utf-8', { fatal: true });
/** Wrong keys a minute through the relay, all partners together, before unknown keys wait (relay-key-guard.ts). */
const RELAY_FAILED_KEYS_PER_MINUTE = 100;
const NO_KEY = 'relay:no-key';

export class Relay {
  private readonly link: BrokerLink;
  private client: MqttClient | undefined;
  private inFlight = 0;
  /** So that a QoS 1 redelivery is answered again, not carried out twice (relay-replay.ts). */
  private readonly replay: ReplayMemory;
  private readonly keyGuard = new RelayKeyGuard(RELAY_FAILED_KEYS_PER_MINUTE, NO_KEY);
  private resolveReady: () => void = () => {};
  private readonly readyPromise = new Promise<void>((resolve) => (this.resolveReady = resolve));

  constructor(
    private readonly settings: RelaySettings,
    private readonly app: Hono,
    private readonly log: Logger,
  ) {
    // A relay that cannot be reached (no internet at boot, a wrong certificate) must never keep the
    // hub from serving the house: the link connects in the background with jittered back-off.
    this.replay = new ReplayMemory(settings.replay ?? DEFAULT_REPLAY_LIMITS);
    this.link = new BrokerLink({ ...settings, protocolVersion: 5 }, log, { initialMs: 2000, maxMs: 300_000 });
    this.link.on('connect', (client: MqttClient) => void this.onConnect(client));
  }

  /** 'connectFailed' (err) on every failed attempt; tests and metrics listen. */
  get events(): EventEmitter {
    return this.link;
  }

  get requestTopic(): string {
    return `${this.settings.topicPrefix}/${this.settings.hubId}/requests`;
  }

  start(): void {
    this.link.start();
  }

  /** Resolves once the relay is connected and subscribed. */
  get ready(): Promise<void> {
    return this.readyPromise;
  }

  private async onConnect(client: MqttClient): Promise<void> {
    if (client.options.protocolVersion !== 5) {
      this.log.error('the relay broker must speak MQTT 5 (response topics and correlation data); relay not used');
      return;
    }
    if (this.client !== client) {
      this.client = client;
      client.on('message', (_topic, payload, packet) => this.onMessage(payload, packet));
    }
    try {
      await client.subscribeAsync(this.requestTopic, { qos: 1 });
      this.log.info({ topic: this.requestTopic }, 'relay connected');
      this.resolveReady();
    } catch (err) {
      this.log.warn({ reason: (err as Error).message }, 'relay subscription failed; retried on the next connection');
    }
  }

  async stop(): Promise<void> {
    await this.link.stop();
    this.client = undefined;
  }

  /** No request may end the hub: whatever escapes the handling below is logged, never thrown. */
  private onMessage(payload: Buffer, packet: IPublishPacket): void {
    this.handle(payload, packet).catch((err: unknown) => {
      this.log.error({ err: { type: (err as Error)?.name } }, 'relay request failed unanswered');
    });
  }

  private async handle(payload: Buffer, packet: IPublishPacket): Promise<void> {
    const responseTopic = packet.properties?.responseTopic;
    if (!this.answerable(responseTopic)) {
      this.log.warn('relay request without a usable response topic: dropped (there is nowhere to answer)');
      return;
    }
    const correlation = packet.properties?.correlationData;
    if (!correlation) {
      return this.reply(responseTopic, undefined, this.refused(errorResponse(400, 'BAD_REQUEST', 'Bad relay request', [{ field: 'correlationData', message: 'is required (MQTT 5 correlation data)' }])));
    }
    const request = parseRelayRequest(payload, this.settings.maxRequestBytes);
    if (!isValidRelayRequest(request)) return this.reply(responseTopic, correlation, this.refused(request));

    const fingerprint = requestFingerprint(request);
    const earlier = this.replay.earlier(responseTopic, correlation, fingerprint);
    if (earlier) return this.reply(responseTopic, correlation, await earlier);
    if (this.inFlight >= this.settings.maxInFlight) {
      return this.reply(responseTopic, correlation, errorResponse(429, 'TOO_MANY_REQUESTS', 'Too many relayed requests in flight', undefined, { 'retry-after': '1' }));
    }
    const client = relayClient(request.headers['x-api-key']);
    const retryAfter = this.keyGuard.retryAfterSeconds(client);
    if (retryAfter > 0) {
      return this.reply(responseTopic, correlation, this.refused(errorResponse(429, 'TOO_MANY_REQUESTS', 'Too many failed keys through the relay; keys that worked still pass', undefined, { 'retry-after': String(retryAfter) })));
    }
    const answer = this.carryOut(request, client);
    this.replay.remember(responseTopic, correlation, fingerprint, !SAFE_METHODS.has(request.method), answer);
    await this.reply(responseTopic, correlation, await answer);
  }

  /**
   * A topic the hub may publish its answer to. A wildcard or NUL in a PUBLISH topic is a protocol
   * error for which the broker drops the hub's connection; the request topic itself would loop.
   */
  private answerable(topic: string | undefined): topic is string {
    return typeof topic === 'string' && topic.length > 0 && Buffer.byteLength(topic) <= 65_535 && !/[#+\0]/.test(topic) && topic !== this.requestTopic;
  }

  /** Logs a refusal with its error id, the fields named but never their values (a key may be one). */
  private refused(response: RelayResponse): RelayResponse {
    const body = JSON.parse(response.body) as { errorCode: string; id: string; validationErrors?: { field: string }[] };
    this.log.info({ errorId: body.id, errorCode: body.errorCode, status: response.status, fields: body.validationErrors?.map((e) => e.field) }, 'relay request refused');
    return response;
  }

  /** Runs one valid relayed call through the app, within the relay's time and answer size limits. Never rejects. */
  private async carryOut(request: ValidRelayRequest, client: string): Promise<RelayResponse> {
    this.inFlight++;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.settings.requestTimeoutMs);
    try {
      const init: RequestInit = { method: request.method, headers: request.headers, signal: abort.signal };
      if (request.body) init.body = request.body;
      const env = { clientAddress: client };
      // The answer's body is read within the same time limit as its head: a stream that never ends
      // must not hold a place in flight for ever.
      const answered = (async () => toRelayResponse(await this.app.fetch(new Request(`http://relay.invalid${request.path}`, init), env), this.settings.maxResponseBytes, abort.signal))();
      const timedOut = new Promise<'timeout'>((resolve) => abort.signal.addEventListener('abort', () => resolve('timeout')));
      const res = await Promise.race([answered, timedOut]);
      if (res === 'timeout') return errorResponse(504, 'GATEWAY_TIMEOUT', 'The hub did not answer in time');
      this.keyGuard.answered(client, res.status);
      return res;
    } catch (err) {
      const response = errorResponse(500, 'INTERNAL_SERVER_ERROR', 'Internal server error');
      this.log.error({ errorId: JSON.parse(response.body).id, err: { type: (err as Error)?.name } }, 'relayed request failed in the hub');
      return response;
    } finally {
      clearTimeout(timer);
      this.inFlight--;
    }
  }

  private async reply(topic: string, correlationData: Buffer | undefined, response: RelayResponse): Promise<void> {
    const properties = correlationData ? { correlationData, contentType: 'application/json' } : { contentType: 'application/json' };
    try {
      await this.client?.publishAsync(topic, JSON.stringify(response), { qos: 1, retain: false, properties });
    } catch (err) {
      this.log.warn({ err: { type: (err as Error)?.name, message: (err as Error)?.message } }, 'relay reply failed');
    }
  }
}

/**
 * Who the failed-key limiter counts a relayed call as: the presented key's own bucket (a short hash,
 * never the key), so that one partner's wrong key does not lock out every partner behind the relay.
 * No key at all (or an empty one: a client set up wrong, not a guess) is a bucket of its own.
 */
export function relayClient(key: string | undefined): string {
  if (key === undefined || key.trim() === '') return NO_KEY;
  return `relay:${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

async function toRelayResponse(res: Response, maxBytes: number, signal: AbortSignal): Promise<RelayResponse> {
  const bytes = await readCapped(res, maxBytes, signal);
  if (!bytes) return errorResponse(502, 'RESPONSE_TOO_LARGE', 'The answer is too large for the relay');
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_RESPONSE_HEADERS) {
    const value = res.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const textual = /^(application\/json|text\/)/.test(headers['content-type'] ?? 'application/json');
  if (textual) {
    try {
      return { status: res.status, headers, body: utf8.decode(bytes), bodyEncoding: 'utf8' };
    } catch {
      // Text that is not UTF-8 travels as base64 rather than mangled.
    }
  }
  return { status: res.status, headers, body: bytes.toString('base64'), bodyEncoding: 'base64' };
}

/** The body, or undefined past maxBytes (read no further than that: an answer may be large). */
async function readCapped(res: Response, maxBytes: number, signal: AbortSignal): Promise<Buffer | undefined> {
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (!res.body || declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    return res.body && declared > maxBytes ? undefined : Buffer.alloc(0);
  }
  const reader = res.body.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  signal.addEventListener('abort', cancel, { once: true });
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return Buffer.concat(chunks);
      total += value.byteLength;
      if (total > maxBytes) {
        cancel();
        return undefined;
      }
      chunks.push(value);
    }
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}
