// One car's BMW CarData stream: BMW's MQTT broker over TLS, user name the GCID, password the id
// token, client id the GCID, topic {gcid}/{vin} (kvanbiesen/bmw-cardata-ha @21802199 stream.py;
// evcc-io/evcc @b29b49e vehicle/bmw/cardata/provider.go). Messages are deltas of the documented shape
// {vin, entityId, topic, timestamp, data: {<key>: {timestamp, value, unit?}}}, values often strings;
// they are merged into the car's latest values and the definition maps those onto its fields.
//
// The id token lasts an hour and the broker closes the connection when it runs out, so the session
// refreshes the tokens before that (storing the rotated refresh token each time) and reconnects with
// the new password. BMW allows one stream connection per account (BMW's guide §4.3.1): when another
// client (an evcc or a Home Assistant on the same account) takes it over, the broker disconnects the
// hub (MQTT 5: "session taken over"; else a connection lost right after it was made, twice); the
// session then says so and stays off for `takenOverRetryMs` instead of taking it
// back in a loop. A refused refresh (a lapsed or revoked login) leaves the car offline until the
// owner connects it again.
import type { MqttClient } from 'mqtt';
import type { Logger } from '../../log.ts';
import type { DeviceRecord, DriverBinding } from '../../domain/device.ts';
import type { Clock } from '../../domain/time.ts';
import { backoffDelay, connectMqtt } from '../../transport/mqtt-connection.ts';
import { CardataLoginRefused, refreshTokens, type CardataEndpoints, type CardataTokens } from './cardata-oauth.ts';
import { mappedFields, vehicleFields, type CloudDefinition } from './definition.ts';
import { ensureContainer, telematicSnapshot } from './cardata-rest.ts';
import type { CloudSession, CloudStatus } from './cloud-session.ts';

export interface CardataStreamSettings {
  /** How long before the id token runs out the tokens are renewed. */
  renewBeforeMs: number;
  /** A connection lost this soon after it was made, twice in a row, was taken by another client. */
  takenOverWithinMs: number;
  /** How long the stream is left to the other client that took it over. */
  takenOverRetryMs: number;
  backoff: { initialMs: number; maxMs: number };
}

export const DEFAULT_CARDATA_STREAM_SETTINGS: CardataStreamSettings = {
  renewBeforeMs: 10 * 60_000,
  takenOverWithinMs: 30_000,
  takenOverRetryMs: 60 * 60_000,
  backoff: { initialMs: 1000, maxMs: 60_000 },
};

export type StreamStatus = CloudStatus;

export interface CardataStreamDeps {
  device: DeviceRecord;
  definition: CloudDefinition;
  endpoints: CardataEndpoints;
  settings: CardataStreamSettings;
  clock: Clock;
  log: Logger;
  /** Keeps the rotated refresh token in the device's binding (the only place it lives). */
  saveBinding(binding: DriverBinding): void;
  /** The car's fields (all that the definition maps; the rest of the stored state stays). */
  report(values: Record<string, unknown>, mapped: readonly string[]): void;
  reportOnline(isOnline: boolean): void;
  /** Every change of status (tests, the log). */
  onStatus?(status: StreamStatus): void;
}

/** MQTT 5's DISCONNECT reason "Session taken over": another client connected with the GCID. */
const SESSION_TAKEN_OVER = 0x8e;

export class CardataStream implements CloudSession {
  status: StreamStatus = { state: 'connecting' };
  private client: MqttClient | undefined;
  private tokens: CardataTokens | undefined;
  private timer: NodeJS.Timeout | undefined;
  private attempts = 0;
  /** The REST snapshot is tried once per session, never again (50 REST calls a day). */
  private snapshotTried = false;
  /** Connections in a row lost within takenOverWithinMs of being made. */
  private shortLived = 0;
  private stopped = false;
  private readonly latest = new Map<string, unknown>();
  private readonly mapped: string[];

  constructor(private readonly deps: CardataStreamDeps) {
    this.mapped = mappedFields(deps.definition);
  }

  get device(): DeviceRecord {
    return this.deps.device;
  }

  start(): void {
    this.stopped = false;
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.endAsync(true);
    this.setStatus({ state: 'stopped' });
  }

