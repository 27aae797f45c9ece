import { z } from 'zod';
import type { ApiDeps } from '../deps.ts';
import { OperationRouter } from '../operation.ts';
import { json } from '../respond.ts';
import { AvailableVendors, ConnectUrl, oneOf, schemaRegistry } from '../../domain/schemas.ts';
import { CHARGER_VENDORS, HOME_POWER_VENDORS, HVAC_VENDORS, TARIFF_VENDORS, VEHICLE_VENDORS } from '../../domain/vocabulary.ts';
import type { DeviceConnectDomain } from '../../runtime/devices/device-prober.ts';
import { ApiError, badRequest } from '../errors.ts';
import type { Reach } from '../reach.ts';

const ConnectQuery = z.object({
  theme: oneOf(['DARK', 'LIGHT']).optional(),
  language: oneOf(['ENGLISH', 'GERMAN', 'FRENCH']).optional(),
});

const absoluteHttpUrl = z
  .string()
  .max(2048, 'must be at most 2048 characters long')
  .refine((value) => {
    // The URL parser would forgive surrounding spaces; a redirect target is taken exactly as given.
    if (value.trim() !== value) return false;
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== '';
    } catch {
      return false;
    }
  }, 'must be an absolute http or https URL');
schemaRegistry.add(absoluteHttpUrl, { jsonSchema: { type: 'string', format: 'uri', pattern: '^https?://', maxLength: 2048 } });

/**
 * The connect body. Its vendor is checked against the vendors this hub can pair (the pairing
 * probers' forms), so that a vendor outside the catalog and a catalog vendor this hub cannot pair
 * get one and the same message, beside the body's other problems.
 */
function connectRequest(pairable: () => string[]) {
  const vendor = z.string().superRefine((value, ctx) => {
    const vendors = pairable();
    if (vendors.includes(value)) return;
    ctx.addIssue({ code: 'custom', message: vendors.length > 0 ? `must be a charger vendor this hub can pair: ${vendors.join(', ')}` : 'cannot be paired: this hub pairs no charger vendor' });
  });
  schemaRegistry.add(vendor, { jsonSchema: { type: 'string', enum: [...CHARGER_VENDORS], description: 'A charger vendor this hub can pair (see available-vendors)' } });
  const request = z.object({ redirectUrl: absoluteHttpUrl, vendor, userId: connectUserId });
  schemaRegistry.add(request, { id: 'ConnectRequest' });
  return request;
}

const connectUserId = z.string().min(1, { abort: true }).max(50).refine((value) => value.trim() !== '', 'must not be blank');

/**
 * The vehicle connect body: the charger's fields with any vehicle vendor of the catalog (whether this
 * hub can connect it is answered by 405 TELEMATICS_NOT_SUPPORTED, as the origin API does) and an
 * optional VIN, the car to bind when the maker's account holds several.
 */
const VehicleConnectRequest = z.object({
  redirectUrl: absoluteHttpUrl,
  vendor: oneOf(VEHICLE_VENDORS),
  userId: connectUserId,
  vin: z.string().regex(/^[A-HJ-NPR-Z0-9]{17}$/, 'must be a VIN: 17 letters and digits, without I, O or Q').optional(),
});
schemaRegistry.add(VehicleConnectRequest, { id: 'VehicleConnectRequest' });

/**
 * The connect body of an HVAC, home-power or tariff session: the charger's fields, its vendor one of
 * the domain's catalog that this hub can connect (the connect page's forms: `connectable`); a vendor
 * of the catalog this hub cannot reach is refused with the ones it can, as for chargers.
 */
function deviceConnectRequest(id: string, catalog: readonly string[], what: string, connectable: () => string[]) {
  const vendor = z.string().superRefine((value, ctx) => {
    const vendors = connectable();
    if (vendors.includes(value)) return;
    ctx.addIssue({ code: 'custom', message: vendors.length > 0 ? `must be a ${what} vendor this hub can connect: ${vendors.join(', ')}` : `cannot be connected: this hub reaches no ${what} vendor` });
  });
  schemaRegistry.add(vendor, { jsonSchema: { type: 'string', enum: [...catalog], description: `A ${what} vendor this hub can connect (see available-vendors)` } });
  const request = z.object({ redirectUrl: absoluteHttpUrl, vendor, userId: connectUserId });
  schemaRegistry.add(request, { id });
  return request;
}

