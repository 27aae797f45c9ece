// BMW's login service and CarData REST API as the hub meets them, over HTTPS (one server for both): the device authorization
// grant with PKCE and the refresh of its tokens, laid out from BMW's CarData guide as mirrored in
// kvanbiesen/bmw-cardata-ha @21802199 (const.py, cardata_api_documentation.md) and evcc-io/evcc
// @b29b49e vehicle/bmw/cardata/oauth2.go, its refusals of a poll as RFC 8628 §3.5 names them
// (access_denied, expired_token). Tokens rotate as BMW's do: every refresh returns a new
// refresh token and the one used is no longer taken (invalid_grant). The id token is the stream's
// password, so a test's broker knows the passwords the sim hands out (`idTokens`).
import { createHash, randomBytes } from 'node:crypto';
import { HttpDeviceSim, json, type SimAnswer, type SimRequest } from '../http/http-sim-server.ts';

export interface CardataAuthSimOptions {
  clientId: string;
  gcid: string;
  /** The id tokens handed out, in turn (the test broker's passwords); the last one repeats. */
  idTokens: string[];
  /** The tokens' lifetime in seconds (BMW: 3600). */
  expiresInSeconds?: number;
  /** The lifetime of a device and user code in seconds (`expires_in` of the device code answer; 300 here). */
  deviceCodeExpiresInSeconds?: number;
}

export class CardataAuthSim extends HttpDeviceSim {
  /** The refresh token BMW takes now; each refresh replaces it. */
  validRefreshToken: string;
  refreshes = 0;
  /** Refreshes with a refresh token BMW no longer takes (one already used, or never handed out). */
  staleRefreshes = 0;
  /** The owner has approved the user code on BMW's page. */
  approved = false;
  /** The owner has declined on BMW's page: a poll answers access_denied (RFC 8628 §3.5). */
  declined = false;
  /** The owner revoked the client id (unsubscribed it from the services): every refresh is refused. */
  revoked = false;
  private issued = 0;
  private readonly accessTokens = new Set<string>();
  /** The account's containers (BMW allows 10) and the car's values the REST API answers with. */
  readonly containers: { containerId: string; name: string; state: string; technicalDescriptors: string[] }[] = [];
  telematicData: Record<string, string | null> = {};
  /** Per VIN, the car's basic data (GET /customers/vehicles/{vin}/basicData: BMW's VehicleDto); another VIN is 404. */
  basicData: Record<string, Record<string, unknown>> = {};
  /** The cars mapped to the account (GET /customers/vehicles/mappings); only PRIMARY ones stream. */
  vehicleMappings: { vin: string; mappingType: 'PRIMARY' | 'SECONDARY' }[] = [];
  /** REST calls made (BMW allows 50 a day); over `restLimit`, CU-429. */
  restCalls = 0;
  restLimit = 50;
  /** Device codes by code; their expiry is a duration from issue, on the monotonic clock. */
  private readonly challenges = new Map<string, { challenge: string; expiresAtMs: number }>();

  constructor(private readonly options: CardataAuthSimOptions) {
    super();
    this.validRefreshToken = `refresh-${randomBytes(8).toString('hex')}`;
  }

  protected answer(request: SimRequest): SimAnswer | undefined {
    if (request.path.startsWith('/customers/')) return this.rest(request);
    if (request.method !== 'POST') return undefined;
    const form = new URLSearchParams(request.body);
    if (form.get('client_id') !== this.options.clientId) return oauthError(401, 'invalid_client', 'unknown client id');
    if (request.path === '/gcdm/oauth/device/code') {
      if (form.get('code_challenge_method') !== 'S256' || !form.get('code_challenge')) return oauthError(400, 'invalid_request', 'PKCE required');
      const deviceCode = `device-${randomBytes(8).toString('hex')}`;
      const expiresIn = this.options.deviceCodeExpiresInSeconds ?? 300;
      this.challenges.set(deviceCode, { challenge: form.get('code_challenge')!, expiresAtMs: performance.now() + expiresIn * 1000 });
      return json({
        user_code: 'ABCD-EFGH', device_code: deviceCode, interval: 1, expires_in: expiresIn,
        verification_uri: 'https://customer.bmwgroup.com/oneid/link', verification_uri_complete: 'https://customer.bmwgroup.com/oneid/link?user_code=ABCD-EFGH',
      });
    }
    if (request.path !== '/gcdm/oauth/token') return undefined;
    const grant = form.get('grant_type');
    if (grant === 'urn:ietf:params:oauth:grant-type:device_code') {
      const issued = this.challenges.get(form.get('device_code') ?? '');
      if (!issued) return oauthError(400, 'invalid_grant', 'unknown device code');
      if (createHash('sha256').update(form.get('code_verifier') ?? '').digest('base64url') !== issued.challenge) return oauthError(400, 'invalid_grant', 'PKCE verification failed');
      if (performance.now() >= issued.expiresAtMs) return oauthError(400, 'expired_token', 'the device code has expired');
      if (this.declined) return oauthError(400, 'access_denied', 'the user declined');
      if (!this.approved) return oauthError(400, 'authorization_pending', 'the user has not approved yet');
      this.challenges.delete(form.get('device_code')!);
      return this.tokens();
    }
    if (grant === 'refresh_token') {
      if (!this.revoked && form.get('refresh_token') !== this.validRefreshToken) this.staleRefreshes++;
      if (this.revoked || form.get('refresh_token') !== this.validRefreshToken) return oauthError(400, 'invalid_grant', 'refresh token invalid or expired');
      this.refreshes++;
      return this.tokens();
    }
    return oauthError(400, 'unsupported_grant_type', '');
  }

