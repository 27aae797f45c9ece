// The cloud relay: an outbound MQTT 5 connection through which a relay's partner calls reach the
// same API, so that a hub behind a home router needs no open port. A request is a message on
// `<prefix>/<hubId>/requests` carrying a response topic and correlation data; the answer goes to that
// topic with the same correlation data. Every relayed call goes through the same Hono app, so it
// needs a valid key like any other; the relay is never treated as local or trusted.
import type { MqttClient, IPublishPacket } from 'mqtt';
import type { Hono } from 'hono';
import type { Logger } from '../log.ts';
import { EventEmitter } from 'node:events';
import type { MqttEndpoint } from '../transport/mqtt-connection.ts';
import { BrokerLink } from '../transport/broker-link.ts';

export interface RelaySettings extends MqttEndpoint {
  hubId: string;
  topicPrefix: string;
  requestTimeoutMs: number;
  maxInFlight: number;
  /** Largest request body accepted (the HTTP limit applies again inside the app). */
  maxRequestBytes: number;
  maxResponseBytes: number;
}

interface RelayRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  bodyEncoding?: 'utf8' | 'base64';
}

export interface RelayResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  bodyEncoding: 'utf8' | 'base64';
}

const FORWARDED_REQUEST_HEADERS = ['x-api-key', 'content-type', 'if-none-match', 'accept'];
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'etag', 'cache-control', 'allow', 'retry-after'];
const REPLAY_MEMORY = 500;

export class Relay {
  private readonly link: BrokerLink;
  private client: MqttClient | undefined;
  private inFlight = 0;
  /** Answers by correlation data, so that a QoS 1 redelivery is answered again, not executed twice. */
  private readonly answered = new Map<string, RelayResponse>();
  private resolveReady: () => void = () => {};
  private readonly readyPromise = new Promise<void>((resolve) => (this.resolveReady = resolve));

  constructor(
    private readonly settings: RelaySettings,
    private readonly app: Hono,
    private readonly log: Logger,
  ) {
    // A relay that cannot be reached (no internet at boot, a wrong certificate) must never keep the
    // hub from serving the house: the link connects in the background with jittered back-off.
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
      client.on('message', (_topic, payload, packet) => void this.handle(payload, packet));
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

  private async handle(payload: Buffer, packet: IPublishPacket): Promise<void> {
    const responseTopic = packet.properties?.responseTopic;
    const correlation = packet.properties?.correlationData;
    if (!responseTopic || !correlation) {
      this.log.warn('relay request without response topic or correlation data: dropped');
      return;
    }
    const key = correlation.toString('hex');
    const earlier = this.answered.get(key);
    if (earlier) return this.reply(responseTopic, correlation, earlier);
    const response = await this.answer(payload);
    this.answered.set(key, response);
    if (this.answered.size > REPLAY_MEMORY) this.answered.delete(this.answered.keys().next().value!);
    await this.reply(responseTopic, correlation, response);
  }

  /** Runs one relayed call through the app, within the relay's limits. */
  async answer(payload: Buffer): Promise<RelayResponse> {
    if (payload.length > this.settings.maxRequestBytes + 16 * 1024) return errorResponse(413, 'PAYLOAD_TOO_LARGE', 'Request too large');
    let request: RelayRequest;
    try {
      request = JSON.parse(payload.toString('utf8')) as RelayRequest;
    } catch {
      return errorResponse(400, 'BAD_REQUEST', 'Relay request is not valid JSON');
    }
    if (typeof request.method !== 'string' || typeof request.path !== 'string' || !request.path.startsWith('/v1.0.0/')) {
      return errorResponse(400, 'BAD_REQUEST', 'Relay request needs a method and a /v1.0.0/ path');
    }
    if (this.inFlight >= this.settings.maxInFlight) return errorResponse(429, 'TOO_MANY_REQUESTS', 'Too many relayed requests in flight');
    this.inFlight++;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.settings.requestTimeoutMs);
    try {
      const headers = new Headers();
      for (const name of FORWARDED_REQUEST_HEADERS) {
        const value = request.headers?.[name] ?? request.headers?.[name.toUpperCase()];
        if (typeof value === 'string') headers.set(name, value);
      }
      const body = request.body === undefined ? undefined : Buffer.from(request.body, request.bodyEncoding === 'base64' ? 'base64' : 'utf8');
      const method = request.method.toUpperCase();
      const init: RequestInit = { method, headers, signal: abort.signal };
      if (body && method !== 'GET' && method !== 'HEAD') init.body = body;
      const fetched = Promise.resolve(this.app.fetch(new Request(`http://relay.invalid${request.path}`, init), { clientAddress: 'relay' }));
      const timedOut = new Promise<'timeout'>((resolve) => abort.signal.addEventListener('abort', () => resolve('timeout')));
      const res = await Promise.race([fetched, timedOut]);
      if (res === 'timeout') return errorResponse(504, 'GATEWAY_TIMEOUT', 'The hub did not answer in time');
      return await toRelayResponse(res, this.settings.maxResponseBytes);
    } finally {
      clearTimeout(timer);
      this.inFlight--;
    }
  }

  private async reply(topic: string, correlationData: Buffer, response: RelayResponse): Promise<void> {
    try {
      await this.client?.publishAsync(topic, JSON.stringify(response), { qos: 1, retain: false, properties: { correlationData, contentType: 'application/json' } });
    } catch (err) {
      this.log.warn({ err: { type: (err as Error).name, message: (err as Error).message } }, 'relay reply failed');
    }
  }
}

async function toRelayResponse(res: Response, maxBytes: number): Promise<RelayResponse> {
  const bytes = Buffer.from(await res.arrayBuffer());
  if (bytes.length > maxBytes) return errorResponse(502, 'RESPONSE_TOO_LARGE', 'The answer is too large for the relay');
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_RESPONSE_HEADERS) {
    const value = res.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const textual = /^(application\/json|text\/)/.test(headers['content-type'] ?? 'application/json');
  return { status: res.status, headers, body: bytes.toString(textual ? 'utf8' : 'base64'), bodyEncoding: textual ? 'utf8' : 'base64' };
}

function errorResponse(status: number, errorCode: string, message: string): RelayResponse {
  const body = JSON.stringify({ errorCode, id: crypto.randomUUID(), message });
  return { status, headers: { 'content-type': 'application/json' }, body, bodyEncoding: 'utf8' };
}