  private binding(): DriverBinding {
    return this.deps.device.driver!;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    this.setStatus({ state: 'connecting' });
    try {
      const tokens = await this.freshTokens();
      const vin = String(this.binding()['vin']);
      const url = new URL(this.deps.endpoints.streamUrl);
      const client = await connectMqtt({
        url: url.toString(), clientId: tokens.gcid, username: tokens.gcid, password: tokens.idToken,
        ca: this.deps.endpoints.ca, reconnect: false,
      }, this.deps.log);
      if (this.stopped) {
        await client.endAsync(true);
        return;
      }
      this.client = client;
      let takenOver = false;
      client.on('disconnect', (packet) => { if (packet.reasonCode === SESSION_TAKEN_OVER) takenOver = true; });
      const connectedAtMs = this.deps.clock.now();
      client.on('message', (_topic, payload) => this.onMessage(payload));
      client.on('close', () => {
        if (this.client !== client || this.stopped) return;
        this.client = undefined;
        void client.endAsync(true);
        // Brokers that do not say why (mosquitto 2.0 closes the socket) make a takeover look like a
        // lost connection: the hub takes the stream back once, and when the connection it got back is
        // lost again as soon, it is another client's doing.
        this.shortLived = this.deps.clock.now() - connectedAtMs < this.deps.settings.takenOverWithinMs ? this.shortLived + 1 : 0;
        if (takenOver || this.shortLived >= 2) this.takenOver();
        else this.retry('the stream connection was lost');
      });
      await client.subscribeAsync(`${tokens.gcid}/${vin}`, { qos: 1 });
      if (!this.snapshotTried) {
        this.snapshotTried = true;
        void this.snapshot(tokens.accessToken, vin);
      }
      this.attempts = 0;
      this.setStatus({ state: 'streaming' });
      this.deps.log.info({ vin }, 'BMW CarData stream connected');
      this.schedule(Math.max(0, tokens.expiresAtMs - this.deps.settings.renewBeforeMs - this.deps.clock.now()), () => void this.renew());
    } catch (err) {
      if (err instanceof CardataLoginRefused) return this.loginDue(err.message);
      // The broker refused the password: the next attempt asks for new tokens first.
      if (/not authori[sz]ed|bad user/i.test((err as Error).message)) this.tokens = undefined;
      this.retry((err as Error).message);
    }
  }

  /** Before the id token runs out: new tokens, and a new connection with the new password. */
  private async renew(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.tokens = undefined;
    await client?.endAsync(true);
    await this.connect();
  }

  /** The tokens, renewed when they run out within renewBeforeMs; the new refresh token is stored at once. */
  private async freshTokens(): Promise<CardataTokens> {
    const now = this.deps.clock.now();
    if (this.tokens && this.tokens.expiresAtMs - this.deps.settings.renewBeforeMs > now) return this.tokens;
    const binding = this.binding();
    // A car imported from an export comes without its login (src/domain/export.ts).
    if (typeof binding['refreshToken'] !== 'string') throw new CardataLoginRefused('no login', 'the car has no BMW login on this hub');
    const tokens = await refreshTokens(this.deps.endpoints, String(binding['clientId']), String(binding['refreshToken']), String(binding['gcid']), now);
    const next = { ...binding, refreshToken: tokens.refreshToken, gcid: tokens.gcid };
    this.deps.saveBinding(next);
    this.deps.device = { ...this.deps.device, driver: next };
    this.tokens = tokens;
    return tokens;
  }

  /** The car's values from the REST API, where the stream has not brought a newer one yet. */
  private async snapshot(accessToken: string, vin: string): Promise<void> {
    try {
      let containerId = this.binding()['containerId'];
      if (typeof containerId !== 'string') {
        containerId = await ensureContainer(this.deps.endpoints, accessToken, this.deps.definition.keys.map((k) => k.key));
        const next = { ...this.binding(), containerId };
        this.deps.saveBinding(next);
        this.deps.device = { ...this.deps.device, driver: next };
      }
      const values = await telematicSnapshot(this.deps.endpoints, accessToken, vin, containerId as string);
      if (this.stopped) return;
      for (const [key, value] of values) if (!this.latest.has(key)) this.latest.set(key, value);
      if (values.size > 0) this.deps.report(vehicleFields(this.deps.definition, this.latest), this.mapped);
    } catch (err) {
      this.deps.log.warn({ reason: (err as Error).message }, 'no BMW CarData snapshot; the car\'s values come with its next stream message');
    }
  }

  private onMessage(payload: Buffer): void {
    let message: { vin?: unknown; data?: unknown };
    try {
      message = JSON.parse(payload.toString('utf8')) as typeof message;
    } catch {
      this.deps.log.warn('BMW CarData sent a message that is not JSON; ignored');
      return;
    }
    if (message.vin !== this.binding()['vin'] || !message.data || typeof message.data !== 'object') return;
    for (const [key, entry] of Object.entries(message.data as Record<string, unknown>)) {
      // null or "" is "not available" (evcc, kvb): the car's last known value stays.
      const value = entry && typeof entry === 'object' ? (entry as { value?: unknown }).value : undefined;
      if (value !== undefined && value !== null && value !== '') this.latest.set(key, value);
    }
    this.deps.report(vehicleFields(this.deps.definition, this.latest), this.mapped);
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
    this.deps.reportOnline(false);
    this.shortLived = 0;
    this.setStatus({ state: 'takenOver', reason });
    this.schedule(this.deps.settings.takenOverRetryMs, () => void this.connect());
  }

  private loginDue(reason: string): void {
    this.deps.log.warn({ reason }, 'BMW CarData login refused; the owner has to connect the car again');
    this.deps.reportOnline(false);
    this.setStatus({ state: 'loginDue', reason });
  }

  private schedule(ms: number, run: () => void): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(run, ms);
  }

  private setStatus(status: StreamStatus): void {
    this.status = status;
    this.deps.onStatus?.(status);
  }
}
