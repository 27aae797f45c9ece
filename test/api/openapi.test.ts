// The OpenAPI document against the hub itself: it is valid 3.1, it states what the hub enforces, every
// real response of every operation matches it, and the /docs page shows all of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createTestHub, type TestHubOptions } from '../support/hub.ts';
import {
  BARE, BARE_USER, Conformance, DEMO, NO_SUCH, documentedOperations, documentedResponses, fetchDocument, operationOf, resolve,
  type Checked, type ConformingHub, type Json, type OperationKey,
} from '../support/openapi.ts';
import { DEMO_USER } from '../../src/demo/site.ts';
import { TestProber, vendorsProber } from '../support/pairing.ts';
import { DeviceUnreachableError, storedStateRuntime, type Runtime } from '../../src/runtime/devices/live.ts';
import { HouseholdSeries } from '../../src/runtime/household/household-series.ts';
import { HubEvents } from '../../src/runtime/events/hub-events.ts';
import { silentLogger } from '../../src/log.ts';

const SCHEDULE = { schedules: [{ mode: 'HEAT', start: { time: '06:30', day: 'MONDAY' }, end: { time: '22:00', day: 'MONDAY' }, temperature: 21.5 }] };
const CONNECT = { redirectUrl: 'https://app.example/done', vendor: 'GO_E', userId: DEMO_USER };
const OVERSIZED = JSON.stringify({ ...SCHEDULE, ...CONNECT, padding: 'x'.repeat(70 * 1024) });
const JSON_HEADERS = { 'content-type': 'application/json' };

test('the OpenAPI document is valid 3.1, needs the key, and declares every operation', async (t) => {
  const hub = createTestHub();
  t.after(hub.close);
  assert.equal((await hub.app.request('/v1.0.0/openapi.json')).status, 401);
  const doc = await fetchDocument(hub);

  const result = await new Validator().validate(doc);
  assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
  assert.match(doc['openapi'], /^3\.1\.\d+$/);

  assert.deepEqual(documentedOperations(doc), hub.operations.map((op) => `${op.method} ${op.path}`).sort());
  for (const op of hub.operations) assert.equal(operationOf(doc, `${op.method} ${op.path}`)['operationId'], op.operationId);
  assert.equal(new Set(hub.operations.map((op) => op.operationId)).size, hub.operations.length, 'operationIds are unique');

  const schemes = Object.entries(doc['components']['securitySchemes'] as Json);
  const apiKey = schemes.find(([, s]) => s.type === 'apiKey' && s.in === 'header' && s.name === 'X-API-KEY');
  assert.ok(apiKey, 'an apiKey scheme in the X-API-KEY header');
  assert.deepEqual(doc['security'], [{ [apiKey[0]]: [] }]);
});

test('parameters and request bodies in the document are the ones the hub enforces', async (t) => {
  const hub = createTestHub();
  t.after(hub.close);
  const doc = await fetchDocument(hub);
  const params = (key: OperationKey) => Object.fromEntries((operationOf(doc, key)['parameters'] as Json[]).map((p) => [p.name, p]));

  // Generic: the names match the Zod schemas, and documented enums, bounds and defaults hold in them.
  for (const op of hub.operations) {
    const documented = operationOf(doc, `${op.method} ${op.path}`)['parameters'] as Json[];
    for (const [place, schema] of [['path', op.params], ['query', op.query]] as const) {
      const shape = schema ? Object.keys((schema as z.ZodObject).shape) : [];
      const inPlace = documented.filter((p) => p.in === place);
      assert.deepEqual(inPlace.map((p) => p.name).sort(), shape.sort(), `${op.operationId} ${place} parameters`);
      for (const p of inPlace) {
        const accepts = (value: string) => !schema!.safeParse({ [p.name]: value }).error?.issues.some((i) => i.path[0] === p.name);
        const where = `${op.operationId} ${p.name}`;
        assert.equal(p.required, place === 'path', `${where}: only path parameters are required`);
        for (const value of p.schema.enum ?? []) assert.ok(accepts(value), `${where} accepts ${value}`);
        if (p.schema.enum) assert.ok(!accepts('NOT_A_MEMBER'), `${where} rejects a non-member`);
        if (p.schema.type === 'integer') {
          assert.ok(accepts(String(p.schema.minimum)) && accepts(String(p.schema.maximum)), `${where} accepts its bounds`);
          assert.ok(!accepts(String(p.schema.minimum - 1)) && !accepts(String(p.schema.maximum + 1)), `${where} rejects beyond them`);
        }
        if (p.schema.type === 'boolean') assert.ok(accepts('true') && accepts('false') && !accepts('yes'), `${where} boolean`);
        if (p.schema.format === 'uuid') assert.ok(accepts(randomUUID()) && !accepts('not-a-uuid'), `${where} uuid`);
        if (p.schema.maxLength) assert.ok(accepts('u'.repeat(p.schema.maxLength)) && !accepts('u'.repeat(p.schema.maxLength + 1)), `${where} length`);
        if ('default' in p.schema) assert.equal(String((schema!.parse({}) as Json)[p.name]), String(p.schema.default), `${where} default`);
      }
    }
    const body = operationOf(doc, `${op.method} ${op.path}`)['requestBody'];
    assert.equal(body?.required, op.body ? true : undefined, `${op.operationId} request body`);
  }

  // The specification's own figures.
  const batteries = params('get /batteries');
  assert.deepEqual(batteries['size'].schema, { type: 'integer', format: 'int32', minimum: 1, maximum: 100, default: 10 });
  assert.deepEqual([batteries['page'].schema.minimum, batteries['page'].schema.default], [0, 0]);
  assert.deepEqual(batteries['sortField'].schema.enum, ['USER_ID', 'VENDOR', 'IS_ONLINE', 'LAST_UPDATED']);
  assert.equal(batteries['sortField'].schema.default, 'USER_ID');
  assert.deepEqual([batteries['sortOrder'].schema.enum, batteries['sortOrder'].schema.default], [['ASC', 'DESC'], 'DESC']);
  assert.equal(batteries['vendor'].schema.enum.length, 5);
  assert.equal(params('get /hvacs')['vendor'].schema.enum.length, 3);
  assert.deepEqual(params('get /hvacs')['type'].schema.enum, ['AC', 'HEATING_CIRCUIT', 'DHW', 'THERMOSTAT']);
  for (const key of ['get /users/{userId}/hvacs', 'get /users/{userId}/pv-inverters', 'get /users/{userId}/meters'] as const) {
    assert.deepEqual(params(key)['sortField'].schema.enum, ['VENDOR', 'IS_ONLINE', 'LAST_UPDATED'], key);
    assert.equal(params(key)['sortField'].schema.default, 'VENDOR', key);
  }
  const connect = params('post /connections/chargers');
  assert.deepEqual([connect['theme'].schema.enum, connect['language'].schema.enum], [['DARK', 'LIGHT'], ['ENGLISH', 'GERMAN', 'FRENCH']]);
  const connectBody = resolve(doc, operationOf(doc, 'post /connections/chargers')['requestBody'].content['application/json'].schema);
  assert.deepEqual([...connectBody['required']].sort(), ['redirectUrl', 'userId', 'vendor']);
  assert.equal(connectBody['properties']['redirectUrl'].maxLength, 2048);
  assert.equal(connectBody['properties']['userId'].maxLength, 50);
  assert.deepEqual(connectBody['properties']['vendor'].enum, ['EASEE', 'GO_E', 'ZAPTEC']);
  const schedule = resolve(doc, operationOf(doc, 'post /hvacs/{hvacId}/commands/schedule')['requestBody'].content['application/json'].schema);
  assert.deepEqual([schedule['required'], schedule['properties']['schedules'].minItems], [['schedules'], 1]);
});

