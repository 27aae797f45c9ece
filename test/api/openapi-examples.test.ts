// The examples of the OpenAPI document (and of /docs) are real answers: each matches its own schema,
// they agree with each other and with what the contract implies (a command's type is its
// operation's, a charger is plugged unless UNPLUGGED), and the URLs in them are ones the hub serves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestHub } from '../support/hub.ts';
import { Conformance, fetchDocument, type Json } from '../support/openapi.ts';
import { VendorCatalog } from '../../src/domain/vendors.ts';
import { CHARGER_COMMAND_TYPES, HVAC_COMMAND_TYPES, VEHICLE_COMMAND_TYPES } from '../../src/domain/vocabulary.ts';
import { EXAMPLE_HVAC_OFFERS, operationExamples } from '../../src/api/examples.ts';
import { ebusdVaillantZone } from '../../drivers/mqtt/ebusd-vaillant.ts';
import { DEMO_USER } from '../../src/demo/site.ts';
import { builtInHttpDrivers } from '../../drivers/http/index.ts';
import { builtInMqttDrivers } from '../../drivers/mqtt/index.ts';
import { TestProber, vendorsProber } from '../support/pairing.ts';

function hubWithVendors() {
  const vendors = new VendorCatalog();
  for (const [domain, code] of [['chargers', 'GO_E'], ['chargers', 'ZAPTEC'], ['homePower', 'FRONIUS'], ['homePower', 'SMA'], ['hvac', 'VAILLANT'], ['hvac', 'DAIKIN'], ['vehicles', 'TESLA'], ['tariffs', 'TIBBER']] as const) {
    vendors.registerVendor(domain, code);
  }
  return createTestHub({ vendors, pairing: new TestProber(), devicePairing: vendorsProber() });
}

interface Example {
  where: string;
  operationId: string;
  path: string;
  schema: Json;
  value: any;
}

/** Every example of the document: success bodies and request bodies, with their schemas. */
function examplesOf(doc: Json): Example[] {
  const out: Example[] = [];
  for (const [path, methods] of Object.entries(doc['paths'] as Json)) {
    for (const [method, op] of Object.entries(methods as Json) as [string, Json][]) {
      const body = op['requestBody']?.content?.['application/json'];
      if (body?.example !== undefined) out.push({ where: `${method} ${path} request`, operationId: op['operationId'], path, schema: body.schema, value: body.example });
      for (const [status, response] of Object.entries(op['responses'] as Json) as [string, Json][]) {
        const content = response['content']?.['application/json'];
        if (content?.example !== undefined) out.push({ where: `${method} ${path} ${status}`, operationId: op['operationId'], path, schema: content.schema, value: content.example });
      }
    }
  }
  return out;
}

/** Every object inside a value (the value itself included). */
function objectsIn(value: unknown): Json[] {
  if (Array.isArray(value)) return value.flatMap(objectsIn);
  if (value === null || typeof value !== 'object') return [];
  return [value as Json, ...Object.values(value).flatMap(objectsIn)];
}

function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

test('every JSON answer and request body of the document has an example, and each matches its own schema', async (t) => {
  const hub = hubWithVendors();
  t.after(hub.close);
  const doc = await fetchDocument(hub);
  const conformance = new Conformance(doc);
  const examples = examplesOf(doc);
  const missing: string[] = [];
  for (const op of hub.operations) {
    const documented = examples.filter((e) => e.operationId === op.operationId).map((e) => e.where.split(' ').pop());
    if (op.success.schema && !documented.includes(String(op.success.status))) missing.push(`${op.operationId}: no example of its answer`);
    if (op.body) {
      const example = examples.find((e) => e.operationId === op.operationId && e.where.endsWith('request'));
      if (!example) missing.push(`${op.operationId}: no example of its request body`);
      else assert.ok(op.body.safeParse(example.value).success, `${op.operationId}: the request example is one the hub accepts`);
    }
  }
  assert.deepEqual(missing, [], 'every operation has its examples');
  for (const example of examples) conformance.assertValid(example.where, example.schema, example.value);
});

/** The command types of the kind a path is about, and the path segment that names it. */
const COMMAND_KINDS = [['hvacs', HVAC_COMMAND_TYPES], ['chargers', CHARGER_COMMAND_TYPES], ['vehicles', VEHICLE_COMMAND_TYPES]] as const;
const kindOf = (path: string) => COMMAND_KINDS.find(([segment]) => path.split('/').includes(segment))!;

