// The cloud family's side of the vehicle connect page (../vehicle-connector.ts): the makers' logins,
// run for one connect session at a time, and the cars each login finds.
// - BMW and MINI (BMW CarData): the device authorization grant (RFC 8628, cardata-oauth.ts). begin()
//   asks BMW for a code the owner enters on BMW's page, then the token endpoint is polled in the
//   background every `interval` seconds (5 s more after each slow_down, RFC 8628 §3.5) until the
//   owner approves, declines, or the code runs out. With the tokens, the account's primary cars
//   (one REST call) and each car's model from its basic data (one call per car, none beyond three
//   cars: BMW allows 50 REST calls a day, and the car's session needs some of them).
// - Volvo: the authorization code grant with PKCE at Volvo ID (volvo-api.ts). begin() gives the
//   URL the browser goes to; Volvo ID sends it back to the hub's callback with the `state` made
//   here and a code, which is exchanged for tokens; then the account's cars and each one's model.
// Logins live in memory only, keyed by the connect session. A waiting Volvo login is forgotten 30
// minutes after it began, a BMW one fails when its code runs out; a finished login (the cars, or
// why it failed) is kept 30 minutes for the page. Tokens, codes, secrets and session keys are never
// logged: only the vendor and the outcome.
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../log.ts';
import type { DriverBinding } from '../../domain/device.ts';
import { monotonicMs, type Clock } from '../../domain/time.ts';
import type { PairingForm } from '../devices/pairing-prober.ts';
import {
  VehicleLoginFailed, type ConnectableCar, type VehicleConnector, type VehicleLoginError, type VehicleLoginStart, type VehicleLoginState,
} from '../devices/vehicle-connector.ts';
import { CardataLoginRefused, CardataPending, pollDeviceCode, startDeviceCode, type CardataTokens, type DeviceCodeStart } from './cardata-oauth.ts';
import { CardataRestRefused, primaryVehicles, vehicleModel } from './cardata-rest.ts';
import type { CloudEndpoints } from './cloud-runtime.ts';
import type { CloudDefinition } from './definition.ts';
import { authorizeUrl, exchangeCode, volvoModel, volvoVehicles, VolvoLoginRefused, VolvoQuotaExhausted, type VolvoClient } from './volvo-api.ts';

export interface CloudConnectorDeps {
  definitions: readonly CloudDefinition[];
  endpoints: CloudEndpoints;
  clock: Clock;
  log: Logger;
}

/**
 * BMW's CarData client id, as the customer portal makes it: 8-4-4-4-12 characters (BMW's CarData
 * guide as mirrored in kvanbiesen/bmw-cardata-ha @21802199 BMWDocumentationPt1 §2.3, whose example
 * id is masked with letters beyond hex, and config_flow.py, which takes hex UUIDs only).
 */
const CARDATA_FORM: PairingForm = {
  fields: [{ name: 'clientId', required: true, pattern: '[0-9A-Za-z]{8}-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}-[0-9A-Za-z]{12}', maxLength: 64 }],
};

/** The Volvo developer portal's application: its VCC API key, client id and secret. Formats are Volvo's to change. */
const VOLVO_FORM: PairingForm = {
  fields: [
    { name: 'vccApiKey', required: true, maxLength: 128, masked: true },
    { name: 'clientId', required: true, maxLength: 128 },
    { name: 'clientSecret', required: true, maxLength: 256, masked: true },
  ],
};

/** How long a finished login (or a Volvo login still waiting for the owner) is kept. */
const KEPT_MS = 30 * 60_000;
/** BMW's basic data is read for at most this many cars (50 REST calls a day per account). */
const MOST_BASIC_DATA_CALLS = 3;

interface LoginBase {
  key: string;
  vendor: string;
  definition: CloudDefinition;
  vin: string | null;
  state: VehicleLoginState;
  /** When (clock ms) the login is forgotten; undefined while a BMW code is being polled. */
  /** On the monotonic clock. */
  forgetAtMs: number | undefined;
  /** Ended, replaced or stopped: whatever is still under way for it is dropped. */
  ended: boolean;
}

interface CardataLogin extends LoginBase {
  protocol: 'bmw-cardata';
  clientId: string;
  start: DeviceCodeStart;
  /** The poll interval in seconds, 5 s longer after each slow_down. */
  intervalSeconds: number;
  /** BMW's token endpoint has answered a poll (pending or otherwise): a code that runs out EXPIRED, not UNREACHABLE. */
  answered: boolean;
  /** The tokens are in; the cars are being read. */
  authorized: boolean;
  timer: NodeJS.Timeout | undefined;
  /** When BMW's code runs out, on the monotonic clock (its expiry date read against the wall clock once, as it came). */
  codeEndsAtMono: number;
}

