// One BMW account's CarData stream, for all its cars: BMW's MQTT broker over TLS, user name the
// GCID, password the id token, client id the GCID, one topic {gcid}/{vin} per car
// (kvanbiesen/bmw-cardata-ha @21802199 stream.py; evcc-io/evcc @b29b49e
// vehicle/bmw/cardata/provider.go). Messages are deltas of the documented shape {vin, entityId,
// topic, timestamp, data: {<key>: {timestamp, value, unit?}}}, values often strings; each is routed
// by its VIN, merged into that car's latest values, and the definition maps those onto its fields.
//
// BMW allows one stream connection per account (BMW's guide §4.3.1), so one connection serves the
// account's cars: a car added or removed is subscribed or unsubscribed on it. The id token lasts an
// hour and the broker closes the connection when it runs out, so the session refreshes the tokens
// before that (once for the account, the rotated refresh token stored in every car's binding:
// account-login.ts) and reconnects with the new password. When another client (an evcc or a Home
// Assistant on the same account) takes the stream over, an MQTT 5 broker says so: DISCONNECT with
// reason code 0x8E "Session taken over" (MQTT 5 §3.14.2.1); the session then says so and stays off
// for `takenOverRetryMs` instead of taking it back in a loop. Only that word counts: any other loss
// (a broker restart, a network hiccup, however soon after the hub's own token renewal) is taken back
// with back-off. A broker that closes the old connection without a word (MQTT 3.1.1 has no
// DISCONNECT from the server; mosquitto 2.0 sends none either) gives the hub nothing to tell a
// takeover by, so the hub takes the stream back; kvanbiesen/bmw-cardata-ha stream.py (MQTT 3.1.1)
// likewise reconnects after every unintended disconnect. A refused refresh (a lapsed or revoked
// login) leaves the account's cars offline until the owner connects one of them again.
import type { MqttClient } from 'mqtt';
import type { DeviceRecord, DriverBinding } from '../../domain/device.ts';
import { backoffDelay, connectMqtt } from '../../transport/mqtt-connection.ts';
import { AccountLogin } from './account-login.ts';
import { CardataLoginRefused, refreshTokens, type CardataEndpoints, type CardataTokens } from './cardata-oauth.ts';
import { mappedFields, vehicleFields } from './definition.ts';
import { ensureContainer, telematicSnapshot } from './cardata-rest.ts';
import type { CloudAccountDeps, CloudAccountSession, CloudStatus } from './cloud-session.ts';

export interface CardataStreamSettings {
  /** How long before the id token runs out the tokens are renewed. */
  renewBeforeMs: number;
  /** How long the stream is left to the other client that took it over. */
  takenOverRetryMs: number;
  backoff: { initialMs: number; maxMs: number };
}

export const DEFAULT_CARDATA_STREAM_SETTINGS: CardataStreamSettings = {
  renewBeforeMs: 10 * 60_000,
  takenOverRetryMs: 60 * 60_000,
  backoff: { initialMs: 1000, maxMs: 60_000 },
};

export type StreamStatus = CloudStatus;

export interface CardataStreamDeps extends CloudAccountDeps {
  endpoints: CardataEndpoints;
  settings: CardataStreamSettings;
}

/** MQTT 5's DISCONNECT reason "Session taken over": another client connected with the GCID. */
const SESSION_TAKEN_OVER = 0x8e;

export class CardataStream implements CloudAccountSession {
  /** The account's one stream has one status, which each of its cars shows (but one still joining it). */
  private state: StreamStatus = { state: 'connecting' };
  /** Cars added to the open connection whose topic is not subscribed yet: 'connecting' until it is. */
  private readonly joining = new Set<string>();
  private readonly login: AccountLogin<CardataTokens>;
  private client: MqttClient | undefined;
  private tokens: CardataTokens | undefined;
  private timer: NodeJS.Timeout | undefined;
  private attempts = 0;
  /** Counts the connections begun: one overtaken by a newer one (a new login) gives way. */
  private epoch = 0;
  /** The cars whose REST snapshot was tried: once per car and session, never again (50 REST calls a day). */
  private readonly snapshotTried = new Set<string>();
  /** The account's container, looked up or made once for all its cars. */
  private container: Promise<string> | undefined;
  private running = false;
  private stopped = false;
  /** Per car, the values it has sent so far (key → latest value). */
  private readonly latest = new Map<string, Map<string, unknown>>();
  private readonly mapped: string[];