test('the examples agree with the contract and with each other', async (t) => {
  const hub = hubWithVendors();
  t.after(hub.close);
  const doc = await fetchDocument(hub);
  const examples = examplesOf(doc);
  let commands = 0;
  const plugStates: string[] = [];
  // The example devices of each kind: the ids in the examples of its paths other than commands.
  const deviceIds = (segment: string) => new Set(examples.filter((e) => e.path.split('/').includes(segment) && !e.path.includes('commands'))
    .flatMap((e) => objectsIn(e.value)).map((o) => o['id']).filter((id) => id !== undefined));

  for (const example of examples) {
    for (const object of objectsIn(example.value)) {
      // A command (its own type, state and device): the type is its operation's and its device kind's, the device that kind's example.
      if (typeof object['type'] === 'string' && 'state' in object && 'deviceId' in object) {
        commands++;
        const segment = example.path.split('/').pop()!;
        if (segment !== 'commands') assert.ok(object['type'].toLowerCase().replaceAll('_', '-').endsWith(segment), `${example.where}: a ${object['type']} command`);
        const [kind, types] = kindOf(example.path);
        assert.ok((types as readonly string[]).includes(object['type']), `${example.where}: ${object['type']} is no command of the ${kind}`);
        assert.ok(deviceIds(kind).has(object['deviceId']), `${example.where}: the command's device is the example of the ${kind}`);
        assert.equal(object['state'] === 'FAILED', typeof object['failedReason'] === 'string', `${example.where}: a ${object['state']} command, failedReason ${object['failedReason']}`);
      }
      // A charger's or vehicle's charge state: plugged unless UNPLUGGED.
      if (typeof object['isPlugged'] === 'boolean' && typeof object['chargingState'] === 'string') {
        plugStates.push(example.path);
        assert.equal(object['isPlugged'], object['chargingState'] !== 'UNPLUGGED', `${example.where}: isPlugged ${object['isPlugged']} with ${object['chargingState']}`);
      }
    }
  }
  assert.ok(commands >= 20, `checked ${commands} command examples`);
  assert.ok(plugStates.some((p) => p.includes('chargers')) && plugStates.some((p) => p.includes('vehicles')), `checked the plug state of ${plugStates.join(', ')}`);

  // The mode commands ask for a mode the example HVAC takes, and it shows the mode it is in among them.
  const hvac = examples.find((e) => e.operationId === 'getUserHvac')!.value;
  const capable: string[] = hvac.staticData.capableModes;
  assert.ok(capable.length > 0 && capable.includes(hvac.climateState.mode), `the HVAC is in ${hvac.climateState.mode} of ${capable}`);
  for (const request of examples.filter((e) => e.operationId.endsWith('HvacMode') && e.where.endsWith('request'))) {
    assert.ok(capable.includes(request.value.mode), `${request.where}: ${request.value.mode} is a mode of the example HVAC (${capable})`);
  }

  // Consumption costs what its hour's price says (the prices are hourly, so each hour has one).
  const prices: { startDate: string; totalPrice: number }[] = examples.find((e) => e.operationId === 'getTariffPrices')!.value;
  const hours: { startDate: string; consumption: number; cost?: number }[] = examples.find((e) => e.operationId === 'getTariffConsumption')!.value.content;
  assert.ok(hours.length > 0 && hours.every((h) => h.cost !== undefined));
  for (const hour of hours) {
    const price = prices.filter((p) => p.startDate <= hour.startDate).at(-1);
    assert.ok(price, `a price is in force at ${hour.startDate}`);
    assert.equal(hour.cost, Math.round(hour.consumption * price.totalPrice * 10_000) / 10_000, `the cost of the hour from ${hour.startDate}`);
  }
});

test('the example HVAC offers what the ebusd driver of a Vaillant zone really offers (as MqttRuntime.commandShape tells it)', () => {
  const driver = new Map(Object.entries(ebusdVaillantZone.commands ?? {}).map(([type, spec]) => [type, { value: spec.value, stateField: spec.confirm.by === 'state' ? spec.confirm.field : undefined }]));
  assert.deepEqual(new Map(EXAMPLE_HVAC_OFFERS), driver);
});

