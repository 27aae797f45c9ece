// With Home Assistant's discovery turned off, what an earlier run published is taken back: the broker
// hands every retained message of this node's config, state and availability topics to a new
// subscriber, and each is answered with an empty retained message, which removes the entity from
// Home Assistant (its MQTT discovery documentation) and the value from the broker. Only retained
// messages are touched: the cleaner's own empty ones, delivered back live, are not.
import type { IPublishPacket, MqttClient } from 'mqtt';
import type { Logger } from '../../log.ts';
import type { BrokerLink } from '../../transport/broker-link.ts';
import type { HaTopics } from './discovery.ts';

export class HomeAssistantCleaner {
  /** Topics emptied so far (tests and the log). */
  cleared = 0;
  private client: MqttClient | undefined;
  private readonly onConnect = (client: MqttClient) => this.connected(client);
  private readonly onMessage = (topic: string, payload: Buffer, packet: IPublishPacket) => this.message(topic, payload, packet);

  constructor(private readonly link: BrokerLink, private readonly topics: HaTopics, private readonly log: Logger) {}

  start(): void {
    this.link.on('connect', this.onConnect);
    if (this.link.client?.connected) this.connected(this.link.client);
  }

  stop(): void {
    this.link.off('connect', this.onConnect);
    this.client?.off('message', this.onMessage);
    this.client = undefined;
  }

  private connected(client: MqttClient): void {
    if (this.client !== client) {
      this.client?.off('message', this.onMessage);
      this.client = client;
      client.on('message', this.onMessage);
    }
    client.subscribe([this.topics.configFilter, this.topics.stateFilter], { qos: 1 }, (err) => {
      if (err) this.log.warn({ err: { message: err.message } }, 'home assistant: cannot look for what an earlier run published');
    });
  }

  private message(topic: string, payload: Buffer, packet: IPublishPacket): void {
    if (!packet.retain || payload.length === 0) return;
    if (!this.topics.parseConfig(topic) && !this.topics.isOwnTopic(topic)) return;
    this.cleared++;
    if (this.cleared === 1) this.log.info('home assistant: discovery is off; removing what an earlier run published');
    this.client?.publish(topic, '', { qos: 1, retain: true });
  }
}
