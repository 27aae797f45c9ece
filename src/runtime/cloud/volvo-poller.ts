// One Volvo account's reads from the Volvo Cars API, for all its cars: per car the Energy API v2
// state every `stateEveryMs` (Home Assistant's integration reads it every 2 min) and the odometer
// every `odometerEveryMs` (hourly, as Home Assistant does), well under the application's 10,000
// calls a day. Each field has its own status: an ERROR field is not available and keeps the car's
// last value of it. The account's cars share one login (the API application is the owner's, its
// refresh token rotates: account-login.ts): tokens are refreshed once per poll of all cars when the
// access token runs out, and the rotated refresh token is stored in every car's binding at once. An
// exhausted quota (403 "Out of call volume quota") waits until Volvo said it is replenished, without
// touching the login; a refused refresh tells the owner a new login is due and stops asking. A car
// the API does not answer for (not on the account any more, a fault) shows that and is tried again
// at the next poll, the others read on.
import type { DeviceRecord, DriverBinding } from '../../domain/device.ts';
import { monotonicMs } from '../../domain/time.ts';
import { backoffDelay } from '../../transport/mqtt-connection.ts';
import { AccountLogin } from './account-login.ts';
import type { CloudAccountDeps, CloudAccountSession, CloudStatus } from './cloud-session.ts';
import { mappedFields, vehicleFields } from './definition.ts';
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

export interface VolvoPollerDeps extends CloudAccountDeps {
  endpoints: VolvoEndpoints;
  settings: VolvoPollSettings;
}

interface VolvoCar {
  status: CloudStatus;
  /** On the monotonic clock: the odometer's interval is a duration. */
  odometerDueAtMs: number;
  readonly latest: Map<string, unknown>;
  readonly units: Map<string, string>;
}

/** The application's keys of a binding (all cars of an account share them). */
function clientOf(binding: DriverBinding): VolvoClient {
  return { clientId: String(binding['clientId']), clientSecret: String(binding['clientSecret'] ?? ''), vccApiKey: String(binding['vccApiKey']) };
}

export class VolvoPoller implements CloudAccountSession {
  private readonly login: AccountLogin<VolvoTokens>;
  private readonly cars = new Map<string, VolvoCar>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private stopped = false;
  private failures = 0;
  /** A poll is under way; `again`: a car came meanwhile and is read right after it. */
  private polling = false;
  private again = false;
  /** Set while the whole account waits: a new login due, or the quota used up. */
  private halted: 'loginDue' | 'waitingForQuota' | undefined;
  /** Live reads under way for refreshes, per car: refreshes that come meanwhile share the one read. */
  private readonly reading = new Map<string, Promise<void>>();
  private readonly mapped: string[];

  constructor(private readonly deps: VolvoPollerDeps) {
    this.mapped = mappedFields(deps.definition);
    this.login = new AccountLogin<VolvoTokens>({
      clock: deps.clock,
      renewBeforeMs: 60_000,
      refresh: (refreshToken, binding) => refreshVolvoTokens(deps.endpoints, clientOf(binding), refreshToken, deps.clock.now()),
      isRefused: (err) => err instanceof VolvoLoginRefused,
      noLogin: () => new VolvoLoginRefused('the car has no Volvo login on this hub'),
      // The keys that went with the login in use are the ones every car reads with.
      kept: (_tokens, binding) => ({ clientSecret: binding['clientSecret'], vccApiKey: binding['vccApiKey'] }),
      saveBindings: (bindings) => deps.saveBindings(bindings),
    });
  }

  get size(): number {
    return this.login.size;
  }

  bindingOf(id: string): DriverBinding | undefined {
    return this.login.car(id)?.driver ?? undefined;
  }

  status(id: string): CloudStatus | undefined {
    return this.cars.get(id)?.status;
  }