/** Per domain: what the operation says, the id parameter of its redirect, its body. */
const DEVICE_CONNECTS: ReadonlyArray<{
  domain: DeviceConnectDomain; path: string; operationId: string; schemaId: string; catalog: readonly string[]; what: string;
  summary: string; finds: string; ids: string;
}> = [
  {
    domain: 'hvac', path: '/connections/hvacs', operationId: 'connectHvac', schemaId: 'HvacConnectRequest', catalog: HVAC_VENDORS, what: 'HVAC',
    summary: 'Start a session to connect an HVAC unit',
    finds: 'says how to reach the unit (Daikin: the adapter\'s address, or ESPAltherma\'s topic prefix; Vaillant: ebusd\'s topics; Viessmann: open3e\'s topics)',
    ids: '`status=SUCCESS&hvacId=<id>`',
  },
  {
    domain: 'homePower', path: '/connections/home-powers', operationId: 'connectHomePower', schemaId: 'HomePowerConnectRequest', catalog: HOME_POWER_VENDORS, what: 'home power',
    summary: 'Start a session to connect a battery, PV inverter or meter',
    finds: 'says how to reach the device (Fronius, SMA, Huawei: the address the hub scans over Modbus TCP, choosing among what it finds; Enphase: the gateway\'s address and owner token; Tesla: the Powerwall gateway\'s address and customer login)',
    ids: '`status=SUCCESS` with `batteryId=<id>`, `pvInverterId=<id>` or `meterId=<id>` (the kind added)',
  },
  {
    domain: 'tariffs', path: '/connections/tariffs', operationId: 'connectTariff', schemaId: 'TariffConnectRequest', catalog: TARIFF_VENDORS, what: 'tariff',
    summary: 'Start a session to connect a tariff',
    finds: 'names the MQTT topic the household\'s price arrives on (evcc\'s `site/tariffGrid` or any plain number) and its currency',
    ids: '`status=SUCCESS&tariffId=<id>`',
  },
];

const SCOPED_SESSIONS = 'A key scoped to one user opens sessions for that `userId` only: another is a 400 whose `validationErrors` names `userId`.';