  constructor(private readonly deps: CardataStreamDeps) {
    this.mapped = mappedFields(deps.definition);
    this.login = new AccountLogin<CardataTokens>({
      clock: deps.clock,
      renewBeforeMs: deps.settings.renewBeforeMs,
      refresh: (refreshToken, binding) => refreshTokens(deps.endpoints, String(binding['clientId']), refreshToken, String(binding['gcid']), deps.clock.now()),
      isRefused: (err) => err instanceof CardataLoginRefused,
      noLogin: () => new CardataLoginRefused('no login', 'the car has no BMW login on this hub'),
      kept: (tokens) => ({ gcid: tokens.gcid }),
      saveBindings: (bindings) => deps.saveBindings(bindings),
    });
  }

  get size(): number {
    return this.login.size;
  }

  bindingOf(id: string): DriverBinding | undefined {
    return this.login.car(id)?.driver ?? undefined;
  }

  status(id: string): StreamStatus | undefined {
    if (!this.login.car(id)) return undefined;
    return this.joining.has(id) ? { state: 'connecting' } : this.state;
  }

  add(device: DeviceRecord): void {
    const newLogin = this.login.add(device);
    this.latest.set(device.id, new Map());
    const client = this.client;
    if (this.running && !newLogin && client && this.tokens) this.joining.add(device.id);
    this.deps.onStatus?.(device.id, this.status(device.id)!);
    if (!this.running) return;
    // A newer login (a car connected again) replaces the account's: the stream starts over with it.
    if (newLogin) return this.restart();
    if (client && this.tokens) void this.join(client, this.tokens, device);
  }

  remove(id: string): void {
    const device = this.login.car(id);
    if (!device) return;
    this.login.remove(id);
    this.latest.delete(id);
    this.snapshotTried.delete(id);
    this.joining.delete(id);
    this.deps.onStatus?.(id, { state: 'stopped' });
    const vin = device.driver?.['vin'];
    if (this.client && this.tokens && !this.login.devices().some((car) => car.driver?.['vin'] === vin)) {
      void this.client.unsubscribeAsync(`${this.tokens.gcid}/${String(vin)}`).catch(() => undefined);
    }
  }

  start(): void {
    this.running = true;
    this.stopped = false;
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.running = false;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.endAsync(true);
    this.setStatus({ state: 'stopped' });
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const epoch = ++this.epoch;
    clearTimeout(this.timer);
    this.setStatus({ state: 'connecting' });
    try {
      const tokens = await this.login.fresh();
      if (this.stopped || epoch !== this.epoch) return;
      this.tokens = tokens;
      const url = new URL(this.deps.endpoints.streamUrl);
      const client = await connectMqtt({
        url: url.toString(), clientId: tokens.gcid, username: tokens.gcid, password: tokens.idToken,
        // BMW's broker speaks TLS 1.3 only (kvanbiesen/bmw-cardata-ha @21802199 stream.py enforces it).
        ca: this.deps.endpoints.ca, reconnect: false, minTlsVersion: 'TLSv1.3',
      }, this.deps.log);
      if (this.stopped || epoch !== this.epoch) {
        await client.endAsync(true);
        return;
      }
      this.client = client;
      let takenOver = false;
      client.on('disconnect', (packet) => { if (packet.reasonCode === SESSION_TAKEN_OVER) takenOver = true; });
      client.on('message', (_topic, payload) => this.onMessage(payload));
      client.on('close', () => {
        if (this.client !== client || this.stopped) return;
        this.client = undefined;
        void client.endAsync(true);
        // The broker's word decides, never the timing: a loss right after a renewal is a loss.
        if (takenOver) this.takenOver();
        else this.retry('the stream connection was lost');
      });
      // Every car of the account on the one connection; a car added from now on joins it (add).
      const topics = [...new Set(this.login.devices().map((car) => `${tokens.gcid}/${String(car.driver?.['vin'])}`))];
      if (topics.length > 0) await client.subscribeAsync(topics, { qos: 1 });
      if (this.client !== client) return;
      this.joining.clear();
      void this.snapshots(tokens);
      this.attempts = 0;
      this.setStatus({ state: 'streaming' });
      this.deps.log.info({ cars: topics.length }, 'BMW CarData stream connected');
      // On the monotonic clock (the login's): a step of the wall clock neither delays the renewal past the expiry nor hurries it.
      this.schedule(Math.max(0, this.login.renewInMs()), () => void this.renew());
    } catch (err) {
      if (epoch !== this.epoch) return;
      if (err instanceof CardataLoginRefused) return this.loginDue(err.message);
      // The broker refused the password: the next attempt asks for new tokens first.
      if (/not authori[sz]ed|bad user/i.test((err as Error).message)) this.login.drop();
      this.retry((err as Error).message);
    }
  }

  /** A car added to the connected stream: its topic, and its snapshot. */
  private async join(client: MqttClient, tokens: CardataTokens, device: DeviceRecord): Promise<void> {
    try {
      await client.subscribeAsync(`${tokens.gcid}/${String(device.driver?.['vin'])}`, { qos: 1 });
      if (this.client === client && this.joining.delete(device.id)) this.deps.onStatus?.(device.id, this.state);
      await this.snapshots(tokens);
    } catch (err) {
      // A connection lost meanwhile is made again with every car's topic.
      this.deps.log.debug({ reason: (err as Error).message }, 'BMW CarData: a car not subscribed yet');
    }
  }