interface VolvoLogin extends LoginBase {
  protocol: 'volvo';
  client: VolvoClient;
  codeVerifier: string;
  callbackUrl: string;
  oauthState: string;
}

type Login = CardataLogin | VolvoLogin;

export class CloudConnector implements VehicleConnector {
  private readonly vendors = new Map<string, { definition: CloudDefinition; form: PairingForm }>();
  private readonly logins = new Map<string, Login>();
  /** Volvo's `state` → the login it belongs to; removed when used (single-use). */
  private readonly byState = new Map<string, VolvoLogin>();
  /** Per session key, the latest begin(): one overtaken while the maker answered is dropped. */
  private readonly begun = new Map<string, number>();
  private begins = 0;
  private readonly log: Logger;
  /** Every change of a login's state (tests; the page may listen). */
  onProgress: ((key: string, state: VehicleLoginState) => void) | undefined;

  constructor(private readonly deps: CloudConnectorDeps) {
    this.log = deps.log.child({ part: 'cloud-connector' });
    for (const definition of deps.definitions) {
      const form = definition.protocol === 'volvo' ? VOLVO_FORM : CARDATA_FORM;
      for (const vendor of definition.vendors) this.vendors.set(vendor, { definition, form });
    }
  }

  forms(): ReadonlyMap<string, PairingForm> {
    return new Map([...this.vendors].map(([vendor, { form }]) => [vendor, form]));
  }

  async begin(key: string, login: { vendor: string; fields: Record<string, string>; callbackUrl: string; vin: string | null }): Promise<VehicleLoginStart> {
    const vendor = this.vendors.get(login.vendor);
    if (!vendor) throw new RangeError(`${login.vendor} is not connected through a maker's cloud`);
    this.sweep();
    this.end(key);
    const generation = ++this.begins;
    this.begun.set(key, generation);
    const base = { key, vendor: login.vendor, definition: vendor.definition, vin: login.vin?.toUpperCase() ?? null, forgetAtMs: undefined, ended: false };
    if (vendor.definition.protocol === 'volvo') {
      const client = { clientId: login.fields['clientId'] ?? '', clientSecret: login.fields['clientSecret'] ?? '', vccApiKey: login.fields['vccApiKey'] ?? '' };
      // The state ties Volvo's redirect to this login; random, so that it tells nothing of the session.
      const oauthState = randomBytes(24).toString('base64url');
      const { url, codeVerifier } = authorizeUrl(this.deps.endpoints.volvo, client.clientId, login.callbackUrl, oauthState);
      const start: VehicleLoginStart = { kind: 'redirect', url };
      const record: VolvoLogin = {
        ...base, protocol: 'volvo', client, codeVerifier, callbackUrl: login.callbackUrl, oauthState,
        state: { state: 'waiting', start }, forgetAtMs: this.mono() + KEPT_MS,
      };
      this.logins.set(key, record);
      this.byState.set(oauthState, record);
      this.log.info({ vendor: login.vendor }, 'login begun at Volvo ID');
      this.onProgress?.(key, record.state);
      return start;
    }

    const clientId = login.fields['clientId'] ?? '';
    let code: DeviceCodeStart;
    try {
      code = await startDeviceCode(this.deps.endpoints.bmwCardata, clientId, this.deps.clock.now());
    } catch (err) {
      const outcome: VehicleLoginError = err instanceof CardataLoginRefused ? 'REFUSED' : 'UNREACHABLE';
      this.log.info({ vendor: login.vendor, outcome }, 'BMW did not give a login code');
      throw new VehicleLoginFailed(outcome, outcome === 'REFUSED' ? 'BMW refused the client id' : 'BMW\'s login service did not answer');
    }
    // end() or another begin() for the session while BMW answered: this code is nobody's.
    if (this.begun.get(key) !== generation) throw new VehicleLoginFailed('DECLINED', 'another login replaced this one');
    const start: VehicleLoginStart = {
      kind: 'deviceCode', userCode: code.userCode, verificationUri: code.verificationUri,
      verificationUriComplete: code.verificationUriComplete, expiresAtMs: code.expiresAtMs,
    };
    const record: CardataLogin = {
      ...base, protocol: 'bmw-cardata', clientId, start: code, intervalSeconds: code.intervalSeconds,
      answered: false, authorized: false, timer: undefined, state: { state: 'waiting', start },
      codeEndsAtMono: this.mono() + (code.expiresAtMs - this.deps.clock.now()),
    };
    this.logins.set(key, record);
    this.log.info({ vendor: login.vendor }, 'login begun: the owner enters the code on BMW\'s page');
    this.onProgress?.(key, record.state);
    this.schedulePoll(record);
    return start;
  }