/** The document the probes run against (for what they check in it beside the responses). */
let conformanceDoc: Json | undefined;

/** Exercises one operation; `start` builds a hub seeded with the household, closed after the test. */
type Probe = (start: (options?: TestHubOptions) => ConformingHub) => Promise<void>;

const validationFields = ({ body }: Checked) => body.validationErrors.map((e: Json) => e.field).sort();

/** 503 needs a device that cannot be reached now: a runtime whose every live read times out, as a driver's would. */
const unreachable: Runtime = { ...storedStateRuntime, refresh: async (device) => { throw new DeviceUnreachableError(device.id, 'timeout'); } };

/**
 * The reads and deletions every kind shares (src/api/device-operations.ts), at the subscription and
 * the user level: the demo device, a bare one, a malformed id, an unknown id, another user's device
 * (not found), a device that cannot be reached now (503), and a deletion that holds.
 */
function sharedProbes(kind: string, segment: string, idName: string, ops: readonly string[]): Record<OperationKey, Probe> {
  const code = `${{ pvInverter: 'PV_INVERTER', hvac: 'HVAC' }[kind] ?? kind.toUpperCase()}_NOT_FOUND`;
  const own = { userId: DEMO_USER, [idName]: DEMO(kind) };
  const probes: Record<OperationKey, Probe> = {};
  const reads = async (key: OperationKey, start: Parameters<Probe>[0], user: boolean) => {
    const api = start();
    const params = user ? own : { [idName]: DEMO(kind) };
    const { body } = await api.expect(200, key, { params });
    assert.equal(body.id, DEMO(kind));
    const bare = await api.expect(200, key, { params: user ? { userId: BARE_USER, [idName]: BARE[kind as keyof typeof BARE] } : { [idName]: BARE[kind as keyof typeof BARE] } });
    assert.equal(bare.body.userId, BARE_USER);
    await api.expect(400, key, { params: { ...params, [idName]: 'not-a-uuid' } });
    assert.equal((await api.expect(404, key, { params: { ...params, [idName]: NO_SUCH } })).body.errorCode, code);
    if (user) assert.equal((await api.expect(404, key, { params: { ...own, userId: BARE_USER } })).body.errorCode, code);
  };
  for (const op of ops) {
    if (op === 'detail') probes[`get /${segment}/{${idName}}`] = (start) => reads(`get /${segment}/{${idName}}`, start, false);
    if (op === 'userDetail') probes[`get /users/{userId}/${segment}/{${idName}}`] = (start) => reads(`get /users/{userId}/${segment}/{${idName}}`, start, true);
    if (op === 'refresh' || op === 'userRefresh') {
      const user = op === 'userRefresh';
      const key: OperationKey = user ? `get /users/{userId}/${segment}/{${idName}}/refresh` : `get /${segment}/{${idName}}/refresh`;
      probes[key] = async (start) => {
        await reads(key, start, user);
        await start({ runtime: unreachable }).expect(503, key, { params: user ? own : { [idName]: DEMO(kind) } });
      };
    }
    if (op === 'userDelete') {
      const key: OperationKey = `delete /users/{userId}/${segment}/{${idName}}`;
      probes[key] = async (start) => {
        const api = start();
        await api.expect(404, key, { params: { ...own, userId: BARE_USER } });
        assert.deepEqual((await api.expect(200, key, { params: own })).body, { success: true });
        await api.expect(404, key, { params: own });
        await api.expect(400, key, { params: { ...own, userId: 'u'.repeat(201) } });
      };
    }
    if (op === 'userList') {
      const key: OperationKey = `get /users/{userId}/${segment}`;
      probes[key] = async (start) => {
        const api = start();
        assert.ok((await api.expect(200, key, { params: { userId: DEMO_USER } })).body.totalElements >= 1);
        assert.deepEqual((await api.expect(200, key, { params: { userId: 'nobody' } })).body, { content: [], totalElements: 0, totalPages: 0 });
        assert.deepEqual(validationFields(await api.expect(400, key, { params: { userId: DEMO_USER }, query: '?sortField=USER_ID&size=0' })), ['size', 'sortField']);
      };
    }
  }
  return probes;
}

/** A runtime whose drivers offer an HVAC unit's zone controller: setpoints 5 to 30 °C, and the modes it has words for. */
const zoneController: Runtime = {
  ...storedStateRuntime,
  offers: (device) => new Map(device.kind !== 'hvac' ? [] : [
    ['SET_TEMPERATURE', { value: { from: 'payload', field: 'temperature', min: 5, max: 30 }, stateField: 'targetTemperature' }],
    ['SET_MODE', { value: { from: 'payload-enum', field: 'mode', map: { AUTO: 'auto', HEAT: 'day', REDUCED: 'night', OFF: 'off' } }, stateField: 'opMode' }],
  ] as const),
};

