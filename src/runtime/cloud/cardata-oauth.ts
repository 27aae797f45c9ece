// BMW CarData's login: the OAuth 2.0 device authorization grant with PKCE (RFC 8628, RFC 7636) and
// the refresh of its tokens. Follows BMW's CarData guide as mirrored in kvanbiesen/bmw-cardata-ha
// @21802199 (const.py, cardata_api_documentation.md) and evcc-io/evcc @b29b49e
// vehicle/bmw/cardata/oauth2.go:
// - POST {auth}/gcdm/oauth/device/code (client_id, response_type=device_code, scope, S256 challenge)
//   gives user_code, device_code, interval, expires_in, verification_uri(_complete);
// - POST {auth}/gcdm/oauth/token with grant_type device_code answers authorization_pending or
//   slow_down until the owner has approved, then access_token (REST, 1 h), id_token (the stream's
//   password, 1 h), refresh_token (2 weeks, rotated: every refresh returns a new one) and gcid (the
//   stream's user name and topic prefix);
// - grant_type=refresh_token gives a new set of all three.
// The endpoints are configurable: tests run against src/sim/cloud/cardata-auth-sim.ts.
import { createHash, randomBytes } from 'node:crypto';
import { httpRequest, type HttpAnswer } from '../../transport/http-device.ts';
import { parseJson, targetOf } from './cloud-http.ts';

export const CARDATA_SCOPE = 'authenticate_user openid cardata:api:read cardata:streaming:read';

export interface CardataEndpoints {
  /** https://customer.bmwgroup.com */
  authUrl: string;
  /** https://api-cardata.bmwgroup.com */
  apiUrl: string;
  /** mqtts://customer.streaming-cardata.bmwgroup.com:9000 */
  streamUrl: string;
  /** A CA to trust instead of the public ones (tests). */
  ca?: string;
}

export const BMW_CARDATA_ENDPOINTS: CardataEndpoints = {
  authUrl: 'https://customer.bmwgroup.com',
  apiUrl: 'https://api-cardata.bmwgroup.com',
  streamUrl: 'mqtts://customer.streaming-cardata.bmwgroup.com:9000',
};

export interface CardataTokens {
  accessToken: string;
  idToken: string;
  refreshToken: string;
  gcid: string;
  /** When the access and id tokens run out, epoch ms. */
  expiresAtMs: number;
}

export interface DeviceCodeStart {
  userCode: string;
  deviceCode: string;
  verificationUri: string;
  verificationUriComplete: string | undefined;
  intervalSeconds: number;
  expiresAtMs: number;
  /** Kept by the hub until the token is fetched; never shown. */
  codeVerifier: string;
}

/** BMW refused the login or the refresh (a revoked client id, a lapsed refresh token): a new login is due. */
export class CardataLoginRefused extends Error {
  constructor(readonly code: string, detail: string) {
    super(`BMW refused the login (${code}${detail ? `: ${detail}` : ''}); connect the car again`);
    this.name = 'CardataLoginRefused';
  }
}

/** The owner has not approved the code yet: ask again after `waitSeconds`. */
export class CardataPending extends Error {
  constructor(readonly waitSeconds: number) {
    super('waiting for the owner to approve the code on BMW\'s page');
    this.name = 'CardataPending';
  }
}

const TIMEOUT_MS = 15_000;

export async function startDeviceCode(endpoints: CardataEndpoints, clientId: string, nowMs: number): Promise<DeviceCodeStart> {
  const codeVerifier = randomBytes(48).toString('base64url');
  const challenge = createHash('sha256').update(codeVerifier).digest('base64url');
  const answer = await postForm(endpoints, endpoints.authUrl, '/gcdm/oauth/device/code', {
    client_id: clientId, response_type: 'device_code', scope: CARDATA_SCOPE, code_challenge: challenge, code_challenge_method: 'S256',
  });
  const body = parseJson(answer);
  if (answer.status !== 200 || typeof body['device_code'] !== 'string' || typeof body['user_code'] !== 'string') throw refusal(answer, body);
  return {
    userCode: body['user_code'],
    deviceCode: body['device_code'],
    verificationUri: String(body['verification_uri'] ?? ''),
    verificationUriComplete: typeof body['verification_uri_complete'] === 'string' ? body['verification_uri_complete'] : undefined,
    intervalSeconds: Number(body['interval'] ?? 5),
    expiresAtMs: nowMs + Number(body['expires_in'] ?? 300) * 1000,
    codeVerifier,
  };
}

/** One poll of the token endpoint for a started login: the tokens, or CardataPending, or a refusal. */
export async function pollDeviceCode(endpoints: CardataEndpoints, clientId: string, start: DeviceCodeStart, nowMs: number): Promise<CardataTokens> {
  const answer = await postForm(endpoints, endpoints.authUrl, '/gcdm/oauth/token', {
    client_id: clientId, device_code: start.deviceCode, grant_type: 'urn:ietf:params:oauth:grant-type:device_code', code_verifier: start.codeVerifier,
  });
  const body = parseJson(answer);
  if (body['error'] === 'authorization_pending') throw new CardataPending(start.intervalSeconds);
  if (body['error'] === 'slow_down') throw new CardataPending(start.intervalSeconds + 5);
  return tokensOf(answer, body, nowMs, undefined);
}

/** A new set of tokens; the answer's refresh token replaces the old one, which BMW no longer takes. */
export async function refreshTokens(endpoints: CardataEndpoints, clientId: string, refreshToken: string, gcid: string, nowMs: number): Promise<CardataTokens> {
  const answer = await postForm(endpoints, endpoints.authUrl, '/gcdm/oauth/token', {
    grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId,
  });
  return tokensOf(answer, parseJson(answer), nowMs, gcid);
}

function tokensOf(answer: HttpAnswer, body: Record<string, unknown>, nowMs: number, gcid: string | undefined): CardataTokens {
  const { access_token: accessToken, id_token: idToken, refresh_token: refreshToken } = body;
  const newGcid = typeof body['gcid'] === 'string' ? body['gcid'] : gcid;
  if (answer.status !== 200 || typeof accessToken !== 'string' || typeof idToken !== 'string' || typeof refreshToken !== 'string' || !newGcid) {
    throw refusal(answer, body);
  }
  return { accessToken, idToken, refreshToken, gcid: newGcid, expiresAtMs: nowMs + Number(body['expires_in'] ?? 3600) * 1000 };
}

function refusal(answer: HttpAnswer, body: Record<string, unknown>): Error {
  const code = typeof body['error'] === 'string' ? body['error'] : `HTTP ${answer.status}`;
  // 4xx: BMW said no (invalid_grant for a lapsed or revoked refresh token, invalid_client). A 5xx is
  // BMW's trouble, tried again later, except the fault that invalidates the device code (kvb notes it).
  if (answer.status >= 400 && answer.status < 500) return new CardataLoginRefused(code, String(body['error_description'] ?? ''));
  if (JSON.stringify(body).includes('invalid_access_token')) return new CardataLoginRefused('invalid_access_token', 'start the login again');
  return new Error(`BMW's login service answered ${code}`);
}

async function postForm(endpoints: CardataEndpoints, base: string, path: string, form: Record<string, string>): Promise<HttpAnswer> {
  return httpRequest(targetOf(base, endpoints), {
    method: 'POST', path: new URL(path, base).pathname, timeoutMs: TIMEOUT_MS,
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form).toString(),
  });
}
