// The Volvo Cars public API as the hub uses it: OAuth 2.0 authorization code with PKCE at Volvo ID
// and the refresh of its tokens (evcc-io/evcc @b29b49e vehicle/volvo/connected/oauth2.go;
// Dielee/volvo2mqtt @f8b6f9cf src/const.py), and the two reads, each with the application's VCC API
// key (`vcc-api-key`): GET /energy/v2/vehicles/{vin}/state and
// GET /connected-vehicle/v2/vehicles/{vin}/odometer. Refresh tokens rotate and lapse after 7 days
// unused (Volvo's documentation as quoted in home-assistant/core #152831). When the application's
// daily quota is used up the API answers 403 "Out of call volume quota. Quota will be replenished in
// HH:MM:SS" (Dielee/volvo2mqtt #84), which is no refused login (home-assistant/core #173571).
import { createHash, randomBytes } from 'node:crypto';
import { httpRequest } from '../../transport/http-device.ts';
import { parseJson, targetOf } from './cloud-http.ts';

export interface VolvoEndpoints {
  /** https://volvoid.eu.volvocars.com */
  authUrl: string;
  /** https://api.volvocars.com */
  apiUrl: string;
  ca?: string;
}

export const VOLVO_ENDPOINTS: VolvoEndpoints = { authUrl: 'https://volvoid.eu.volvocars.com', apiUrl: 'https://api.volvocars.com' };
export const VOLVO_SCOPE = 'openid conve:vehicle_relation conve:odometer_status energy:state:read';

export interface VolvoClient {
  clientId: string;
  clientSecret: string;
  vccApiKey: string;
}

export interface VolvoTokens {
  accessToken: string;
  refreshToken: string;
  expiresAtMs: number;
}

/** Volvo refused the login or the refresh: the owner has to log in again. */
export class VolvoLoginRefused extends Error {
  constructor(detail: string) {
    super(`Volvo refused the login (${detail}); log in to Volvo again to keep reading the car`);
    this.name = 'VolvoLoginRefused';
  }
}

/** The application's daily call quota is used up; `waitMs` until Volvo replenishes it. */
export class VolvoQuotaExhausted extends Error {
  constructor(readonly waitMs: number) {
    super(`the Volvo API's daily call quota is used up; reading resumes in ${Math.ceil(waitMs / 60_000)} min`);
    this.name = 'VolvoQuotaExhausted';
  }
}

const TIMEOUT_MS = 15_000;

/** Where the owner's browser goes to log in, and the verifier the hub keeps for the code's exchange. */
export function authorizeUrl(endpoints: VolvoEndpoints, clientId: string, redirectUri: string, state: string): { url: string; codeVerifier: string } {
  const codeVerifier = randomBytes(48).toString('base64url');
  const url = new URL('/as/authorization.oauth2', endpoints.authUrl);
  url.search = new URLSearchParams({
    response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope: VOLVO_SCOPE, state,
    code_challenge: createHash('sha256').update(codeVerifier).digest('base64url'), code_challenge_method: 'S256',
  }).toString();
  return { url: url.toString(), codeVerifier };
}

export function exchangeCode(endpoints: VolvoEndpoints, client: VolvoClient, code: string, codeVerifier: string, redirectUri: string, nowMs: number): Promise<VolvoTokens> {
  return token(endpoints, client, { grant_type: 'authorization_code', code, code_verifier: codeVerifier, redirect_uri: redirectUri }, nowMs);
}

export function refreshVolvoTokens(endpoints: VolvoEndpoints, client: VolvoClient, refreshToken: string, nowMs: number): Promise<VolvoTokens> {
  return token(endpoints, client, { grant_type: 'refresh_token', refresh_token: refreshToken }, nowMs);
}

async function token(endpoints: VolvoEndpoints, client: VolvoClient, form: Record<string, string>, nowMs: number): Promise<VolvoTokens> {
  const answer = await httpRequest(targetOf(endpoints.authUrl, endpoints), {
    method: 'POST', path: '/as/token.oauth2', timeoutMs: TIMEOUT_MS,
    headers: {
      'content-type': 'application/x-www-form-urlencoded', accept: 'application/json',
      authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams(form).toString(),
  });
  const body = parseJson(answer);
  if (answer.status === 200 && typeof body['access_token'] === 'string' && typeof body['refresh_token'] === 'string') {
    return { accessToken: body['access_token'], refreshToken: body['refresh_token'], expiresAtMs: nowMs + Number(body['expires_in'] ?? 1800) * 1000 };
  }
  if (answer.status >= 400 && answer.status < 500) throw new VolvoLoginRefused(String(body['error'] ?? `HTTP ${answer.status}`));
  throw new Error(`Volvo's login service answered HTTP ${answer.status}`);
}

/** The VINs of the cars on the owner's Volvo ID (Connected Vehicle API v2: {data: [{vin}]}). */
export async function volvoVehicles(endpoints: VolvoEndpoints, client: VolvoClient, accessToken: string): Promise<string[]> {
  const data = (await volvoRead(endpoints, client, accessToken, '/connected-vehicle/v2/vehicles'))['data'];
  if (!Array.isArray(data)) throw new Error('the Volvo API answered the list of cars without a list');
  return data.filter((car): car is { vin: string } => car && typeof car.vin === 'string').map((car) => car.vin);
}

/**
 * The car's model as Volvo describes it (Connected Vehicle API v2 GET /vehicles/{vin}: {data: {vin,
 * modelYear, descriptions: {model, …}, …}}, scope conve:vehicle_relation; thomasddn/volvo-cars-api
 * @27b7c210 api.py async_get_vehicle_details, home-assistant/core's fixtures
 * tests/components/volvo/fixtures/xc40_electric_2024/vehicle.json @9e2a38a5), or null when it names none.
 */
export async function volvoModel(endpoints: VolvoEndpoints, client: VolvoClient, accessToken: string, vin: string): Promise<string | null> {
  const data = (await volvoRead(endpoints, client, accessToken, `/connected-vehicle/v2/vehicles/${encodeURIComponent(vin)}`))['data'];
  const model = data && typeof data === 'object' ? (data as { descriptions?: { model?: unknown } }).descriptions?.model : undefined;
  return typeof model === 'string' && model.trim() !== '' ? model.trim() : null;
}

/** One read of the API; the parsed answer, or the quota, refused-login or other error. */
export async function volvoRead(endpoints: VolvoEndpoints, client: VolvoClient, accessToken: string, path: string): Promise<Record<string, unknown>> {
  const answer = await httpRequest(targetOf(endpoints.apiUrl, endpoints), {
    method: 'GET', path, timeoutMs: TIMEOUT_MS,
    headers: { authorization: `Bearer ${accessToken}`, 'vcc-api-key': client.vccApiKey, accept: 'application/json' },
  });
  if (answer.status === 200) return parseJson(answer);
  const quota = /Out of call volume quota.*?(\d+):(\d{2}):(\d{2})/s.exec(answer.body);
  if (answer.status === 403 && quota) throw new VolvoQuotaExhausted(((Number(quota[1]) * 60 + Number(quota[2])) * 60 + Number(quota[3])) * 1000);
  if (answer.status === 401) throw new VolvoLoginRefused('the access token was refused');
  throw new Error(`the Volvo API answered HTTP ${answer.status} to ${path.replace(/vehicles\/[^/]+/, 'vehicles/…')}`);
}
