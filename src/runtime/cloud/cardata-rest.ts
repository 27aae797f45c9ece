// BMW CarData's REST API, used once when a car's stream session starts, for a snapshot of the keys
// the stream would otherwise bring only when the car next produces data. BMW allows 50 REST calls a
// day per account (CU-429 beyond), so the hub keeps one container of its keys (its id stored in the
// binding, so later starts cost one call) and never retries a snapshot. Base
// https://api-cardata.bmwgroup.com, headers Authorization: Bearer <access token> and x-version: v1;
// GET /customers/vehicles/mappings answering [{vin, mappedSince, mappingType}] (the cars of the account),
// GET|POST /customers/containers, GET /customers/vehicles/{vin}/telematicData?containerId=… answering
// {"telematicData": {<key>: {timestamp, unit, value}}}, GET /customers/vehicles/{vin}/basicData
// answering BMW's VehicleDto {vin, brand, modelName, series, …} (evcc-io/evcc @b29b49e vehicle/bmw/cardata/api.go;
// kvanbiesen/bmw-cardata-ha @21802199 cardata_api_documentation.md and swagger-customer-api-v1.json,
// BMW's Swagger of the API; TA2k/ioBroker.bmw #297). Old
// containers keep streaming duplicates (evcc #32314), hence one, reused by name.
import { httpRequest, type HttpAnswer } from '../../transport/http-device.ts';
import type { CardataEndpoints } from './cardata-oauth.ts';
import { parseJson, targetOf } from './cloud-http.ts';

export const HUB_CONTAINER_NAME = 'home-energy-hub';

function call(endpoints: CardataEndpoints, accessToken: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<HttpAnswer> {
  return httpRequest(targetOf(endpoints.apiUrl, endpoints), {
    method, path, timeoutMs: 15_000,
    headers: { authorization: `Bearer ${accessToken}`, 'x-version': 'v1', accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
}

/** BMW CarData answered a call with an error: `status` and BMW's code (CU-429: the day's 50 calls are used up). */
export class CardataRestRefused extends Error {
  constructor(readonly status: number, readonly code: string, what: string) {
    super(`BMW CarData refused ${what} (${code})`);
    this.name = 'CardataRestRefused';
  }

  get quotaUsedUp(): boolean {
    return this.status === 429 || this.code === 'CU-429';
  }
}

function refused(answer: HttpAnswer, what: string): Error {
  const code = String(parseJson(answer)['exveErrorId'] ?? parseJson(answer)['code'] ?? `HTTP ${answer.status}`);
  return new CardataRestRefused(answer.status, code, what);
}

/**
 * The VINs of the cars whose primary user this account is: the ones CarData streams (a secondary
 * mapping gives no data). The connect page binds one of them when the owner named no VIN.
 */
export async function primaryVehicles(endpoints: CardataEndpoints, accessToken: string): Promise<string[]> {
  const answer = await call(endpoints, accessToken, 'GET', '/customers/vehicles/mappings');
  if (answer.status !== 200) throw refused(answer, 'the list of cars');
  const mappings: unknown = parseJson(answer); // a list is an object too; anything unreadable is {}
  if (!Array.isArray(mappings)) throw new Error('BMW CarData answered the list of cars with something other than a list');
  return mappings
    .filter((m): m is { vin: string; mappingType: string } => m && typeof m.vin === 'string' && m.mappingType === 'PRIMARY')
    .map((m) => m.vin);
}

/**
 * The car's model name as BMW's basic data says it (its `modelName`), or null when
 * it says none. One REST call of the day's 50.
 */
export async function vehicleModel(endpoints: CardataEndpoints, accessToken: string, vin: string): Promise<string | null> {
  const answer = await call(endpoints, accessToken, 'GET', `/customers/vehicles/${encodeURIComponent(vin)}/basicData`);
  if (answer.status !== 200) throw refused(answer, 'the car\'s basic data');
  const model = parseJson(answer)['modelName'];
  return typeof model === 'string' && model.trim() !== '' ? model.trim() : null;
}

/** The hub's container of `keys`: the one found by name, else a new one. */
export async function ensureContainer(endpoints: CardataEndpoints, accessToken: string, keys: readonly string[]): Promise<string> {
  const listed = await call(endpoints, accessToken, 'GET', '/customers/containers');
  if (listed.status !== 200) throw refused(listed, 'the container list');
  const containers = parseJson(listed)['containers'];
  const ours = Array.isArray(containers)
    ? containers.find((c) => c && c.name === HUB_CONTAINER_NAME && (c.state === undefined || c.state === 'ACTIVE'))
    : undefined;
  if (ours && typeof ours.containerId === 'string') return ours.containerId;
  const made = await call(endpoints, accessToken, 'POST', '/customers/containers', {
    name: HUB_CONTAINER_NAME, purpose: 'home-energy-hub vehicle state v1', technicalDescriptors: keys,
  });
  const id = parseJson(made)['containerId'];
  if ((made.status !== 200 && made.status !== 201) || typeof id !== 'string') throw refused(made, 'a new container');
  return id;
}

/** The car's latest values of the container's keys (key → value; null and "" left out). */
export async function telematicSnapshot(endpoints: CardataEndpoints, accessToken: string, vin: string, containerId: string): Promise<Map<string, unknown>> {
  const answer = await call(endpoints, accessToken, 'GET', `/customers/vehicles/${encodeURIComponent(vin)}/telematicData?containerId=${encodeURIComponent(containerId)}`);
  if (answer.status !== 200) throw refused(answer, 'the snapshot');
  const data = parseJson(answer)['telematicData'];
  const out = new Map<string, unknown>();
  if (data && typeof data === 'object') {
    for (const [key, entry] of Object.entries(data as Record<string, { value?: unknown }>)) {
      const value = entry?.value;
      if (value !== undefined && value !== null && value !== '') out.set(key, value);
    }
  }
  return out;
}
