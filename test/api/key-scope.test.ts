// Keys with a scope (decisions.md §6), walked over every operation of the OpenAPI document against two
// households: the demo household (the keys' own) and the bare one (another). A scoped key answers for
// its own household exactly as the partner's key does; for the other it finds nothing, exactly as for
// a device or user that does not exist. A read-only key reads the same, and every write is 403.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { DEMO_USER } from '../../src/demo/site.ts';
import {
  BARE, BARE_USER, Conformance, DEMO, NO_SUCH, documentedOperations, fetchDocument, fillPath,
  type Json, type Method, type OperationKey,
} from '../support/openapi.ts';
import { createTestHub, type TestHub } from '../support/hub.ts';
import { TestProber, vendorsProber } from '../support/pairing.ts';

const OWN = DEMO_USER;
const OTHER = BARE_USER;
/** A user no device belongs to: what another household must look like to a scoped key. */
const NOBODY = 'nobody-lives-here';
const ID_KIND: Record<string, keyof typeof BARE> = {
  batteryId: 'battery', chargerId: 'charger', hvacId: 'hvac', meterId: 'meter', pvInverterId: 'pvInverter', tariffId: 'tariff', vehicleId: 'vehicle',
};
const REDIRECT = 'https://app.example/done';

/** A valid body for each writing operation, by what its path ends in. */
function bodyOf(path: string, userId = OWN): unknown {
  const last = path.split('/').at(-1)!;
  const bodies: Record<string, unknown> = {
    'charging-current': { amps: 16 },
    'charging-phases': { phases: 1 },
    temperature: { temperature: 21 },
    mode: { mode: 'HEAT' },
    'charging-schedule': { schedules: [{ type: 'CHARGE', days: ['MONDAY'], start: '22:00' }] },
    schedule: { schedules: [{ mode: 'HEAT', start: { time: '06:30', day: 'MONDAY' } }] },
    chargers: { redirectUrl: REDIRECT, vendor: 'GO_E', userId },
    vehicles: { redirectUrl: REDIRECT, vendor: 'VOLVO', userId },
    hvacs: { redirectUrl: REDIRECT, vendor: 'DAIKIN', userId },
    'home-powers': { redirectUrl: REDIRECT, vendor: 'SMA', userId },
    tariffs: { redirectUrl: REDIRECT, vendor: 'TIBBER', userId },
  };
  return bodies[last];
}

type Device = 'own' | 'other' | 'none';

/** The path's parameters: the device of the household named (or no device at all), and the path's userId. */
function paramsOf(path: string, device: Device, userId: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
    const kind = ID_KIND[name!];
    out[name!] = name === 'userId' ? userId : device === 'own' ? DEMO(kind!) : device === 'other' ? BARE[kind!] : NO_SUCH;
  }
  return out;
}

interface Scoped {
  hub: TestHub;
  scoped: string;
  readOnly: string;
}

/** A fresh hub with both households, a key scoped to the own one and a read-only one. */
function scopedHub(conformance: Conformance, t: TestContext): Scoped {
  const { hub } = conformance.hub(t, { pairing: new TestProber(), devicePairing: vendorsProber() });
  hub.vendors.registerVendor('vehicles', 'VOLVO');
  const scoped = hub.store.apiKeys.create('kitchen-tablet', 0, { userId: OWN, readOnly: false }).key;
  const readOnly = hub.store.apiKeys.create('wall-display', 0, { userId: OWN, readOnly: true }).key;
  return { hub, scoped, readOnly };
}

/** Sends an operation with a key; the answer is checked against the document when `status` is given. */
async function call(
  conformance: Conformance, hub: TestHub, key: string, op: OperationKey, params: Record<string, string>, extra: { query?: string; json?: unknown; status?: number } = {},
): Promise<{ status: number; body: any }> {
  const headers = { 'x-api-key': key };
  if (extra.status !== undefined) {
    const { res, body } = await conformance.expect(hub, extra.status, op, { params, headers, ...(extra.query ? { query: extra.query } : {}), ...(extra.json !== undefined ? { json: extra.json } : {}) });
    return { status: res.status, body };
  }
  const [method, path] = op.split(' ') as [Method, string];
  const res = await hub.request(fillPath(path, params) + (extra.query ?? ''), { method: method.toUpperCase(), headers, ...(extra.json !== undefined ? { json: extra.json } : {}) });
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, body: type.startsWith('application/json') ? await res.json() : Buffer.from(await res.arrayBuffer()) };
}

