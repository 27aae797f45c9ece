// One Volvo's reads from the Volvo Cars API: the Energy API v2 state every `stateEveryMs` (Home
// Assistant's integration reads it every 2 min) and the odometer every `odometerEveryMs` (hourly, as
// Home Assistant does), well under the application's 10,000 calls a day. Each field has its own
// status: an ERROR field is not available and keeps the car's last value of it. Tokens are refreshed
// when the access token runs out and the rotated refresh token is stored at once. An exhausted quota
// (403 "Out of call volume quota") waits until Volvo said it is replenished, without touching the
// login; a refused refresh tells the owner a new login is due and stops asking.
import type { Logger } from '../../log.ts';
import type { DeviceRecord, DriverBinding } from '../../domain/device.ts';
import type { Clock } from '../../domain/time.ts';
import { backoffDelay } from '../../transport/mqtt-connection.ts';
import type { CloudSession, CloudStatus } from './cloud-session.ts';
import { mappedFields, vehicleFields, type CloudDefinition } from './definition.ts';
import { refreshVolvoTokens, volvoRead, VolvoLoginRefused, VolvoQuotaExhausted, type VolvoClient, type VolvoEndpoints, type VolvoTokens } from './volvo-api.ts';

export interface VolvoPollSettings {
  stateEveryMs: number;
  odometerEveryMs: number;
  backoff: { initialMs: number; maxMs: number };
}

export const DEFAULT_VOLVO_POLL_SETTINGS: VolvoPollSettings = {
  stateEveryMs: 2 * 60_000,
  odometerEveryMs: 60 * 60_000,
  backoff: { initialMs: 5000, maxMs: 15 * 60_000 },
};

export interface VolvoPollerDeps {
  device: DeviceRecord;
  definition: CloudDefinition;
  endpoints: VolvoEndpoints;
  settings: VolvoPollSettings;
  clock: Clock;
  log: Logger;
  saveBinding(binding: DriverBinding): void;
  report(values: Record<string, unknown>, mapped: readonly string[]): void;
  reportOnline(isOnline: boolean): void;
  onStatus?(status: CloudStatus): void;
}

export class VolvoPoller implements CloudSession {
  status: CloudStatus = { state: 'connecting' };
  private tokens: VolvoTokens | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private failures = 0;
  private odometerDueAtMs = 0;
  private readonly latest = new Map<string, unknown>();
  private readonly units = new Map<string, string>();
  private readonly mapped: string[];

  constructor(private readonly deps: VolvoPollerDeps) {
    this.mapped = mappedFields(deps.definition);
  }

  get device(): DeviceRecord {
    return this.deps.device;
  }

  start(): void {
    this.stopped = false;
    void this.poll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.setStatus({ state: 'stopped' });
  }

  private binding(): DriverBinding {
    return this.deps.device.driver!;
  }

  private client(): VolvoClient {
    const b = this.binding();
    return { clientId: String(b['clientId']), clientSecret: String(b['clientSecret'] ?? ''), vccApiKey: String(b['vccApiKey']) };
  }

  private async poll(): Promise<void> {
    if (this.stopped) return;
    const vin = encodeURIComponent(String(this.binding()['vin']));
    try {
      const tokens = await this.freshTokens();
      this.take(await volvoRead(this.deps.endpoints, this.client(), tokens.accessToken, `/energy/v2/vehicles/${vin}/state`));
      if (this.deps.clock.now() >= this.odometerDueAtMs) {
        // Wrapped in `data` by the API (evcc types.go OdometerState.Data.Odometer).
        const answer = await volvoRead(this.deps.endpoints, this.client(), tokens.accessToken, `/connected-vehicle/v2/vehicles/${vin}/odometer`);
        this.take((answer['data'] ?? answer) as Record<string, unknown>);
        this.odometerDueAtMs = this.deps.clock.now() + this.deps.settings.odometerEveryMs;
      }
      if (this.stopped) return;
      this.failures = 0;
      const fields = vehicleFields(this.deps.definition, this.latest, this.units);
      // IDLE is "not charging" (STOPPED); a car that says it is unplugged is UNPLUGGED, whatever its word.
      if (fields['isPlugged'] === false) fields['chargingState'] = 'UNPLUGGED';
      this.deps.report(fields, this.mapped);
      this.setStatus({ state: 'streaming' });
      this.schedule(this.deps.settings.stateEveryMs);
    } catch (err) {
      if (this.stopped) return;
      if (err instanceof VolvoQuotaExhausted) return this.waitForQuota(err);
      if (err instanceof VolvoLoginRefused) {
        // A refused access token is tried once with a fresh one; a refused refresh is final.
        if (this.tokens) {
          this.tokens = undefined;
          return this.retry(err.message);
        }
        return this.loginDue(err.message);
      }
      this.retry((err as Error).message);
    }
  }

  /** Fields of an answer: each `{status: "OK", value, unit?}` is the car's latest; an ERROR one is skipped. */
  private take(answer: Record<string, unknown>): void {
    for (const [key, entry] of Object.entries(answer)) {
      if (!entry || typeof entry !== 'object') continue;
      const field = entry as { status?: unknown; value?: unknown; unit?: unknown };
      if (field.status !== undefined && field.status !== 'OK') continue;
      if (field.value === undefined || field.value === null) continue;
      this.latest.set(key, field.value);
      if (typeof field.unit === 'string') this.units.set(key, field.unit);
    }
  }

  private async freshTokens(): Promise<VolvoTokens> {
    const now = this.deps.clock.now();
    if (this.tokens && this.tokens.expiresAtMs - 60_000 > now) return this.tokens;
    const binding = this.binding();
    // A car imported from an export comes without its login (src/domain/export.ts).
    if (typeof binding['refreshToken'] !== 'string') throw new VolvoLoginRefused('the car has no Volvo login on this hub');
    const tokens = await refreshVolvoTokens(this.deps.endpoints, this.client(), String(binding['refreshToken']), now);
    const next = { ...binding, refreshToken: tokens.refreshToken };
    this.deps.saveBinding(next);
    this.deps.device = { ...this.deps.device, driver: next };
    this.tokens = tokens;
    return tokens;
  }

  private waitForQuota(err: VolvoQuotaExhausted): void {
    this.deps.log.warn({ waitMs: err.waitMs }, err.message);
    this.setStatus({ state: 'waitingForQuota', reason: err.message, untilMs: this.deps.clock.now() + err.waitMs });
    this.schedule(err.waitMs);
  }

  private retry(reason: string): void {
    const delay = backoffDelay(this.failures++, this.deps.settings.backoff);
    this.deps.log.warn({ reason, retryInMs: delay }, 'Volvo API not read; trying again');
    this.setStatus({ state: 'retrying', reason });
    this.schedule(delay);
  }

  private loginDue(reason: string): void {
    this.deps.log.warn({ reason }, 'Volvo login refused; the owner has to log in again');
    this.deps.reportOnline(false);
    this.setStatus({ state: 'loginDue', reason });
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.poll(), ms);
  }

  private setStatus(status: CloudStatus): void {
    this.status = status;
    this.deps.onStatus?.(status);
  }
}