  add(device: DeviceRecord): void {
    const newLogin = this.login.add(device);
    const car: VolvoCar = { status: { state: 'connecting' }, odometerDueAtMs: 0, latest: new Map(), units: new Map() };
    this.cars.set(device.id, car);
    this.setStatus(device.id, car.status);
    if (!this.running) return;
    // A newer login (a car connected again) ends a wait for one; a car joining an account that waits
    // for its quota waits with it.
    if (newLogin && this.halted === 'loginDue') this.halted = undefined;
    if (this.halted) {
      const waiting = [...this.cars.values()].find((c) => c.status.state === this.halted)?.status;
      if (waiting) this.setStatus(device.id, waiting);
      return;
    }
    this.pollNow();
  }

  remove(id: string): void {
    if (!this.cars.delete(id)) return;
    this.login.remove(id);
    this.deps.onStatus?.(id, { state: 'stopped' });
  }

  start(): void {
    this.running = true;
    this.stopped = false;
    this.pollNow();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.running = false;
    clearTimeout(this.timer);
    for (const id of this.cars.keys()) this.setStatus(id, { state: 'stopped' });
  }

  /**
   * A refresh's live read of one car: one state call (and the odometer when due), from the same
   * 10,000 calls a day as the polls (about 800 a day for a car polled every 2 minutes, so a partner's
   * refreshes have the rest). A spent quota is Volvo's 403, which halts the account's reads as a
   * poll's does; it, a new login due, or a car Volvo does not answer for is thrown as the reason.
   */
  readNow(id: string): Promise<void> {
    const running = this.reading.get(id);
    if (running) return running;
    const read = this.readOne(id).finally(() => this.reading.delete(id));
    this.reading.set(id, read);
    return read;
  }

  private async readOne(id: string): Promise<void> {
    const car = this.cars.get(id);
    const device = this.login.car(id);
    if (!car || !device || this.stopped) throw new Error('the car is not read by this hub now');
    if (this.halted) throw new Error(this.haltedReason());
    let tokens: VolvoTokens;
    try {
      tokens = await this.login.fresh();
    } catch (err) {
      if (err instanceof VolvoLoginRefused && !this.stopped) this.loginDue(err.message);
      throw err;
    }
    try {
      await this.readCar(device, car, tokens);
    } catch (err) {
      if (this.stopped) throw err;
      if (err instanceof VolvoQuotaExhausted) {
        this.waitForQuota(err);
        throw new Error(this.haltedReason());
      }
      // A refused access token: the next read takes new tokens.
      if (err instanceof VolvoLoginRefused) this.login.drop();
      throw err;
    }
  }

  /** Why the account is not read, as its cars' status says it. */
  private haltedReason(): string {
    const waiting = [...this.cars.values()].find((c) => c.status.state === this.halted)?.status;
    return waiting && 'reason' in waiting ? waiting.reason : `the Volvo account is not read (${this.halted})`;
  }