  progress(key: string): VehicleLoginState {
    const login = this.logins.get(key);
    // A code past its time fails now, whether or not its last poll has run yet.
    if (login?.protocol === 'bmw-cardata' && this.codeRanOut(login)) this.concludeExpired(login);
    this.sweep();
    return this.logins.get(key)?.state ?? { state: 'none' };
  }

  async callback(query: URLSearchParams, key?: string): Promise<string | undefined> {
    this.sweep();
    const oauthState = query.get('state');
    const login = oauthState ? this.byState.get(oauthState) : undefined;
    if (!login || login.ended || login.state.state !== 'waiting') return undefined;
    if (key !== undefined && login.key !== key) return undefined;
    this.byState.delete(login.oauthState);
    const code = query.get('code');
    // Volvo ID sends the owner who declines back with error=access_denied; any other error, or
    // neither error nor code, is a login the owner did not finish either.
    if (query.get('error') !== null || !code) {
      this.conclude(login, { state: 'failed', error: 'DECLINED' });
      return login.key;
    }
    const endpoints = this.deps.endpoints.volvo;
    let accessToken: string;
    let refreshToken: string;
    try {
      ({ accessToken, refreshToken } = await exchangeCode(endpoints, login.client, code, login.codeVerifier, login.callbackUrl, this.deps.clock.now()));
    } catch (err) {
      this.conclude(login, { state: 'failed', error: err instanceof VolvoLoginRefused ? 'REFUSED' : 'UNREACHABLE' });
      return login.key;
    }
    let vins: string[];
    try {
      vins = await volvoVehicles(endpoints, login.client, accessToken);
    } catch (err) {
      const error = err instanceof VolvoQuotaExhausted ? 'QUOTA' : err instanceof VolvoLoginRefused ? 'REFUSED' : 'UNREACHABLE';
      this.conclude(login, { state: 'failed', error });
      return login.key;
    }
    const wanted = this.wanted(login, vins);
    if (wanted.length === 0) {
      this.conclude(login, { state: 'failed', error: 'NO_CAR' });
      return login.key;
    }
    // The model is a courtesy: a car whose details Volvo does not give is still connectable.
    const models = await Promise.all(wanted.map((vin) => volvoModel(endpoints, login.client, accessToken, vin).catch(() => null)));
    const { clientId, clientSecret, vccApiKey } = login.client;
    this.conclude(login, {
      state: 'loggedIn',
      cars: wanted.map((vin, i) => car(vin, models[i] ?? null, { type: login.definition.type, vin, clientId, clientSecret, vccApiKey, refreshToken })),
    });
    return login.key;
  }

  end(key: string): void {
    this.begun.delete(key);
    const login = this.logins.get(key);
    if (!login) return;
    login.ended = true;
    if (login.protocol === 'bmw-cardata') clearTimeout(login.timer);
    else this.byState.delete(login.oauthState);
    this.logins.delete(key);
  }

  stop(): void {
    for (const key of [...this.logins.keys()]) this.end(key);
    this.begun.clear();
  }

  /** One poll of BMW's token endpoint after the interval, or at the code's end if that comes first. */
  private schedulePoll(login: CardataLogin): void {
    clearTimeout(login.timer);
    const untilExpiryMs = Math.max(0, login.codeEndsAtMono - this.mono());
    login.timer = setTimeout(() => void this.poll(login), Math.min(login.intervalSeconds * 1000, untilExpiryMs));
  }

  private async poll(login: CardataLogin): Promise<void> {
    login.timer = undefined;
    if (login.ended) return;
    if (this.codeRanOut(login)) return this.concludeExpired(login);
    let tokens: CardataTokens;
    try {
      tokens = await pollDeviceCode(this.deps.endpoints.bmwCardata, login.clientId, { ...login.start, intervalSeconds: login.intervalSeconds }, this.deps.clock.now());
    } catch (err) {
      if (login.ended || login.state.state !== 'waiting') return;
      if (err instanceof CardataPending) {
        login.answered = true;
        login.intervalSeconds = err.waitSeconds;
      } else if (err instanceof CardataLoginRefused) {
        return this.conclude(login, { state: 'failed', error: cardataRefusal(err.code) });
      } else {
        // Network trouble or BMW's own fault: asked again until the code runs out.
        this.log.debug({ vendor: login.vendor, reason: (err as Error).message }, 'BMW\'s token endpoint did not answer; polling on');
      }
      return this.schedulePoll(login);
    }
    if (login.ended || login.state.state !== 'waiting') return;
    login.answered = true;
    login.authorized = true;
    await this.cardataCars(login, tokens);
  }

