// The base of the MQTT device simulators: a client of the test broker that publishes what a real
// device or bridge publishes (retained where the real one retains), registers the same last will,
// and answers writes on its command topics. Faults on demand: `silent` (takes commands, never
// answers), `rejecting` (answers with an error), `delayMs` (answers late), and `drop()` (the
// connection dies without a goodbye, so the broker publishes the last will).
import mqtt, { type IClientOptions, type IClientPublishOptions, type IPublishPacket, type MqttClient } from 'mqtt';

export interface SimFaults {
  silent: boolean;
  rejecting: boolean;
  delayMs: number;
}

export interface SimOptions {
  url: string;
  will?: { topic: string; payload: string; retain: boolean; qos: 0 | 1 };
  /** 5 for a device that answers MQTT 5 requests (response topic, correlation data). */
  protocolVersion?: 4 | 5;
}

export abstract class MqttDeviceSim {
  client: MqttClient | undefined;
  readonly faults: SimFaults = { silent: false, rejecting: false, delayMs: 0 };
  /** Every command the simulated device received: topic and payload text. */
  readonly received: { topic: string; payload: string }[] = [];

  constructor(protected readonly options: SimOptions) {}

  /** Topics (may use + wildcards) on which the device takes commands. */
  protected abstract commandTopics(): string[];
  /** Publishes the device's whole state, as the real device does when it (re)connects. */
  protected abstract publishAll(): Promise<void>;
  /** Applies one command; `packet` carries its MQTT 5 properties (response topic, correlation data). */
  protected abstract onCommand(topic: string, payload: string, packet: IPublishPacket): Promise<void>;

  async start(): Promise<void> {
    const options: IClientOptions = { clientId: `sim-${Math.random().toString(16).slice(2, 10)}`, reconnectPeriod: 200, connectTimeout: 5000 };
    if (this.options.will) options.will = { ...this.options.will, payload: Buffer.from(this.options.will.payload) };
    if (this.options.protocolVersion) options.protocolVersion = this.options.protocolVersion;
    const client = await mqtt.connectAsync(this.options.url, options);
    this.client = client;
    // Small answers right after other small packets: without this, Nagle holds them for the
    // broker's delayed ACK (tens of ms), which is the network stack's delay, not the device's.
    const noDelay = () => (client.stream as unknown as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
    noDelay();
    client.on('connect', noDelay);
    client.on('message', (topic, payload, packet) => {
      const text = payload.toString();
      this.received.push({ topic, payload: text });
      void this.onCommand(topic, text, packet).catch(() => {});
    });
    client.on('connect', () => void this.afterConnect());
    await this.afterConnect();
  }

  private async afterConnect(): Promise<void> {
    const client = this.client!;
    const topics = this.commandTopics();
    if (topics.length > 0) await client.subscribeAsync(topics, { qos: 1 });
    await this.publishAll();
  }

  async publish(topic: string, payload: string, retain = true, properties?: IClientPublishOptions['properties']): Promise<void> {
    if (!this.client?.connected) return;
    await this.client.publishAsync(topic, payload, { qos: 1, retain, ...(properties ? { properties } : {}) });
  }

  /** Answers after the configured delay, unless silent. */
  protected async answer(fn: () => Promise<void>): Promise<void> {
    if (this.faults.silent) return;
    if (this.faults.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.faults.delayMs));
    await fn();
  }

  /** The connection dies without DISCONNECT: the broker sends the last will. */
  drop(): void {
    this.client?.stream.destroy();
    this.client?.end(true);
    this.client = undefined;
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.endAsync(true);
  }
}
