// A client of the test broker that records what arrives on some topics, as Home Assistant would see
// it: retained messages handed over on subscription, then live ones. Waits are on the message
// expected, with a timeout, never on a sleep.
import type { TestContext } from 'node:test';
import mqtt, { type MqttClient } from 'mqtt';

export interface Seen {
  topic: string;
  payload: string;
  retain: boolean;
  /** Order of arrival, to tell what came after a given moment. */
  seq: number;
}

export class TopicWatch {
  readonly seen: Seen[] = [];
  /** The last payload per topic (empty: cleared). */
  readonly latest = new Map<string, string>();
  private waiters: { match: (m: Seen) => boolean; resolve: (m: Seen) => void }[] = [];

  private constructor(readonly client: MqttClient) {}

  static async start(t: TestContext, url: string, filters: string[]): Promise<TopicWatch> {
    const client = await mqtt.connectAsync(url, { clientId: `watch-${Math.random().toString(16).slice(2, 10)}`, reconnectPeriod: 0 });
    t.after(() => client.endAsync(true));
    const watch = new TopicWatch(client);
    client.on('message', (topic, payload, packet) => watch.arrived({ topic, payload: payload.toString(), retain: packet.retain, seq: watch.seen.length }));
    if (filters.length > 0) await client.subscribeAsync(filters, { qos: 1 });
    return watch;
  }

  /** The first message, already seen or to come, that matches; rejects after `timeoutMs`. */
  until(match: (m: Seen) => boolean, timeoutMs = 10_000, what = 'a matching message'): Promise<Seen> {
    const found = this.seen.find(match);
    return found ? Promise.resolve(found) : this.next(match, timeoutMs, what);
  }

  /** The first message still to come that matches. */
  next(match: (m: Seen) => boolean, timeoutMs = 10_000, what = 'a matching message'): Promise<Seen> {
    return new Promise((resolve, reject) => {
      const waiter = {
        match,
        resolve: (m: Seen) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** The current JSON payload of a topic (latest non-empty), parsed. */
  json(topic: string): Record<string, any> {
    const text = this.latest.get(topic);
    if (!text) throw new Error(`nothing on ${topic}`);
    return JSON.parse(text);
  }

  private arrived(message: Seen): void {
    this.seen.push(message);
    this.latest.set(message.topic, message.payload);
    for (const waiter of [...this.waiters]) {
      if (!waiter.match(message)) continue;
      this.waiters = this.waiters.filter((w) => w !== waiter);
      waiter.resolve(message);
    }
  }
}