  private async cardataCars(login: CardataLogin, tokens: CardataTokens): Promise<void> {
    const endpoints = this.deps.endpoints.bmwCardata;
    let vins: string[];
    try {
      vins = await primaryVehicles(endpoints, tokens.accessToken);
    } catch (err) {
      return this.conclude(login, { state: 'failed', error: cardataRestFailure(err) });
    }
    const wanted = this.wanted(login, vins);
    if (wanted.length === 0) return this.conclude(login, { state: 'failed', error: 'NO_CAR' });
    const models = wanted.length <= MOST_BASIC_DATA_CALLS
      ? await Promise.all(wanted.map((vin) => vehicleModel(endpoints, tokens.accessToken, vin).catch(() => null)))
      : wanted.map(() => null);
    this.conclude(login, {
      state: 'loggedIn',
      cars: wanted.map((vin, i) => car(vin, models[i] ?? null, {
        type: login.definition.type, clientId: login.clientId, vin, gcid: tokens.gcid, refreshToken: tokens.refreshToken,
      })),
    });
  }

  /** The account's cars this session is for: the session's VIN only, when it names one. */
  private wanted(login: Login, vins: readonly string[]): string[] {
    return login.vin === null ? [...vins] : vins.filter((vin) => vin.toUpperCase() === login.vin);
  }

  private codeRanOut(login: CardataLogin): boolean {
    return login.state.state === 'waiting' && !login.authorized && this.mono() >= login.codeEndsAtMono;
  }

  /** BMW's code ran out: EXPIRED, or UNREACHABLE when BMW's token endpoint never answered a poll. */
  private concludeExpired(login: CardataLogin): void {
    this.conclude(login, { state: 'failed', error: login.answered ? 'EXPIRED' : 'UNREACHABLE' });
  }

  private conclude(login: Login, state: Extract<VehicleLoginState, { state: 'loggedIn' | 'failed' }>): void {
    if (login.ended) return;
    login.state = state;
    login.forgetAtMs = this.mono() + KEPT_MS;
    if (login.protocol === 'bmw-cardata') {
      clearTimeout(login.timer);
      login.timer = undefined;
    } else {
      this.byState.delete(login.oauthState);
    }
    if (state.state === 'loggedIn') this.log.info({ vendor: login.vendor, outcome: 'loggedIn', cars: state.cars.length }, 'logged in to the maker\'s cloud');
    else this.log.info({ vendor: login.vendor, outcome: state.error }, 'the maker\'s login failed');
    this.onProgress?.(login.key, state);
  }

  /** Monotonic ms: how long a login is kept, and how long BMW's code lasts, are durations. */
  private mono(): number {
    return monotonicMs(this.deps.clock);
  }

  /** Forgets the logins whose time is up. */
  private sweep(): void {
    const now = this.mono();
    for (const [key, login] of this.logins) {
      if (login.forgetAtMs !== undefined && now >= login.forgetAtMs) this.end(key);
    }
  }
}

function car(vin: string, model: string | null, driver: DriverBinding): ConnectableCar {
  return { vin, model, driver };
}

/**
 * A refused poll, as the owner can act on it (RFC 8628 §3.5): access_denied is the owner's "no",
 * expired_token a code that ran out. BMW's gateway fault invalidating the device code
 * (invalid_access_token, which kvanbiesen/bmw-cardata-ha @21802199 device_flow.py notes) asks for
 * a new code, as an expired one does. Anything else (invalid_client, invalid_grant) is a refusal.
 */
function cardataRefusal(code: string): VehicleLoginError {
  if (code === 'access_denied') return 'DECLINED';
  if (code === 'expired_token' || code === 'invalid_access_token') return 'EXPIRED';
  return 'REFUSED';
}

/** The list of cars failed: the day's REST calls are used up (CU-429), BMW refused the token, or no answer. */
function cardataRestFailure(err: unknown): VehicleLoginError {
  if (!(err instanceof CardataRestRefused)) return 'UNREACHABLE';
  if (err.quotaUsedUp) return 'QUOTA';
  return err.status === 401 || err.status === 403 ? 'REFUSED' : 'UNREACHABLE';
}