  private pollNow(): void {
    if (this.polling) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  private async poll(): Promise<void> {
    if (this.stopped) return;
    this.polling = true;
    this.halted = undefined;
    try {
      await this.readAll();
    } finally {
      this.polling = false;
      if (this.again && !this.stopped && !this.halted) this.schedule(0);
      this.again = false;
    }
  }

  /** One login for all the account's cars, then each car's reads; a car's own fault is its own. */
  private async readAll(): Promise<void> {
    let tokens: VolvoTokens;
    try {
      tokens = await this.login.fresh();
    } catch (err) {
      if (this.stopped) return;
      if (err instanceof VolvoLoginRefused) return this.loginDue(err.message);
      return this.retry((err as Error).message);
    }
    let read = 0;
    let fault: string | undefined;
    for (const device of this.login.devices()) {
      const car = this.cars.get(device.id);
      if (this.stopped) return;
      if (!car) continue;
      try {
        await this.readCar(device, car, tokens);
        read++;
      } catch (err) {
        if (this.stopped) return;
        if (err instanceof VolvoQuotaExhausted) return this.waitForQuota(err);
        if (err instanceof VolvoLoginRefused) {
          // The access token was refused: the next try takes new tokens (a refused refresh is final).
          this.login.drop();
          return this.retry(err.message);
        }
        fault = (err as Error).message;
        this.deps.log.warn({ deviceId: device.id, reason: fault }, 'Volvo API did not answer for the car; trying again at the next read');
        if (this.cars.has(device.id)) this.setStatus(device.id, { state: 'retrying', reason: fault });
      }
    }
    if (this.stopped) return;
    if (read === 0 && fault !== undefined) return this.retry(fault, false);
    this.failures = 0;
    this.schedule(this.deps.settings.stateEveryMs);
  }

  private async readCar(device: DeviceRecord, car: VolvoCar, tokens: VolvoTokens): Promise<void> {
    const client = clientOf(device.driver!);
    const vin = encodeURIComponent(String(device.driver!['vin']));
    this.take(car, await volvoRead(this.deps.endpoints, client, tokens.accessToken, `/energy/v2/vehicles/${vin}/state`));
    if (monotonicMs(this.deps.clock) >= car.odometerDueAtMs) {
      // Wrapped in `data` by the API (evcc types.go OdometerState.Data.Odometer).
      const answer = await volvoRead(this.deps.endpoints, client, tokens.accessToken, `/connected-vehicle/v2/vehicles/${vin}/odometer`);
      this.take(car, (answer['data'] ?? answer) as Record<string, unknown>);
      car.odometerDueAtMs = monotonicMs(this.deps.clock) + this.deps.settings.odometerEveryMs;
    }
    if (this.stopped || !this.cars.has(device.id)) return;
    // IDLE is "not charging" (STOPPED); an unplugged car is UNPLUGGED (vehicleFields).
    const fields = vehicleFields(this.deps.definition, car.latest, car.units);
    this.deps.report(device.id, fields, this.mapped);
    this.setStatus(device.id, { state: 'streaming' });
  }

  /** Fields of an answer: each `{status: "OK", value, unit?}` is the car's latest; an ERROR one is skipped. */
  private take(car: VolvoCar, answer: Record<string, unknown>): void {
    for (const [key, entry] of Object.entries(answer)) {
      if (!entry || typeof entry !== 'object') continue;
      const field = entry as { status?: unknown; value?: unknown; unit?: unknown };
      if (field.status !== undefined && field.status !== 'OK') continue;
      if (field.value === undefined || field.value === null) continue;
      car.latest.set(key, field.value);
      if (typeof field.unit === 'string') car.units.set(key, field.unit);
    }
  }

  private waitForQuota(err: VolvoQuotaExhausted): void {
    this.deps.log.warn({ waitMs: err.waitMs }, err.message);
    this.halted = 'waitingForQuota';
    this.setAll({ state: 'waitingForQuota', reason: err.message, untilMs: this.deps.clock.now() + err.waitMs });
    this.schedule(err.waitMs);
  }

  /** The account not read (its login service or API not reached): every car shows why, unless `all` is false (each car's own reason is shown). */
  private retry(reason: string, all = true): void {
    const delay = backoffDelay(this.failures++, this.deps.settings.backoff);
    this.deps.log.warn({ reason, retryInMs: delay }, 'Volvo API not read; trying again');
    if (all) this.setAll({ state: 'retrying', reason });
    this.schedule(delay);
  }

  private loginDue(reason: string): void {
    this.deps.log.warn({ reason }, 'Volvo login refused; the owner has to log in again');
    this.halted = 'loginDue';
    for (const id of this.cars.keys()) this.deps.reportOnline(id, false);
    this.setAll({ state: 'loginDue', reason });
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.poll(), ms);
  }

  private setAll(status: CloudStatus): void {
    for (const id of this.cars.keys()) this.setStatus(id, status);
  }

  private setStatus(id: string, status: CloudStatus): void {
    const car = this.cars.get(id);
    if (car) car.status = status;
    this.deps.onStatus?.(id, status);
  }
}