  /** Before the id token runs out: new tokens, and a new connection with the new password. */
  private async renew(): Promise<void> {
    this.login.drop();
    await this.reconnect();
  }

  /** The account's login changed: the stream once more, with the newest login. */
  private restart(): void {
    void this.reconnect();
  }

  private async reconnect(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    // The old connection is gone before the new one comes with the same client id.
    await client?.endAsync(true);
    await this.connect();
  }

  /** The values of the cars not read yet from the REST API, where the stream has not brought a newer one yet. */
  private async snapshots(tokens: CardataTokens): Promise<void> {
    for (const car of this.login.devices()) {
      if (this.snapshotTried.has(car.id)) continue;
      this.snapshotTried.add(car.id);
      await this.snapshot(tokens.accessToken, car);
    }
  }

  private async snapshot(accessToken: string, car: DeviceRecord): Promise<void> {
    try {
      const containerId = await this.containerId(accessToken);
      const values = await telematicSnapshot(this.deps.endpoints, accessToken, String(car.driver?.['vin']), containerId);
      const latest = this.latest.get(car.id);
      if (this.stopped || !latest) return;
      for (const [key, value] of values) if (!latest.has(key)) latest.set(key, value);
      if (values.size > 0) this.deps.report(car.id, vehicleFields(this.deps.definition, latest), this.mapped);
    } catch (err) {
      this.deps.log.warn({ deviceId: car.id, reason: (err as Error).message }, 'no BMW CarData snapshot; the car\'s values come with its next stream message');
    }
  }

  /** The account's container: the one a car's binding keeps, else found or made once and kept in every car's binding. */
  private containerId(accessToken: string): Promise<string> {
    const kept = this.login.shared('containerId');
    if (typeof kept === 'string') return Promise.resolve(kept);
    this.container ??= ensureContainer(this.deps.endpoints, accessToken, [...new Set(this.deps.definition.keys.map((k) => k.key))]).then(
      (containerId) => {
        this.login.share({ containerId });
        return containerId;
      },
      (err: unknown) => {
        this.container = undefined;
        throw err;
      },
    );
    return this.container;
  }

  private onMessage(payload: Buffer): void {
    let message: { vin?: unknown; data?: unknown };
    try {
      message = JSON.parse(payload.toString('utf8')) as typeof message;
    } catch {
      this.deps.log.warn('BMW CarData sent a message that is not JSON; ignored');
      return;
    }
    if (!message.data || typeof message.data !== 'object') return;
    for (const car of this.login.devices()) {
      const latest = this.latest.get(car.id);
      if (message.vin !== car.driver?.['vin'] || !latest) continue;
      for (const [key, entry] of Object.entries(message.data as Record<string, unknown>)) {
        // null or "" is "not available" (evcc, kvb): the car's last known value stays.
        const value = entry && typeof entry === 'object' ? (entry as { value?: unknown }).value : undefined;
        if (value !== undefined && value !== null && value !== '') latest.set(key, value);
      }
      this.deps.report(car.id, vehicleFields(this.deps.definition, latest), this.mapped);
    }
  }

  private retry(reason: string): void {
    if (this.stopped) return;
    const delay = backoffDelay(this.attempts++, this.deps.settings.backoff);
    this.deps.log.warn({ reason, retryInMs: delay }, 'BMW CarData stream not connected; trying again');
    this.setStatus({ state: 'retrying', reason });
    this.schedule(delay, () => void this.connect());
  }

  private takenOver(): void {
    const reason = 'another client (an evcc or Home Assistant on the same BMW account?) took over the CarData stream; '
      + 'BMW allows one per account, so the hub leaves it to that client and tries again later';
    this.deps.log.warn({ retryInMs: this.deps.settings.takenOverRetryMs }, reason);
    this.offline();
    this.setStatus({ state: 'takenOver', reason });
    this.schedule(this.deps.settings.takenOverRetryMs, () => void this.connect());
  }

  private loginDue(reason: string): void {
    this.deps.log.warn({ reason }, 'BMW CarData login refused; the owner has to connect the car again');
    this.offline();
    this.setStatus({ state: 'loginDue', reason });
  }

  private offline(): void {
    for (const car of this.login.devices()) this.deps.reportOnline(car.id, false);
  }

  private schedule(ms: number, run: () => void): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(run, ms);
  }

  private setStatus(status: StreamStatus): void {
    this.state = status;
    for (const car of this.login.devices()) this.deps.onStatus?.(car.id, status);
  }
}
