// A connection to a broker that is made in the background and kept: the first connection is retried
// with jittered back-off until it succeeds (a broker that is down at boot must not keep the hub from
// serving the house), after which mqtt.js reconnects on its own (see mqtt-connection.ts).
// Emits 'connect' (client) on every (re)connection and 'connectFailed' (error) on every failed first
// attempt.
import { EventEmitter } from 'node:events';
import type { MqttClient } from 'mqtt';
import type { Logger } from '../log.ts';
import { backoffDelay, connectMqtt, redactUrl, type BackoffOptions, type MqttEndpoint } from './mqtt-connection.ts';

export class BrokerLink extends EventEmitter {
  private current: MqttClient | undefined;
  private stopped = false;
  private loop: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;

  constructor(
    readonly endpoint: MqttEndpoint,
    private readonly log: Logger,
    private readonly backoff: BackoffOptions = { initialMs: 1000, maxMs: 60_000 },
  ) {
    super();
  }

  get client(): MqttClient | undefined {
    return this.current;
  }

  get connected(): boolean {
    return this.current?.connected === true;
  }

  get broker(): string {
    return redactUrl(this.endpoint.url);
  }

  start(): void {
    this.stopped = false;
    this.loop = this.connectLoop();
  }

  /** Resolves with the client once it is connected; rejects when `signal` aborts first. */
  whenConnected(signal?: AbortSignal): Promise<MqttClient> {
    if (this.current?.connected) return Promise.resolve(this.current);
    return new Promise((resolve, reject) => {
      const onConnect = (client: MqttClient) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(client);
      };
      const onAbort = () => {
        this.off('connect', onConnect);
        reject(signal?.reason ?? new Error('aborted'));
      };
      this.once('connect', onConnect);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.wake?.();
    await this.loop;
    const client = this.current;
    this.current = undefined;
    if (!client) return;
    // A graceful end lets in-flight messages be acknowledged, but a broker that is away never
    // answers: then, after a short wait, the connection is dropped.
    // The wait is a ref'd timer: with the broker gone nothing else may keep the process alive, and a
    // stop must not end by the event loop running dry before the database is closed.
    const graceful = client.connected ? client.endAsync(false) : Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = await Promise.race([graceful.then(() => false), new Promise<boolean>((resolve) => { timer = setTimeout(resolve, 2000, true); })]);
    clearTimeout(timer);
    if (gaveUp || !client.connected) await client.endAsync(true);
  }

  private async connectLoop(): Promise<void> {
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        const client = await connectMqtt(this.endpoint, this.log, this.backoff);
        if (this.stopped) {
          await client.endAsync(true);
          return;
        }
        this.current = client;
        client.on('connect', () => this.emit('connect', client));
        this.emit('connect', client);
        return;
      } catch (err) {
        this.emit('connectFailed', err);
        const delay = backoffDelay(attempt, this.backoff);
        this.log.warn({ broker: this.broker, reason: (err as Error).message, retryInMs: delay }, 'broker not reachable');
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          this.retryTimer = setTimeout(resolve, delay);
        });
      }
    }
  }
}
