// The Volvo Cars API as the hub meets it, over HTTPS: Volvo ID's token endpoint (authorization code
// with PKCE, refresh with rotation), the Energy API v2 state and the Connected Vehicle API v2
// odometer of the owner's cars (one, or more with `moreCars`) and a car's details (Connected Vehicle
// API v2 GET /vehicles/{vin}: {data: {vin, modelYear, descriptions: {model, …}}}, thomasddn/volvo-cars-api
// @27b7c210 api.py), every call checked for its VCC API key (evcc-io/evcc @b29b49e
// vehicle/volvo/connected/; Dielee/volvo2mqtt @f8b6f9cf). The answers are the test's (Home Assistant
// core's fixtures). Faults: an exhausted daily quota, answered as Volvo does, 403 "Out of call volume
// quota. Quota will be replenished in HH:MM:SS" (Dielee/volvo2mqtt #84); a revoked login.
import { createHash, randomBytes } from 'node:crypto';
import { HttpDeviceSim, json, type SimAnswer, type SimRequest } from '../http/http-sim-server.ts';

export interface VolvoApiSimOptions {
  clientId: string;
  clientSecret: string;
  vccApiKey: string;
  vin: string;
  /** The Energy API v2 state answer. */
  energyState: Record<string, unknown>;
  /** The odometer, as the library unwraps it ({odometer: {value, unit, timestamp}}); served in `data`. */
  odometer: Record<string, unknown>;
  /** The car's details as the library unwraps them (Home Assistant's vehicle.json); served in `data`, with `vin`. */
  vehicle?: Record<string, unknown>;
  expiresInSeconds?: number;
  /** Further cars on the same Volvo ID, each with its own answers. */
  moreCars?: { vin: string; energyState: Record<string, unknown>; odometer: Record<string, unknown> }[];
}

export class VolvoApiSim extends HttpDeviceSim {
  validRefreshToken: string;
  refreshes = 0;
  /** Refreshes with a refresh token Volvo no longer takes (one already used, or never handed out). */
  staleRefreshes = 0;
  reads = 0;
  revoked = false;
  /** Set: every read answers the quota's 403 with this time to replenishment (HH:MM:SS). */
  quotaReplenishedIn: string | undefined;
  energyState: Record<string, unknown>;
  /** The owner declines on Volvo ID's login page: the browser is sent back with error=access_denied. */
  loginDeclined = false;
  private readonly accessTokens = new Set<string>();
  private readonly codes = new Map<string, string>();

  constructor(private readonly options: VolvoApiSimOptions) {
    super();
    this.validRefreshToken = `volvo-refresh-${randomBytes(8).toString('hex')}`;
    this.energyState = options.energyState;
  }

  /** The owner logged in on Volvo ID's page with this PKCE challenge: the code the redirect carries. */
  approve(codeChallenge: string): string {
    const code = `code-${randomBytes(6).toString('hex')}`;
    this.codes.set(code, codeChallenge);
    return code;
  }

  protected answer(request: SimRequest): SimAnswer | undefined {
    if (request.path === '/as/token.oauth2' && request.method === 'POST') return this.token(request);
    if (request.method !== 'GET') return undefined;
    if (request.path === '/as/authorization.oauth2') return this.authorize(request.query);
    if (request.headers['vcc-api-key'] !== this.options.vccApiKey) return json({ error: { message: 'invalid vcc-api-key' } }, 401);
    if (!this.accessTokens.has(String(request.headers['authorization']).replace(/^Bearer /, ''))) return json({ error: { message: 'invalid token' } }, 401);
    this.reads++;
    if (this.quotaReplenishedIn) {
      return { status: 403, body: JSON.stringify({ statusCode: 403, message: `Out of call volume quota. Quota will be replenished in ${this.quotaReplenishedIn}.` }) };
    }
    const cars = [{ vin: this.options.vin, energyState: this.energyState, odometer: this.options.odometer }, ...(this.options.moreCars ?? [])];
    if (request.path === '/connected-vehicle/v2/vehicles') return json({ data: cars.map((car) => ({ vin: car.vin })) });
    if (request.path === `/connected-vehicle/v2/vehicles/${this.options.vin}` && this.options.vehicle) return json({ data: { ...this.options.vehicle, vin: this.options.vin } });
    for (const car of cars) {
      if (request.path === `/energy/v2/vehicles/${car.vin}/state`) return json(car.energyState);
      if (request.path === `/connected-vehicle/v2/vehicles/${car.vin}/odometer`) return json({ data: car.odometer });
    }
    return undefined;
  }

  /**
   * Volvo ID's login page as the browser meets it, the owner logging in at once: back to
   * redirect_uri with a code (or error=access_denied when the owner declines) and the state.
   */
  private authorize(query: URLSearchParams): SimAnswer {
    const redirectUri = query.get('redirect_uri');
    if (query.get('client_id') !== this.options.clientId || !redirectUri) return json({ error: 'invalid_client' }, 400);
    if (query.get('response_type') !== 'code' || query.get('code_challenge_method') !== 'S256' || !query.get('code_challenge')) return json({ error: 'invalid_request' }, 400);
    const back = new URL(redirectUri);
    if (this.loginDeclined) back.searchParams.set('error', 'access_denied');
    else back.searchParams.set('code', this.approve(query.get('code_challenge')!));
    back.searchParams.set('state', query.get('state') ?? '');
    return { status: 302, body: '', headers: { location: back.toString() } };
  }

  private token(request: SimRequest): SimAnswer {
    const basic = Buffer.from(`${this.options.clientId}:${this.options.clientSecret}`).toString('base64');
    if (request.headers['authorization'] !== `Basic ${basic}`) return json({ error: 'invalid_client' }, 401);
    const form = new URLSearchParams(request.body);
    if (form.get('grant_type') === 'authorization_code') {
      const challenge = this.codes.get(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      if (!challenge || createHash('sha256').update(verifier).digest('base64url') !== challenge) return json({ error: 'invalid_grant' }, 400);
      this.codes.delete(form.get('code')!);
      return this.tokens();
    }
    if (form.get('grant_type') === 'refresh_token') {
      if (!this.revoked && form.get('refresh_token') !== this.validRefreshToken) this.staleRefreshes++;
      if (this.revoked || form.get('refresh_token') !== this.validRefreshToken) return json({ error: 'invalid_grant' }, 400);
      this.refreshes++;
      return this.tokens();
    }
    return json({ error: 'unsupported_grant_type' }, 400);
  }

  private tokens(): SimAnswer {
    const access = `volvo-access-${randomBytes(8).toString('hex')}`;
    this.accessTokens.clear();
    this.accessTokens.add(access);
    this.validRefreshToken = `volvo-refresh-${randomBytes(8).toString('hex')}`;
    return json({ access_token: access, refresh_token: this.validRefreshToken, token_type: 'Bearer', expires_in: this.options.expiresInSeconds ?? 1799 });
  }
}