test('every example is of an operation the hub serves, and the two levels of an operation show the same one', async (t) => {
  const hub = hubWithVendors();
  t.after(hub.close);
  const examples = operationExamples('http://hub.local', new VendorCatalog(), []);
  const served = new Set(hub.operations.map((op) => op.operationId));
  assert.deepEqual(Object.keys(examples).filter((id) => !served.has(id)), []);
  // The user-level form of an operation is the one at /users/{userId} followed by its path.
  const byPath = new Map(hub.operations.map((op) => [`${op.method} ${op.path}`, op.operationId]));
  let pairs = 0;
  for (const op of hub.operations) {
    const userForm = byPath.get(`${op.method} /users/{userId}${op.path}`);
    if (userForm === undefined) continue;
    pairs++;
    assert.deepEqual(examples[userForm], examples[op.operationId], `${op.operationId} and ${userForm}`);
  }
  assert.ok(pairs >= 20, `compared ${pairs} pairs`);
});

test('the URLs in the examples are ones the hub serves: its logos, and pairing pages shaped like a real session\'s', async (t) => {
  const hub = hubWithVendors();
  t.after(hub.close);
  const doc = await fetchDocument(hub);
  const base = String(doc['servers'][0].url).replace(/\/v1\.0\.0$/, '');
  const examples = examplesOf(doc);
  const urls = examples.filter((e) => !e.where.endsWith('request')).flatMap((e) => stringsIn(e.value)).filter((s) => /^https?:\/\//.test(s));
  assert.ok(urls.length > 0);
  const connect = examples.find((e) => e.operationId === 'connectCharger' && !e.where.endsWith('request'))!;
  const request = examples.find((e) => e.operationId === 'connectCharger' && e.where.endsWith('request'))!;
  // A real session, started with the request example itself.
  const res = await hub.request('/connections/chargers', { method: 'POST', json: { ...request.value, userId: DEMO_USER } });
  assert.equal(res.status, 201);
  const real = (await res.json()) as { url: string };
  const shape = (url: string) => url.replace(/[A-Za-z0-9_-]{32}$/, '<token>');
  assert.equal(shape(connect.value.url), shape(real.url));
  assert.match(real.url, /\/connect\/[A-Za-z0-9_-]{32}$/);
  assert.equal((await hub.app.request(new URL(real.url).pathname)).status, 200, 'the real session\'s page is served');
  for (const url of urls) {
    assert.ok(url.startsWith(`${base}/`), `${url} is on the hub`);
    if (url === connect.value.url) continue;
    const answer = await hub.app.request(url.slice(base.length));
    assert.equal(answer.status, 200, `${url} is served`);
  }
  const logos = urls.filter((u) => u.includes('/logos/'));
  assert.ok(logos.length >= 6, 'every registered vendor has its logo in the example');
});

test('/docs shows the real examples: the charging-stop answer is a CHARGING_STOP, no URL ends in /done', async (t) => {
  const hub = hubWithVendors();
  t.after(hub.close);
  const html = await (await hub.app.request('/docs')).text();
  const section = (id: string) => html.slice(html.indexOf(`<section id="${id}">`), html.indexOf('</section>', html.indexOf(`<section id="${id}">`)));
  assert.match(section('stopVehicleCharging'), /&#34;type&#34;: &#34;CHARGING_STOP&#34;/);
  assert.doesNotMatch(section('stopVehicleCharging'), /SET_TEMPERATURE/);
  assert.match(section('getCharger'), /&#34;isPlugged&#34;: true,\s*&#34;activePhases&#34;: 3,\s*&#34;chargingState&#34;: &#34;CHARGING&#34;/);
  assert.doesNotMatch(html, /\/done&#34;/);
});

test('the example mode of setHvacMode is one every HVAC driver takes, so it works on any unit a partner tries it on (the demo\'s Daikin AC refused REDUCED)', () => {
  const example = operationExamples('http://hub.local', new VendorCatalog(), [])['setHvacMode']?.request as { mode: string };
  const modeMaps: Array<[string, Record<string, unknown>]> = [];
  const collect = (name: string, commands: Record<string, { value?: unknown }> | undefined) => {
    const value = commands?.['SET_MODE']?.value as { from?: string; map?: Record<string, unknown> } | undefined;
    if (value?.from === 'payload-enum' && value.map) modeMaps.push([name, value.map]);
  };
  for (const definition of builtInHttpDrivers().all()) collect(definition.type, definition.commands as never);
  for (const definition of builtInMqttDrivers().all()) if (definition.kinds.includes('hvac')) collect(definition.type, definition.commands as never);
  assert.ok(modeMaps.length >= 4, `HVAC drivers with modes found: ${modeMaps.map(([name]) => name).join(', ')}`);
  for (const [name, map] of modeMaps) assert.ok(example.mode in map, `${name} takes ${example.mode}`);
});