  private rest(request: SimRequest): SimAnswer | undefined {
    if (!this.accessTokens.has(String(request.headers['authorization']).replace(/^Bearer /, '')) || request.headers['x-version'] !== 'v1') {
      return { status: 401, body: JSON.stringify({ exveErrorId: 'CU-101', exveErrorMsg: 'invalid token' }) };
    }
    if (++this.restCalls > this.restLimit) return { status: 429, body: JSON.stringify({ exveErrorId: 'CU-429', exveErrorMsg: 'API rate limit reached' }) };
    if (request.path === '/customers/vehicles/mappings' && request.method === 'GET') {
      return json(this.vehicleMappings.map((m) => ({ ...m, mappedSince: '2025-09-29T10:12:00.000Z' })));
    }
    if (request.path === '/customers/containers' && request.method === 'GET') return json({ containers: this.containers });
    if (request.path === '/customers/containers' && request.method === 'POST') {
      const body = JSON.parse(request.body) as { name: string; technicalDescriptors: string[] };
      const container = { containerId: `container-${this.containers.length + 1}`, name: body.name, state: 'ACTIVE', technicalDescriptors: body.technicalDescriptors };
      this.containers.push(container);
      return json({ containerId: container.containerId, name: container.name }, 201);
    }
    const basic = /^\/customers\/vehicles\/([^/]+)\/basicData$/.exec(request.path);
    if (basic && request.method === 'GET') {
      const data = this.basicData[decodeURIComponent(basic[1]!)];
      return data ? json(data) : { status: 404, body: JSON.stringify({ exveErrorId: 'CU-404', exveErrorMsg: 'vehicle not found' }) };
    }
    const telematic = /^\/customers\/vehicles\/([^/]+)\/telematicData$/.exec(request.path);
    if (telematic && request.method === 'GET') {
      const container = this.containers.find((c) => c.containerId === request.query.get('containerId'));
      if (!container) return { status: 404, body: JSON.stringify({ exveErrorId: 'CU-404', exveErrorMsg: 'container not found' }) };
      const stamp = new Date().toISOString();
      return json({ telematicData: Object.fromEntries(container.technicalDescriptors.filter((k) => k in this.telematicData)
        .map((key) => [key, { timestamp: stamp, unit: null, value: this.telematicData[key] }])) });
    }
    return undefined;
  }

  private tokens(): SimAnswer {
    this.validRefreshToken = `refresh-${randomBytes(8).toString('hex')}`;
    const idToken = this.options.idTokens[Math.min(this.issued++, this.options.idTokens.length - 1)]!;
    const access = `access-${randomBytes(8).toString('hex')}`;
    this.accessTokens.add(access);
    return json({
      access_token: access, id_token: idToken, refresh_token: this.validRefreshToken,
      gcid: this.options.gcid, token_type: 'Bearer', expires_in: this.options.expiresInSeconds ?? 3600,
      scope: 'authenticate_user openid cardata:api:read cardata:streaming:read',
    });
  }
}

function oauthError(status: number, error: string, description: string): SimAnswer {
  return { status, body: JSON.stringify({ error, error_description: description }), contentType: 'application/json' };
}

/** A stream message as BMW sends it: the documented shape, values as strings as the stream has them. */
export function cardataMessage(gcid: string, vin: string, values: Record<string, string | number | boolean | null>, at = new Date()): string {
  const stamp = at.toISOString();
  const data = Object.fromEntries(Object.entries(values).map(([key, value]) => [key, { timestamp: stamp, value }]));
  return JSON.stringify({ vin, entityId: gcid, topic: vin, timestamp: stamp, data });
}