export function connectionRoutes(deps: ApiDeps): OperationRouter {
  const pairable = () => [...(deps.pairing?.forms().keys() ?? [])].sort();
  const ConnectRequest = connectRequest(pairable);
  /**
   * Stores a single-use session and answers 201 with the URL of its page. A key scoped to one
   * household opens sessions for that userId only: another is a 400 naming userId, whether or not
   * that user exists (a body field that is wrong for this key, as decisions §2 answers one that is
   * wrong in itself; a 404 would speak of a resource the request does not address).
   */
  const openSession = (query: z.output<typeof ConnectQuery>, body: { userId: string; vendor: string; redirectUrl: string; vin?: string }, reach: Reach, what: string, kind: string) => {
    if (reach.scope !== null && body.userId !== reach.scope) {
      throw badRequest([{ field: 'userId', message: `must be ${reach.scope}: this key is scoped to that user` }]);
    }
    const now = deps.clock.now();
    const token = deps.store.connectSessions.create({
      userId: body.userId,
      vendor: body.vendor,
      redirectUrl: body.redirectUrl,
      theme: query.theme ?? null,
      language: query.language ?? null,
      vin: body.vin ?? null,
      kind,
      createdAtMs: now,
      expiresAtMs: now + deps.settings.connectSessionTtlMs,
    });
    deps.log.info({ userId: body.userId, vendor: body.vendor, kind }, what);
    return json({ url: `${deps.settings.publicUrl}/connect/${token}` }, 201);
  };
  const router = new OperationRouter()
    .add({
      method: 'post', path: '/connections/chargers', operationId: 'connectCharger', tag: 'Connections',
      summary: 'Start a session to pair a charger',
      description: 'Returns the URL of the hub\'s own pairing page for this session, where the user says how to reach the '
        + 'charger; the hub probes it, adds it for `userId` and redirects to `redirectUrl` with `status=SUCCESS&chargerId=<id>`, '
        + '`status=CANCELLED` or `status=FAILED&error=<code>` appended to its query. A session is single-use and expires. '
        + 'Only a vendor this hub can pair is accepted (`available-vendors` lists them); another is a 400 whose `validationErrors` names the ones it can. '
        + SCOPED_SESSIONS,
      query: ConnectQuery,
      body: ConnectRequest,
      success: { status: 201, description: 'Created', schema: ConnectUrl },
      errors: ['BAD_REQUEST', 'UNSUPPORTED_MEDIA_TYPE'],
    }, (_c, { query, body, reach }) => openSession(query, body, reach, 'connect session created', 'chargers'))
    .add({
      method: 'post', path: '/connections/vehicles', operationId: 'connectVehicle', tag: 'Connections',
      summary: 'Start a session to connect a vehicle',
      description: 'Returns the URL of the hub\'s own connect page for this session, where the owner logs in with the car\'s maker '
        + '(BMW and MINI: BMW CarData, confirming a code on BMW\'s page; Volvo: the Volvo Cars API, logging in at Volvo ID) and '
        + 'chooses the car (the one with `vin` when given) and the charger it charges at; the hub adds the car for `userId` (a car of '
        + 'this user already on the hub gets its login renewed) and redirects to `redirectUrl` with `status=SUCCESS&vehicleId=<id>`, '
        + '`status=CANCELLED` or `status=FAILED&error=<code>` appended to its query. A session is single-use and expires. A vehicle '
        + 'vendor this hub cannot connect (`available-vendors` lists those it can under `vehicles`) is a 405 TELEMATICS_NOT_SUPPORTED. '
        + SCOPED_SESSIONS,
      query: ConnectQuery,
      body: VehicleConnectRequest,
      success: { status: 201, description: 'Created', schema: ConnectUrl },
      errors: ['BAD_REQUEST', 'TELEMATICS_NOT_SUPPORTED', 'UNSUPPORTED_MEDIA_TYPE'],
    }, (_c, { query, body, reach }) => {
      // A maker is connectable when the family that logs in to its cloud lists it (src/driver-families.ts).
      if (!deps.vendors.isAvailable('vehicles', body.vendor)) {
        throw new ApiError('TELEMATICS_NOT_SUPPORTED', `This hub cannot connect ${body.vendor} vehicles`);
      }
      return openSession(query, body, reach, 'vehicle connect session created', 'vehicles');
    })
    .add({
      method: 'get', path: '/connections/available-vendors', operationId: 'listAvailableVendors', tag: 'Connections',
      summary: 'The makers this hub reaches locally, by domain',
      success: { status: 200, description: 'Available vendors', schema: AvailableVendors },
      errors: [],
    }, () => json(deps.vendors.availableVendors(deps.settings.publicUrl)));
  for (const connect of DEVICE_CONNECTS) {
    const connectable = () => [...(deps.devicePairing?.forms(connect.domain).keys() ?? [])].sort();
    router.add({
      method: 'post', path: connect.path, operationId: connect.operationId, tag: 'Connections',
      summary: connect.summary,
      description: `Returns the URL of the hub's own connect page for this session, where the user ${connect.finds}; the hub finds and reads `
        + `the device, adds it for \`userId\` (a device this user has already is answered with its id; one another user has is refused) and `
        + `redirects to \`redirectUrl\` with ${connect.ids}, \`status=CANCELLED\` or \`status=FAILED&error=<code>\` appended to its query. `
        + 'A session is single-use and expires. Only a vendor this hub can reach is accepted (`available-vendors` lists them); another '
        + 'is a 400 whose `validationErrors` names the ones it can. ' + SCOPED_SESSIONS,
      query: ConnectQuery,
      body: deviceConnectRequest(connect.schemaId, connect.catalog, connect.what, connectable),
      success: { status: 201, description: 'Created', schema: ConnectUrl },
      errors: ['BAD_REQUEST', 'UNSUPPORTED_MEDIA_TYPE'],
    }, (_c, { query, body, reach }) => openSession(query, body, reach, `${connect.what} connect session created`, connect.domain));
  }
  return router;
}