/** The temperature or mode command of an HVAC unit, at either level: accepted, refused (bad body, not offered, out of range), not found. */
function setpointProbe(key: OperationKey, user: boolean): Probe {
  const isMode = key.endsWith('/mode');
  const good = isMode ? { mode: 'HEAT' } : { temperature: 21.5 };
  return async (start) => {
    const api = start();
    const params: Record<string, string> = user ? { userId: DEMO_USER, hvacId: DEMO('hvac') } : { hvacId: DEMO('hvac') };
    const created = await api.expect(200, key, { params, json: good });
    assert.deepEqual([created.body.state, created.body.type], ['PENDING', isMode ? 'SET_MODE' : 'SET_TEMPERATURE']);
    assert.deepEqual(validationFields(await api.expect(400, key, { params, json: isMode ? { mode: 'WARM' } : { temperature: 'warm' } })), [isMode ? 'mode' : 'temperature']);
    await api.expect(400, key, { params, body: '{"mode":', headers: JSON_HEADERS });
    await api.expect(415, key, { params, body: JSON.stringify(good), headers: { 'content-type': 'text/plain' } });
    assert.equal((await api.expect(404, key, { params: { ...params, hvacId: NO_SUCH }, json: good })).body.errorCode, 'HVAC_NOT_FOUND');
    if (user) await api.expect(404, key, { params: { ...params, userId: BARE_USER }, json: good });
    // What the unit's driver cannot take is refused before anything is stored.
    const driven = start({ runtime: zoneController });
    const refused = await driven.expect(400, key, { params, json: isMode ? { mode: 'COOL' } : { temperature: 35 } });
    assert.deepEqual(validationFields(refused), [isMode ? 'mode' : 'temperature']);
    assert.match(refused.body.validationErrors[0].message, isMode ? /no equivalent of mode COOL; it accepts AUTO, HEAT, REDUCED, OFF/ : /outside what the device accepts \(5 to 30\)/);
    assert.equal(driven.hub.store.commands.ofDeviceId(DEMO('hvac'), 'ALL').length, 0, 'nothing stored');
    await driven.expect(200, key, { params, json: good });
    // A well-formed command the unit's driver does not offer at all is the origin's 200, FAILED at
    // once with the reason (decisions §5), never a 400 a partner's client would read as its own bug.
    const thermostatOnly: Runtime = { ...storedStateRuntime, offers: () => new Map([['SET_SCHEDULE', { value: { from: 'schedule', encoder: 'x' } }]] as const) as never };
    const lacking = start({ runtime: thermostatOnly });
    const failed = await lacking.expect(200, key, { params, json: good });
    assert.deepEqual([failed.body.state, failed.body.type], ['FAILED', isMode ? 'SET_MODE' : 'SET_TEMPERATURE']);
    assert.match(failed.body.failedReason, new RegExp(`^${isMode ? 'SET_MODE' : 'SET_TEMPERATURE'} is not offered for this device: what it offers is SET_SCHEDULE\\.$`));
    const listed = await lacking.expect(200, user ? 'get /users/{userId}/hvacs/{hvacId}/commands' : 'get /hvacs/{hvacId}/commands', { params, query: '?state=FAILED' });
    assert.ok(listed.body.some((c: Json) => c['id'] === failed.body.id), 'listed with the device\'s commands');
  };
}

/** A charger command at either level: accepted PENDING, bad body or id, not found (also another user's charger). */
function chargerCommandProbe(key: OperationKey, type: string, body?: Json, bad?: Json): Probe {
  return async (start) => {
    const api = start();
    const user = key.includes('/users/');
    const params: Record<string, string> = user ? { userId: DEMO_USER, chargerId: DEMO('charger') } : { chargerId: DEMO('charger') };
    const withBody = body ? { json: body } : {};
    const created = await api.expect(200, key, { params, ...withBody });
    assert.deepEqual([created.body.state, created.body.type, created.body.deviceId], ['PENDING', type, DEMO('charger')]);
    await api.expect(400, key, { params: { ...params, chargerId: 'not-a-uuid' }, ...withBody });
    assert.equal((await api.expect(404, key, { params: { ...params, chargerId: NO_SUCH }, ...withBody })).body.errorCode, 'CHARGER_NOT_FOUND');
    if (user) await api.expect(404, key, { params: { ...params, userId: BARE_USER }, ...withBody });
    if (body && bad) {
      assert.deepEqual(validationFields(await api.expect(400, key, { params, json: bad })), Object.keys(bad));
      await api.expect(415, key, { params, body: JSON.stringify(body), headers: { 'content-type': 'text/plain' } });
    }
  };
}

const CHARGING_SCHEDULE = { schedules: [{ type: 'CHARGE', stateOfChargeTarget: 80, chargeRateMax: 11, days: ['MONDAY', 'FRIDAY'], start: '01:00', end: '06:00' }] };