/** An error body without what differs between two occurrences: its id, and the device id in its message. */
function sameness(body: Json, id?: string): unknown {
  if (Buffer.isBuffer(body) || !body['errorCode']) return body;
  const { id: _occurrence, ...rest } = body;
  return id ? { ...rest, message: String(rest['message']).replace(id, '<id>') } : rest;
}

/** Nothing of the other household changed: its devices are all there, without commands. */
function otherUntouched(hub: TestHub, label: string): void {
  for (const id of Object.values(BARE)) {
    assert.ok(hub.store.devices.get(id), `${label}: ${id} of the other household still exists`);
    assert.equal(hub.store.commands.ofDeviceId(id, 'ALL').length, 0, `${label}: no command for ${id}`);
  }
}

test('a scoped key reaches its own household as the partner does, the other as nothing; a read-only key writes nothing', async (t) => {
  const documented = createTestHub();
  t.after(documented.close);
  const conformance = new Conformance(await fetchDocument(documented));
  // The households of the conformance suite: the demo site and the bare one.
  const probe = conformance.hub(t);
  assert.deepEqual([...new Set(probe.hub.store.devices.all().map((d) => d.userId))].sort(), [OTHER, OWN].sort());

  const operations = documentedOperations(conformance.doc);
  const walked = new Set<OperationKey>();
  for (const op of operations) {
    const [method, path] = op.split(' ') as [Method, string];
    const hasUser = path.includes('{userId}');
    const deviceParam = Object.keys(ID_KIND).find((name) => path.includes(`{${name}}`));
    await t.test(op, async (t) => {
      if (method === 'get') {
        const { hub, scoped, readOnly } = scopedHub(conformance, t);
        // Own household: the partner's answer, to the byte.
        const own = paramsOf(path, 'own', OWN);
        const partner = await call(conformance, hub, hub.key, op, own);
        const mine = await call(conformance, hub, scoped, op, own, { status: partner.status });
        if (deviceParam || hasUser) assert.deepEqual(sameness(mine.body), sameness(partner.body), `${op}: own household as the partner sees it`);
        else await partnerLevel(conformance, hub, scoped, op, partner.body);
        // A read: the read-only key gets the same.
        const reading = await call(conformance, hub, readOnly, op, own, { status: partner.status });
        assert.deepEqual(sameness(reading.body), sameness(mine.body), `${op}: read-only reads as scoped`);
        await foreign(conformance, hub, scoped, op, path, hasUser, deviceParam);
        await foreign(conformance, hub, readOnly, op, path, hasUser, deviceParam);
        otherUntouched(hub, op);
      } else {
        // Writes: each on a fresh hub, so that the partner's and the scoped key's start alike.
        const own = paramsOf(path, 'own', OWN);
        const json = bodyOf(path);
        const partnerHub = scopedHub(conformance, t);
        const partner = await call(conformance, partnerHub.hub, partnerHub.hub.key, op, own, { json });
        assert.ok(partner.status >= 200 && partner.status < 300, `${op}: the partner's write succeeds (${partner.status})`);

        const { hub, scoped, readOnly } = scopedHub(conformance, t);
        await foreign(conformance, hub, scoped, op, path, hasUser, deviceParam);
        otherUntouched(hub, op);
        const mine = await call(conformance, hub, scoped, op, own, { json, status: partner.status });
        if (deviceParam) {
          const id = own[deviceParam]!;
          if (method === 'delete') assert.equal(hub.store.devices.get(id), undefined, `${op}: the own device deleted`);
          else assert.equal(hub.store.commands.ofDeviceId(id, 'ALL').length, 1, `${op}: one command stored`);
        } else {
          assert.match(mine.body.url, /\/connect\//, `${op}: a session for the own household`);
        }

        const quiet = scopedHub(conformance, t);
        for (const [device, userId] of [['own', OWN], ['other', OTHER], ['none', OWN]] as const) {
          const refused = await call(conformance, quiet.hub, quiet.readOnly, op, paramsOf(path, device, userId), { json: bodyOf(path, userId), status: 403 });
          assert.equal(refused.body.errorCode, 'FORBIDDEN');
        }
        for (const id of Object.values(BARE).concat(deviceParam ? [own[deviceParam]!] : [])) {
          assert.ok(quiet.hub.store.devices.get(id), `${op}: read-only deleted nothing`);
          assert.equal(quiet.hub.store.commands.ofDeviceId(id, 'ALL').length, 0, `${op}: read-only stored no command`);
        }
      }
      walked.add(op);
    });
  }
  assert.deepEqual([...walked].sort(), operations, 'every operation of the document was walked');
});

/**
 * A partner-level list holds the own household's devices only, with totals counted over them; the
 * `userId` filter cannot reach past the scope. Other partner-level reads answer as the partner's.
 */
async function partnerLevel(conformance: Conformance, hub: TestHub, key: string, op: OperationKey, partnerBody: Json): Promise<void> {
  if (!Array.isArray(partnerBody['content'])) {
    const mine = await call(conformance, hub, key, op, {}, { status: 200 });
    assert.deepEqual(mine.body, partnerBody, `${op}: as the partner sees it`);
    return;
  }
  const all = await call(conformance, hub, hub.key, op, {}, { query: '?size=100' });
  const ownIds = (all.body.content as Json[]).filter((d) => d['userId'] === OWN).map((d) => d['id']);
  assert.ok(ownIds.length > 0 && ownIds.length < all.body.content.length, `${op}: both households have some`);
  const mine = await call(conformance, hub, key, op, {}, { query: '?size=100', status: 200 });
  assert.deepEqual(mine.body.content.map((d: Json) => d['id']), ownIds, `${op}: the own household only`);
  assert.equal(mine.body.totalElements, ownIds.length);
  const paged = await call(conformance, hub, key, op, {}, { query: '?size=1', status: 200 });
  assert.deepEqual([paged.body.totalElements, paged.body.totalPages], [ownIds.length, ownIds.length]);
  const filtered = await call(conformance, hub, key, op, {}, { query: `?userId=${OTHER}`, status: 200 });
  assert.deepEqual([filtered.body.content, filtered.body.totalElements], [[], 0], `${op}: the userId filter stays inside the scope`);
}

/**
 * Every way to name the other household: its device on a partner-level path, on its own user's path,
 * or under the own user; the own device under the other user; the other user's lists and curves.
 * Each answers exactly as a device or user that does not exist does.
 */
async function foreign(conformance: Conformance, hub: TestHub, key: string, op: OperationKey, path: string, hasUser: boolean, deviceParam: string | undefined): Promise<void> {
  const [method] = op.split(' ') as [Method];
  if (!deviceParam && !hasUser) {
    if (method === 'post') {
      // A connect session for another user: refused, whether or not that user has devices.
      for (const userId of [OTHER, NOBODY]) {
        const refused = await call(conformance, hub, key, op, {}, { json: bodyOf(path, userId), status: 400 });
        assert.deepEqual(refused.body.validationErrors.map((e: Json) => e['field']), ['userId'], `${op} for ${userId}`);
      }
    }
    return;
  }
  if (!deviceParam) {
    // The other user's list or curves: what a user without devices gets.
    const theirs = await call(conformance, hub, key, op, paramsOf(path, 'none', OTHER));
    const nobody = await call(conformance, hub, key, op, paramsOf(path, 'none', NOBODY), { status: theirs.status });
    assert.equal(theirs.status, 200);
    assert.deepEqual({ ...theirs.body, userId: null }, { ...nobody.body, userId: null }, `${op}: the other household as nobody`);
    if (Array.isArray(theirs.body.content)) assert.equal(theirs.body.totalElements, 0);
    return;
  }
  const variants: [Device, string][] = hasUser ? [['other', OTHER], ['other', OWN], ['own', OTHER]] : [['other', OWN]];
  for (const [device, userId] of variants) {
    const params = paramsOf(path, device, userId);
    const json = bodyOf(path);
    const theirs = await call(conformance, hub, key, op, params, { json, status: 404 });
    const missing = await call(conformance, hub, key, op, { ...params, [deviceParam]: NO_SUCH }, { json, status: 404 });
    assert.equal(theirs.body.errorCode, `${ID_KIND[deviceParam] === 'pvInverter' ? 'PV_INVERTER' : ID_KIND[deviceParam]!.toUpperCase()}_NOT_FOUND`);
    assert.deepEqual(sameness(theirs.body, params[deviceParam]), sameness(missing.body, NO_SUCH), `${op} ${device} device under ${userId}: as a missing one`);
  }
}
