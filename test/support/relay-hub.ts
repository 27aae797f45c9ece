// A whole hub with its cloud relay on a real MQTT 5 broker (mosquitto on a free loopback port), the
// demo site seeded, and the partner's side of the relay: it publishes requests and waits for the
// answer on the response topic it named, matched by topic and correlation data.
import type { TestContext } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import mqtt, { type IClientOptions, type IPublishPacket, type MqttClient } from 'mqtt';
import { Daemon } from '../../src/daemon.ts';
import { ConfigSchema } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { seedDemo } from '../../src/demo/site.ts';
import { startBroker, type TestBroker } from './broker.ts';
import type { RelayResponse } from '../../src/runtime/relay/relay.ts';

export const RELAY_KEY = 'relay-test-key-0123456789abcdefgh';
export const RESPONSES = 'partners/responses';

export interface CallOptions {
  /** undefined sends none; the default is fresh random bytes. */
  correlation?: Buffer | undefined;
  responseTopic?: string;
  timeoutMs?: number;
}

/** The relay side: publishes requests and waits for the answer with the same topic and correlation data. */
export class RelayClient {
  /** Waiters by topic and correlation data, first come first answered (a duplicate waits too). */
  private readonly waiting = new Map<string, ((r: RelayResponse) => void)[]>();

  constructor(private readonly client: MqttClient, private readonly hubId: string) {
    client.on('message', (topic, payload, packet: IPublishPacket) => {
      const resolve = this.waiting.get(answerKey(topic, packet.properties?.correlationData))?.shift();
      if (resolve) resolve(JSON.parse(payload.toString()) as RelayResponse);
    });
  }

  static async connect(url: string, hubId: string, options: IClientOptions = {}): Promise<RelayClient> {
    const client = await mqtt.connectAsync(url, { protocolVersion: 5, reconnectPeriod: 0, ...options });
    // Nagle's algorithm would hold each request behind the broker's delayed ACK (40 ms), as the
    // hub's own connections know (src/transport/mqtt-connection.ts).
    (client.stream as unknown as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
    await client.subscribeAsync('partners/#', { qos: 1 });
    return new RelayClient(client, hubId);
  }

  get requestTopic(): string {
    return `home-energy-hub/relay/${this.hubId}/requests`;
  }

  /** Publishes a request and waits for its answer. */
  async call(request: Record<string, unknown> | Buffer, options: CallOptions = {}): Promise<RelayResponse> {
    const correlation = 'correlation' in options ? options.correlation : randomBytes(16);
    const responseTopic = options.responseTopic ?? RESPONSES;
    const answer = this.answerOn(responseTopic, correlation, options.timeoutMs);
    await this.send(request, { responseTopic, correlationData: correlation });
    return answer;
  }

  /** The answer that will come on this topic with this correlation data. */
  answerOn(responseTopic: string, correlation: Buffer | undefined, timeoutMs = 10_000): Promise<RelayResponse> {
    const key = answerKey(responseTopic, correlation);
    const waiters = this.waiting.get(key) ?? [];
    this.waiting.set(key, waiters);
    return new Promise<RelayResponse>((resolve, reject) => {
      const waiter = (r: RelayResponse) => {
        clearTimeout(timer);
        resolve(r);
      };
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(waiter), 1);
        reject(new Error(`no relay answer on ${responseTopic}`));
      }, timeoutMs);
      waiters.push(waiter);
    });
  }

  /** Publishes without waiting: any payload, any properties (those a fuzzer wants missing too). */
  async send(request: Record<string, unknown> | Buffer | string, properties: { responseTopic?: string | undefined; correlationData?: Buffer | undefined }): Promise<void> {
    const payload = Buffer.isBuffer(request) || typeof request === 'string' ? request : JSON.stringify(request);
    const props: Record<string, unknown> = {};
    if (properties.responseTopic !== undefined) props['responseTopic'] = properties.responseTopic;
    if (properties.correlationData !== undefined) props['correlationData'] = properties.correlationData;
    await this.client.publishAsync(this.requestTopic, payload, { qos: 1, properties: props });
  }

  end(): Promise<void> {
    return this.client.endAsync();
  }
}

function answerKey(topic: string, correlation: Buffer | undefined): string {
  return `${topic}\n${correlation?.toString('hex') ?? '-'}`;
}

export interface RelayHub {
  daemon: Daemon;
  broker: TestBroker;
  partner: RelayClient;
}

/**
 * A demo hub whose relay is connected and subscribed, on a plain (no TLS) mosquitto: the TLS side is
 * relay.test.ts's first test; these tests are about what crosses it.
 */
export async function startRelayHub(t: TestContext, relay: Record<string, unknown> = {}, http: Record<string, unknown> = {}): Promise<RelayHub> {
  const dir = mkdtempSync(join(tmpdir(), 'hub-relay-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const broker = await startBroker();
  t.after(() => broker.stop());
  const daemon = new Daemon({
    config: ConfigSchema.parse({
      dataDir: join(dir, 'data'), http: { port: 0, bodyLimitBytes: 4096, ...http }, apiKey: RELAY_KEY,
      relay: { url: broker.url, hubId: 'hub-42', requestTimeoutMs: 5000, ...relay },
    }),
    log: silentLogger(),
    beforeListen: (store) => seedDemo(store, Date.now()),
  });
  await daemon.start();
  t.after(() => daemon.stop());
  await daemon.relayLink!.ready;
  const partner = await RelayClient.connect(broker.url, 'hub-42');
  t.after(() => partner.end());
  return { daemon, broker, partner };
}