/** A vehicle command at either level; `body` for the charging schedule. */
function vehicleCommandProbe(key: OperationKey, type: string): Probe {
  return async (start) => {
    const api = start();
    const user = key.includes('/users/');
    const isSchedule = type === 'SET_CHARGING_SCHEDULE';
    const params: Record<string, string> = user ? { userId: DEMO_USER, vehicleId: DEMO('vehicle') } : { vehicleId: DEMO('vehicle') };
    const withBody = isSchedule ? { json: CHARGING_SCHEDULE } : {};
    const created = await api.expect(200, key, { params, ...withBody });
    assert.equal(created.body.type, type);
    if (isSchedule) {
      // No driver of this hub sets a car's charging schedule: FAILED at once, with the reason.
      assert.equal(created.body.state, 'FAILED');
      assert.match(created.body.failedReason, /no local path of this hub sets a vehicle's charging schedule/);
      assert.equal(api.hub.store.commands.ofDeviceId(DEMO('vehicle'), 'PENDING').length, 0, 'never left PENDING');
      const bad = await api.expect(400, key, { params, json: { schedules: [{ type: 'CHARGE', days: ['MONTAG'], start: '25:00' }] } });
      assert.deepEqual(validationFields(bad), ['schedules[0].days[0]', 'schedules[0].start']);
      await api.expect(400, key, { params, body: '{"schedules":', headers: JSON_HEADERS });
      await api.expect(415, key, { params, body: JSON.stringify(CHARGING_SCHEDULE), headers: { 'content-type': 'text/plain' } });
    } else {
      assert.equal(created.body.state, 'PENDING');
    }
    await api.expect(400, key, { params: { ...params, vehicleId: 'not-a-uuid' }, ...withBody });
    assert.equal((await api.expect(404, key, { params: { ...params, vehicleId: NO_SUCH }, ...withBody })).body.errorCode, 'VEHICLE_NOT_FOUND');
    if (user) await api.expect(404, key, { params: { ...params, userId: BARE_USER }, ...withBody });
    if (type === 'CHARGING_START') {
      // Neither a bridge nor a charger can start this car: accepted as the origin accepts it, and
      // FAILED at once with the reason (decisions §5), stored and listed.
      const alone = start({ runtime: { ...storedStateRuntime, offers: () => new Map() } });
      const failed = await alone.expect(200, key, { params });
      assert.equal(failed.body.state, 'FAILED');
      assert.match(failed.body.failedReason, /^CHARGING_START is not offered for this device: no driver of the hub can command it\.$/);
      assert.deepEqual(alone.hub.store.commands.ofDeviceId(DEMO('vehicle'), 'ALL').map((c) => [c.id, c.state]), [[failed.body.id, 'FAILED']]);
    }
  };
}

/** A tariff's prices or consumption at either level, over a ledger filled for the demo household. */
function tariffLedgerProbe(key: OperationKey): Probe {
  return async (start) => {
    const api = start();
    const user = key.includes('/users/');
    const params: Record<string, string> = user ? { userId: DEMO_USER, tariffId: DEMO('tariff') } : { tariffId: DEMO('tariff') };
    const now = api.hub.clock.now();
    const hour = Math.floor(now / 3_600_000) * 3_600_000;
    api.hub.store.tariffLedger.recordPrice(DEMO('tariff'), hour - 3_600_000, 0.3, now - 48 * 3_600_000);
    api.hub.store.tariffLedger.recordHour(DEMO('meter'), hour - 3_600_000, 100, 0);
    api.hub.store.tariffLedger.recordHour(DEMO('meter'), hour, 101.5, 0);
    const { body } = await api.expect(200, key, { params });
    if (key.endsWith('/prices')) assert.deepEqual(body, [{ startDate: new Date(hour - 3_600_000).toISOString().replace('.000Z', 'Z'), totalPrice: 0.3 }]);
    else {
      assert.deepEqual(body.content.map((h: Json) => [h.consumption, h.cost]), [[1.5, 0.45]]);
      assert.deepEqual(validationFields(await api.expect(400, key, { params, query: '?size=2001&page=-1' })), ['page', 'size']);
    }
    await api.expect(400, key, { params: { ...params, tariffId: 'not-a-uuid' } });
    assert.equal((await api.expect(404, key, { params: { ...params, tariffId: NO_SUCH } })).body.errorCode, 'TARIFF_NOT_FOUND');
    if (user) await api.expect(404, key, { params: { ...params, userId: BARE_USER } });
  };
}

/** Per operation: the happy path and every documented error status that a request can provoke. */
/** A device's picture: the PNG with its length and ETag, 304 for that tag, 400, the device's own 404 and DEVICE_IMAGE_NOT_FOUND. */
function pictureProbe(kind: keyof typeof BARE, segment: string, idName: string, notFoundCode: string): Probe {
  return async (start) => {
    const api = start();
    const key: OperationKey = `get /users/{userId}/${segment}/{${idName}}/image.png`;
    const params = { userId: DEMO_USER, [idName]: DEMO(kind) };
    const image = await api.expect(200, key, { params });
    assert.deepEqual([...image.body.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.equal(image.res.headers.get('content-length'), String(image.body.length));
    const etag = image.res.headers.get('etag')!;
    assert.equal((await api.expect(304, key, { params, headers: { 'if-none-match': etag } })).res.headers.get('etag'), etag);
    await api.expect(400, key, { params: { ...params, [idName]: 'not-a-uuid' } });
    assert.equal((await api.expect(404, key, { params: { ...params, userId: BARE_USER } })).body.errorCode, notFoundCode);
    const none = await api.expect(404, key, { params: { userId: BARE_USER, [idName]: BARE[kind] } });
    assert.equal(none.body.errorCode, 'DEVICE_IMAGE_NOT_FOUND');
  };
}

const PROBES: Record<OperationKey, Probe> = {
  ...Object.fromEntries((['get /tariffs/{tariffId}/prices', 'get /users/{userId}/tariffs/{tariffId}/prices', 'get /tariffs/{tariffId}/consumption',
    'get /users/{userId}/tariffs/{tariffId}/consumption'] as const).map((key) => [key, tariffLedgerProbe(key)])),
  'post /vehicles/{vehicleId}/commands/charging-start': vehicleCommandProbe('post /vehicles/{vehicleId}/commands/charging-start', 'CHARGING_START'),
  'post /users/{userId}/vehicles/{vehicleId}/commands/charging-start': vehicleCommandProbe('post /users/{userId}/vehicles/{vehicleId}/commands/charging-start', 'CHARGING_START'),
  'post /users/{userId}/vehicles/{vehicleId}/commands/charging-stop': vehicleCommandProbe('post /users/{userId}/vehicles/{vehicleId}/commands/charging-stop', 'CHARGING_STOP'),
  'post /vehicles/{vehicleId}/commands/charging-schedule': vehicleCommandProbe('post /vehicles/{vehicleId}/commands/charging-schedule', 'SET_CHARGING_SCHEDULE'),
  'post /users/{userId}/vehicles/{vehicleId}/commands/charging-schedule':
    vehicleCommandProbe('post /users/{userId}/vehicles/{vehicleId}/commands/charging-schedule', 'SET_CHARGING_SCHEDULE'),
  ...sharedProbes('battery', 'batteries', 'batteryId', ['refresh', 'userList', 'userDetail', 'userRefresh', 'userDelete']),
  ...sharedProbes('pvInverter', 'pv-inverters', 'pvInverterId', ['detail', 'userDetail', 'userRefresh', 'userDelete']),
  ...sharedProbes('meter', 'meters', 'meterId', ['userDetail', 'userRefresh', 'userDelete']),
  ...sharedProbes('tariff', 'tariffs', 'tariffId', ['userList', 'userDelete']),
  ...sharedProbes('charger', 'chargers', 'chargerId', ['userList', 'userDetail', 'userRefresh', 'userDelete']),
  'post /chargers/{chargerId}/commands/charging-phases': chargerCommandProbe('post /chargers/{chargerId}/commands/charging-phases', 'SET_CHARGING_PHASES', { phases: 1 }, { phases: 4 }),
  'post /users/{userId}/chargers/{chargerId}/commands/charging-phases':
    chargerCommandProbe('post /users/{userId}/chargers/{chargerId}/commands/charging-phases', 'SET_CHARGING_PHASES', { phases: 3 }, { phases: 1.5 }),
  'post /users/{userId}/chargers/{chargerId}/commands/charging-current':
    chargerCommandProbe('post /users/{userId}/chargers/{chargerId}/commands/charging-current', 'SET_CHARGING_CURRENT', { amps: 12 }, { amps: 'max' }),
  'post /users/{userId}/chargers/{chargerId}/commands/charging-start': chargerCommandProbe('post /users/{userId}/chargers/{chargerId}/commands/charging-start', 'CHARGING_START'),
  'post /users/{userId}/chargers/{chargerId}/commands/charging-stop': chargerCommandProbe('post /users/{userId}/chargers/{chargerId}/commands/charging-stop', 'CHARGING_STOP'),
  'get /users/{userId}/chargers/{chargerId}/commands': async (start) => {
    const api = start();
    const key = 'get /users/{userId}/chargers/{chargerId}/commands';
    assert.equal(operationOf(conformanceDoc!, key)['x-hub-addition'], true, 'marked as a hub addition');
    const params = { userId: DEMO_USER, chargerId: DEMO('charger') };
    await api.expect(200, 'post /users/{userId}/chargers/{chargerId}/commands/charging-stop', { params });
    assert.deepEqual((await api.expect(200, key, { params })).body.map((c: Json) => c.type), ['CHARGING_STOP']);
    await api.expect(200, key, { params, query: '?state=FAILED' });
    await api.expect(400, key, { params, query: '?state=DONE' });
    assert.equal((await api.expect(404, key, { params: { ...params, userId: BARE_USER } })).body.errorCode, 'CHARGER_NOT_FOUND');
  },
  'get /users/{userId}/household/series': async (start) => {
    const api = start();
    const key = 'get /users/{userId}/household/series';
    assert.equal(operationOf(conformanceDoc!, key)['x-hub-addition'], true, 'marked as a hub addition');
    // Two samples of the demo household, then the next 5 minutes: one point.
    const series = new HouseholdSeries({ store: api.hub.store, events: new HubEvents(), clock: api.hub.clock, log: silentLogger() });
    series.start();
    series.sample();
    api.hub.clock.advance(5 * 60_000);
    series.sample();
    series.stop();
    const { body } = await api.expect(200, key, { params: { userId: DEMO_USER } });
    assert.ok(body.points.length >= 1 && typeof body.points[0].pvPower === 'number', JSON.stringify(body));
    assert.equal((await api.expect(200, key, { params: { userId: BARE_USER } })).body.points.length, 0);
    assert.deepEqual(validationFields(await api.expect(400, key, { params: { userId: DEMO_USER }, query: '?hours=49' })), ['hours']);
  },
  ...sharedProbes('hvac', 'hvacs', 'hvacId', ['userDetail', 'refresh', 'userRefresh', 'userDelete']),
  'post /hvacs/{hvacId}/commands/temperature': setpointProbe('post /hvacs/{hvacId}/commands/temperature', false),
  'post /hvacs/{hvacId}/commands/mode': setpointProbe('post /hvacs/{hvacId}/commands/mode', false),
  'post /users/{userId}/hvacs/{hvacId}/commands/temperature': setpointProbe('post /users/{userId}/hvacs/{hvacId}/commands/temperature', true),
  'post /users/{userId}/hvacs/{hvacId}/commands/mode': setpointProbe('post /users/{userId}/hvacs/{hvacId}/commands/mode', true),
  'get /users/{userId}/hvacs/{hvacId}/schedules': async (start) => {
    const api = start();
    const key = 'get /users/{userId}/hvacs/{hvacId}/schedules';
    const params = { userId: DEMO_USER, hvacId: DEMO('hvac') };
    assert.equal((await api.expect(404, key, { params })).body.errorCode, 'HVAC_SCHEDULES_NOT_AVAILABLE');
    // Pending is not known to be the unit's: only a schedule it read back is shown.
    const created = await api.expect(200, 'post /hvacs/{hvacId}/commands/schedule', { params, json: SCHEDULE });
    await api.expect(404, key, { params });
    api.hub.store.commands.complete(created.body.id, 'EXECUTED', null, api.hub.clock.now());
    assert.deepEqual((await api.expect(200, key, { params })).body, { timeZone: 'UTC', schedules: SCHEDULE.schedules });
    await api.expect(400, key, { params: { ...params, hvacId: 'not-a-uuid' } });
    assert.equal((await api.expect(404, key, { params: { ...params, userId: BARE_USER } })).body.errorCode, 'HVAC_NOT_FOUND');
  },
  'get /hvacs/{hvacId}/commands': async (start) => {
    const api = start();
    const params = { hvacId: DEMO('hvac') };
    await api.expect(200, 'post /hvacs/{hvacId}/commands/mode', { params, json: { mode: 'OFF' } });
    const listed = await api.expect(200, 'get /hvacs/{hvacId}/commands', { params });
    assert.deepEqual(listed.body.map((c: Json) => c.type), ['SET_MODE']);
    await api.expect(400, 'get /hvacs/{hvacId}/commands', { params, query: '?state=DONE' });
    await api.expect(404, 'get /hvacs/{hvacId}/commands', { params: { hvacId: NO_SUCH } });
  },
  ...sharedProbes('vehicle', 'vehicles', 'vehicleId', ['detail', 'refresh', 'userList', 'userDetail', 'userRefresh', 'userDelete']),
  'get /vehicles': async (start) => {
    const api = start();
    const all = await api.expect(200, 'get /vehicles', { query: '?sortField=VENDOR&sortOrder=ASC' });
    assert.equal(all.body.totalElements, 3);
    const tesla = await api.expect(200, 'get /vehicles', { query: '?vendor=TESLA&vin=5yj3' });
    assert.deepEqual(tesla.body.content.map((v: Json) => v.vin), ['5YJ3E7EB1KF123456']);
    assert.deepEqual(validationFields(await api.expect(400, 'get /vehicles', { query: '?vendor=FIAT&size=101' })), ['size', 'vendor']);
  },
  'get /batteries': async (start) => {
    const api = start();
    const page = await api.expect(200, 'get /batteries', { query: '?sortField=VENDOR&sortOrder=ASC&size=2' });
    assert.deepEqual([page.body.content.length, page.body.totalElements, page.body.totalPages], [2, 3, 2]);
    const bare = await api.expect(200, 'get /batteries', { query: `?uuid=${BARE.battery}` });
    assert.deepEqual(Object.keys(bare.body.content[0]).sort(), ['id', 'isOnline', 'model', 'userId', 'vendor']);
    assert.deepEqual(validationFields(await api.expect(400, 'get /batteries', { query: '?size=0&sortField=NAME' })), ['size', 'sortField']);
  },
  'get /batteries/{batteryId}': async (start) => {
    const api = start();
    await api.expect(200, 'get /batteries/{batteryId}', { params: { batteryId: DEMO('battery') } });
    const bare = await api.expect(200, 'get /batteries/{batteryId}', { params: { batteryId: BARE.battery } });
    // Never reported: no state object at all (the origin's is optional, with lastUpdated required in it).
    assert.equal('chargeState' in bare.body, false);
    await api.expect(400, 'get /batteries/{batteryId}', { params: { batteryId: 'not-a-uuid' } });
    const missing = await api.expect(404, 'get /batteries/{batteryId}', { params: { batteryId: NO_SUCH } });
    assert.equal(missing.body.errorCode, 'BATTERY_NOT_FOUND');
  },
  'delete /batteries/{batteryId}': async (start) => {
    const api = start();
    assert.deepEqual((await api.expect(200, 'delete /batteries/{batteryId}', { params: { batteryId: DEMO('battery') } })).body, { success: true });
    await api.expect(404, 'delete /batteries/{batteryId}', { params: { batteryId: DEMO('battery') } });
    await api.expect(400, 'delete /batteries/{batteryId}', { params: { batteryId: 'not-a-uuid' } });
  },
  'get /hvacs': async (start) => {
    const api = start();
    assert.equal((await api.expect(200, 'get /hvacs', { query: '?type=DHW' })).body.totalElements, 1);
    await api.expect(200, 'get /hvacs', { query: '?isOnline=false&sortField=LAST_UPDATED' });
    assert.deepEqual(validationFields(await api.expect(400, 'get /hvacs', { query: '?type=FAN&lastUpdatedFrom=yesterday' })), ['lastUpdatedFrom', 'type']);
  },
  'get /users/{userId}/hvacs': async (start) => {
    const api = start();
    assert.equal((await api.expect(200, 'get /users/{userId}/hvacs', { params: { userId: DEMO_USER } })).body.totalElements, 3);
    const none = await api.expect(200, 'get /users/{userId}/hvacs', { params: { userId: 'nobody' } });
    assert.deepEqual(none.body, { content: [], totalElements: 0, totalPages: 0 });
    await api.expect(400, 'get /users/{userId}/hvacs', { params: { userId: DEMO_USER }, query: '?sortField=USER_ID' });
  },
  'get /users/{userId}/hvacs/{hvacId}/commands': async (start) => {
    const api = start();
    const hvac = { userId: DEMO_USER, hvacId: DEMO('hvac') };
    await api.expect(200, 'post /hvacs/{hvacId}/commands/schedule', { params: hvac, json: SCHEDULE });
    assert.equal((await api.expect(200, 'get /users/{userId}/hvacs/{hvacId}/commands', { params: hvac })).body.length, 1);
    await api.expect(200, 'get /users/{userId}/hvacs/{hvacId}/commands', { params: hvac, query: '?state=EXECUTED' });
    await api.expect(400, 'get /users/{userId}/hvacs/{hvacId}/commands', { params: hvac, query: '?state=DONE' });
    await api.expect(404, 'get /users/{userId}/hvacs/{hvacId}/commands', { params: { ...hvac, userId: BARE_USER } });
  },
  'post /hvacs/{hvacId}/commands/schedule': async (start) => {
    const api = start();
    const params = { hvacId: DEMO('hvac') };
    const created = await api.expect(200, 'post /hvacs/{hvacId}/commands/schedule', { params, json: SCHEDULE });
    assert.deepEqual([created.body.state, created.body.type, created.body.deviceId], ['PENDING', 'SET_SCHEDULE', params.hvacId]);
    const bad = await api.expect(400, 'post /hvacs/{hvacId}/commands/schedule', { params, json: { schedules: [{ mode: 'WARM', start: { time: '24:00', day: 'MONDAY' } }] } });
    assert.deepEqual(validationFields(bad), ['schedules[0].mode', 'schedules[0].start.time']);
    await api.expect(400, 'post /hvacs/{hvacId}/commands/schedule', { params, body: '{"schedules":', headers: JSON_HEADERS });
    await api.expect(404, 'post /hvacs/{hvacId}/commands/schedule', { params: { hvacId: NO_SUCH }, json: SCHEDULE });
    await api.expect(415, 'post /hvacs/{hvacId}/commands/schedule', { params, body: JSON.stringify(SCHEDULE), headers: { 'content-type': 'text/plain' } });
  },
  'get /users/{userId}/pv-inverters': async (start) => {
    const api = start();
    assert.equal((await api.expect(200, 'get /users/{userId}/pv-inverters', { params: { userId: DEMO_USER }, query: '?size=1' })).body.totalPages, 2);
    await api.expect(200, 'get /users/{userId}/pv-inverters', { params: { userId: BARE_USER } });
    await api.expect(400, 'get /users/{userId}/pv-inverters', { params: { userId: DEMO_USER }, query: '?sortOrder=UP' });
  },
  'get /pv-inverters/{pvInverterId}/refresh': async (start) => {
    const api = start();
    const demo = await api.expect(200, 'get /pv-inverters/{pvInverterId}/refresh', { params: { pvInverterId: DEMO('pvInverter') } });
    assert.match(demo.body.powerState.lastUpdated, /Z$/);
    const bare = await api.expect(200, 'get /pv-inverters/{pvInverterId}/refresh', { params: { pvInverterId: BARE.pvInverter } });
    assert.equal('powerState' in bare.body, false, 'never reported: no powerState');
    await api.expect(400, 'get /pv-inverters/{pvInverterId}/refresh', { params: { pvInverterId: 'not-a-uuid' } });
    await api.expect(404, 'get /pv-inverters/{pvInverterId}/refresh', { params: { pvInverterId: NO_SUCH } });
    await start({ runtime: unreachable }).expect(503, 'get /pv-inverters/{pvInverterId}/refresh', { params: { pvInverterId: DEMO('pvInverter') } });
  },
  'delete /pv-inverters/{pvInverterId}': async (start) => {
    const api = start();
    await api.expect(200, 'delete /pv-inverters/{pvInverterId}', { params: { pvInverterId: DEMO('pvInverter') } });
    await api.expect(404, 'delete /pv-inverters/{pvInverterId}', { params: { pvInverterId: DEMO('pvInverter') } });
    await api.expect(400, 'delete /pv-inverters/{pvInverterId}', { params: { pvInverterId: 'not-a-uuid' } });
  },
  'get /users/{userId}/meters': async (start) => {
    const api = start();
    await api.expect(200, 'get /users/{userId}/meters', { params: { userId: DEMO_USER } });
    await api.expect(200, 'get /users/{userId}/meters', { params: { userId: BARE_USER } });
    await api.expect(400, 'get /users/{userId}/meters', { params: { userId: DEMO_USER }, query: '?page=-1' });
  },
  'get /chargers/{chargerId}': async (start) => {
    const api = start();
    const demo = await api.expect(200, 'get /chargers/{chargerId}', { params: { chargerId: DEMO('charger') } });
    assert.match(demo.body.chargeState.lastUpdated, /Z$/);
    const bare = await api.expect(200, 'get /chargers/{chargerId}', { params: { chargerId: BARE.charger } });
    assert.equal('chargeState' in bare.body, false, 'never reported: no chargeState');
    await api.expect(400, 'get /chargers/{chargerId}', { params: { chargerId: 'not-a-uuid' } });
    assert.equal((await api.expect(404, 'get /chargers/{chargerId}', { params: { chargerId: NO_SUCH } })).body.errorCode, 'CHARGER_NOT_FOUND');
  },
  'get /chargers/{chargerId}/refresh': async (start) => {
    const api = start();
    await api.expect(200, 'get /chargers/{chargerId}/refresh', { params: { chargerId: DEMO('charger') } });
    await api.expect(400, 'get /chargers/{chargerId}/refresh', { params: { chargerId: 'not-a-uuid' } });
    await api.expect(404, 'get /chargers/{chargerId}/refresh', { params: { chargerId: NO_SUCH } });
    await start({ runtime: unreachable }).expect(503, 'get /chargers/{chargerId}/refresh', { params: { chargerId: DEMO('charger') } });
  },
  'delete /chargers/{chargerId}': async (start) => {
    const api = start();
    await api.expect(200, 'delete /chargers/{chargerId}', { params: { chargerId: BARE.charger } });
    await api.expect(404, 'delete /chargers/{chargerId}', { params: { chargerId: BARE.charger } });
    await api.expect(400, 'delete /chargers/{chargerId}', { params: { chargerId: 'not-a-uuid' } });
  },
  'get /users/{userId}/vehicles/{vehicleId}/commands': async (start) => {
    const api = start();
    const vehicle = { userId: DEMO_USER, vehicleId: DEMO('vehicle') };
    await api.expect(200, 'post /vehicles/{vehicleId}/commands/charging-stop', { params: vehicle });
    assert.equal((await api.expect(200, 'get /users/{userId}/vehicles/{vehicleId}/commands', { params: vehicle, query: '?state=ALL' })).body.length, 1);
    await api.expect(400, 'get /users/{userId}/vehicles/{vehicleId}/commands', { params: { ...vehicle, vehicleId: 'not-a-uuid' } });
    const other = await api.expect(404, 'get /users/{userId}/vehicles/{vehicleId}/commands', { params: { ...vehicle, userId: BARE_USER } });
    assert.equal(other.body.errorCode, 'VEHICLE_NOT_FOUND');
  },
  'post /vehicles/{vehicleId}/commands/charging-stop': async (start) => {
    const api = start();
    const created = await api.expect(200, 'post /vehicles/{vehicleId}/commands/charging-stop', { params: { vehicleId: DEMO('vehicle') } });
    assert.deepEqual([created.body.state, created.body.type, created.body.userId], ['PENDING', 'CHARGING_STOP', DEMO_USER]);
    await api.expect(400, 'post /vehicles/{vehicleId}/commands/charging-stop', { params: { vehicleId: 'not-a-uuid' } });
    await api.expect(404, 'post /vehicles/{vehicleId}/commands/charging-stop', { params: { vehicleId: NO_SUCH } });
  },
  'get /users/{userId}/vehicles/{vehicleId}/image.png': pictureProbe('vehicle', 'vehicles', 'vehicleId', 'VEHICLE_NOT_FOUND'),
  'get /users/{userId}/hvacs/{hvacId}/image.png': pictureProbe('hvac', 'hvacs', 'hvacId', 'HVAC_NOT_FOUND'),
  'get /users/{userId}/tariffs/{tariffId}': async (start) => {
    const api = start();
    await api.expect(200, 'get /users/{userId}/tariffs/{tariffId}', { params: { userId: DEMO_USER, tariffId: DEMO('tariff') } });
    const bare = await api.expect(200, 'get /users/{userId}/tariffs/{tariffId}', { params: { userId: BARE_USER, tariffId: BARE.tariff } });
    // Nothing but what the import gave, and the stamp of its static data, which the hub sets when it adds a device.
    assert.deepEqual(bare.body, { id: BARE.tariff, userId: BARE_USER, isOnline: false, staticData: { vendor: 'OSTROM', lastUpdated: '2026-11-07T05:31:56Z' } });
    await api.expect(400, 'get /users/{userId}/tariffs/{tariffId}', { params: { userId: DEMO_USER, tariffId: 'not-a-uuid' } });
    const other = await api.expect(404, 'get /users/{userId}/tariffs/{tariffId}', { params: { userId: BARE_USER, tariffId: DEMO('tariff') } });
    assert.equal(other.body.errorCode, 'TARIFF_NOT_FOUND');
  },
  'post /connections/chargers': async (start) => {
    const api = start({ pairing: new TestProber() });
    const created = await api.expect(201, 'post /connections/chargers', { query: '?theme=DARK&language=GERMAN', json: CONNECT });
    assert.match(created.body.url, /^http:\/\/hub\.test:8080\/connect\//);
    const bad = await api.expect(400, 'post /connections/chargers', { json: { redirectUrl: 'ftp://x', vendor: 'TESLA', userId: 'u'.repeat(51) } });
    assert.deepEqual(validationFields(bad), ['redirectUrl', 'userId', 'vendor']);
    assert.deepEqual(validationFields(await api.expect(400, 'post /connections/chargers', { query: '?theme=BLUE', json: CONNECT })), ['theme']);
    assert.deepEqual(validationFields(await api.expect(400, 'post /connections/chargers', { json: { ...CONNECT, vendor: 'EASEE' } })), ['vendor']);
    await api.expect(400, 'post /connections/chargers', { body: 'not json', headers: JSON_HEADERS });
    await api.expect(415, 'post /connections/chargers', { body: JSON.stringify(CONNECT), headers: { 'content-type': 'text/plain' } });
  },
  'post /connections/vehicles': async (start) => {
    const api = start();
    const car = { redirectUrl: 'https://app.example/done', vendor: 'VOLVO', userId: DEMO_USER };
    assert.equal((await api.expect(405, 'post /connections/vehicles', { json: car })).body.errorCode, 'TELEMATICS_NOT_SUPPORTED');
    api.hub.vendors.registerVendor('vehicles', 'VOLVO');
    const created = await api.expect(201, 'post /connections/vehicles', { query: '?language=FRENCH', json: { ...car, vin: 'YV1LFA2BCJ1234567' } });
    assert.match(created.body.url, /^http:\/\/hub\.test:8080\/connect\//);
    const bad = await api.expect(400, 'post /connections/vehicles', { json: { redirectUrl: 'ftp://x', vendor: 'GO_E', userId: 'u'.repeat(51), vin: 'short' } });
    assert.deepEqual(validationFields(bad), ['redirectUrl', 'userId', 'vendor', 'vin']);
    await api.expect(400, 'post /connections/vehicles', { body: 'not json', headers: JSON_HEADERS });
    await api.expect(415, 'post /connections/vehicles', { body: JSON.stringify(car), headers: { 'content-type': 'text/plain' } });
  },
  ...Object.fromEntries(([['hvacs', 'hvac', 'DAIKIN', 'GO_E'], ['home-powers', 'homePower', 'SMA', 'VOLVO'], ['tariffs', 'tariffs', 'TIBBER', 'SMA']] as const)
    .map(([path, domain, vendor, wrong]) => [`post /connections/${path}`, async (start: (options?: Record<string, unknown>) => ReturnType<Conformance['hub']>) => {
      const key = `post /connections/${path}` as OperationKey;
      const body = { redirectUrl: 'https://app.example/done', vendor, userId: DEMO_USER };
      // No driver reaches the vendor: refused, naming the vendor.
      assert.deepEqual(validationFields(await start().expect(400, key, { json: body })), ['vendor']);
      const api = start({ devicePairing: vendorsProber({ [domain]: [vendor] }) });
      const created = await api.expect(201, key, { query: '?theme=LIGHT&language=ENGLISH', json: body });
      assert.match(created.body.url, /^http:\/\/hub\.test:8080\/connect\//);
      const bad = await api.expect(400, key, { json: { redirectUrl: 'ftp://x', vendor: wrong, userId: 'u'.repeat(51) } });
      assert.deepEqual(validationFields(bad), ['redirectUrl', 'userId', 'vendor']);
      await api.expect(400, key, { body: 'not json', headers: JSON_HEADERS });
      await api.expect(415, key, { body: JSON.stringify(body), headers: { 'content-type': 'text/plain' } });
    }])),
  'get /connections/available-vendors': async (start) => {
    const api = start();
    api.hub.vendors.registerVendor('homePower', 'FRONIUS');
    api.hub.vendors.registerVendor('chargers', 'GO_E');
    const { body } = await api.expect(200, 'get /connections/available-vendors');
    assert.deepEqual(body.homePower, [{ id: 'FRONIUS', name: 'Fronius', logoUrl: 'http://hub.test:8080/logos/fronius.svg' }]);
    assert.deepEqual([body.hvac, body.chargers.length], [[], 1]);
  },
};

test('every operation answers as its document says', async (t) => {
  const documented = createTestHub();
  t.after(documented.close);
  const conformance = new Conformance(await fetchDocument(documented));
  conformanceDoc = conformance.doc;
  for (const [key, probe] of Object.entries(PROBES)) await t.test(key, (t) => probe((options) => conformance.hub(t, options)));

  // Statuses every operation shares, driven by the document itself. Sample values reach the route.
  const sample = (path: string) => Object.fromEntries([...path.matchAll(/\{(\w+)\}/g)].map(([, n]) => [n!, n === 'userId' ? DEMO_USER : NO_SUCH]));
  const operations = documentedOperations(conformance.doc);
  await t.test('413 for bodies over 64 KB, 401 with a wrong key, 429 once failures pile up, 500 when the store fails', async (t) => {
    // The limit is one failure per operation, so the 401 round ends exactly at it.
    const api = conformance.hub(t, { settings: { authFailuresPerMinute: operations.length } });
    const call = (key: OperationKey, headers?: Record<string, string>) => ({ params: sample(key.split(' ')[1]!), ...(headers ? { headers } : {}) });
    for (const key of operations.filter((key) => operationOf(conformance.doc, key)['responses']['413'])) {
      await api.expect(413, key, { ...call(key), body: OVERSIZED, headers: JSON_HEADERS });
    }
    for (const key of operations) await api.expect(401, key, call(key, { 'x-api-key': 'not-the-key' }));
    for (const key of operations) assert.ok((await api.expect(429, key, call(key))).res.headers.get('retry-after'));
    const fresh = conformance.hub(t);
    fresh.hub.store.close(); // the database is gone: every request fails inside the hub
    for (const key of operations) await fresh.expect(500, key, call(key));
  });
  await t.test('503 STORAGE_UNAVAILABLE with Retry-After for every operation that may write, while the storage refuses writes', async (t) => {
    const api = conformance.hub(t);
    const { store } = api.hub;
    // As a card turned read-only: SQLite refuses the write, and the storage is told.
    store.db.pragma('query_only = ON');
    assert.throws(() => store.storage.write(() => store.apiKeys.create('refused', 0)), /read-only/);
    for (const key of operations.filter((key) => !key.startsWith('get '))) {
      const refused = await api.expect(503, key, { params: sample(key.split(' ')[1]!), body: '{}', headers: JSON_HEADERS });
      assert.equal(refused.body.errorCode, 'STORAGE_UNAVAILABLE');
      assert.ok(refused.res.headers.get('retry-after'));
    }
  });
  await t.test('403 FORBIDDEN for every operation that may write, with a read-only key', async (t) => {
    const api = conformance.hub(t);
    const readOnly = api.hub.store.apiKeys.create('read-only', 0, { userId: DEMO_USER, readOnly: true }).key;
    for (const key of operations.filter((key) => !key.startsWith('get '))) {
      const refused = await api.expect(403, key, { params: sample(key.split(' ')[1]!), body: '{}', headers: { ...JSON_HEADERS, 'x-api-key': readOnly } });
      assert.equal(refused.body.errorCode, 'FORBIDDEN');
    }
  });

  assert.deepEqual(Object.keys(PROBES).sort(), operations, 'every operation has a probe');
  assert.deepEqual(conformance.exercisedOperations(), operations, 'every operation answered its success status');
  assert.deepEqual([...conformance.exercised].sort(), documentedResponses(conformance.doc), 'every documented status was provoked');
});

test('GET /docs is a self-contained page naming every operation, served without a key', async (t) => {
  const hub = createTestHub();
  t.after(hub.close);
  const doc = await fetchDocument(hub);
  const res = await hub.app.request('/docs');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  const html = await res.text();
  for (const key of documentedOperations(doc)) {
    const [method, path] = key.split(' ') as [string, string];
    const section = html.match(new RegExp(`<section id="${operationOf(doc, key)['operationId']}">([\\s\\S]*?)</section>`))?.[1];
    assert.ok(section, `${key}: a section named by its operationId`);
    assert.ok(section.includes(`${method.toUpperCase()}</span> <code>${path}</code>`), `${key}: method and path`);
  }
  // A table of contents reaching every operation and schema; every link lands on a section.
  const nav = html.match(/<nav>([\s\S]*?)<\/nav>/)?.[1] ?? '';
  for (const key of documentedOperations(doc)) assert.ok(nav.includes(`href="#${operationOf(doc, key)['operationId']}"`), `${key}: in the contents`);
  const targets = new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]));
  const links = [...html.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]!);
  assert.ok(links.some((id) => id.startsWith('schema-')), 'schemas are linked');
  assert.deepEqual(links.filter((id) => !targets.has(id)), [], 'every link has its target');
  // Defaults of query parameters, examples of bodies, and no markdown backticks in the text.
  const listSection = html.match(/<section id="listBatteries">([\s\S]*?)<\/section>/)?.[1] ?? html;
  assert.match(listSection, /<code>sortField<\/code>[\s\S]*?<code>&#34;USER_ID&#34;<\/code>/);
  assert.match(listSection, /<code>size<\/code>[\s\S]*?<code>10<\/code>/);
  assert.match(html, /<details><summary>Example<\/summary><pre>\{/);
  assert.doesNotMatch(html.replace(/<pre>[\s\S]*?<\/pre>/g, ''), /`/, 'inline code is rendered, not shown as backticks');
  assert.doesNotMatch(html, /<script/i);
  assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  const urls = (text: string) => text.match(/https?:\/\/[^\s"'<>)&]+/gi) ?? [];
  const examples = (html.match(/<pre>[\s\S]*?<\/pre>/g) ?? []).join('\n');
  assert.deepEqual(urls(html.replace(/<pre>[\s\S]*?<\/pre>/g, '')).filter((url) => !url.startsWith('http://hub.test:8080/')), [], 'no external URLs');
  // In examples, a partner app's own address (a pairing's redirectUrl) is on a domain reserved for examples.
  assert.deepEqual(urls(examples).filter((url) => !url.startsWith('http://hub.test:8080/') && new URL(url).hostname !== 'app.example.com'), [], 'no external URLs in examples');
});
