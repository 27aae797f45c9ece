// Conformance checks against the hub's own OpenAPI document: every response a test provokes must be
// documented for its method, path and status, and its body must match the documented schema.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
// Both are CommonJS: under NodeNext the named Ajv2020 export and `addFormats.default` are what type-check.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { createTestHub, type TestHub, type TestHubOptions } from './hub.ts';
import { DEMO_USER, demoRecords } from '../../src/demo/site.ts';

export type Json = Record<string, any>;
export type Method = 'get' | 'post' | 'delete';
/** A method and a path exactly as the document spells them: `get /batteries/{batteryId}`. */
export type OperationKey = `${Method} ${string}`;

export interface Call {
  params?: Record<string, string>;
  /** The query string, with its `?`. */
  query?: string;
  json?: unknown;
  body?: string;
  headers?: Record<string, string>;
}

export interface Checked {
  res: Response;
  /** The parsed JSON body, the PNG bytes, or '' when the response has no content. */
  body: any;
}

// ---- the household every conformance hub holds: the demo site, plus one bare device of each kind ----

const demo = demoRecords(Date.parse('2026-11-07T05:31:56Z')) as { kind: string; id: string; userId: string }[];
/** The id of the first demo device of a kind; all belong to DEMO_USER. */
export const DEMO = (kind: string): string => demo.find((r) => r.kind === kind && r.userId === DEMO_USER)!.id;
/** A well-formed id that no device has. */
export const NO_SUCH = '00000000-0000-4000-8000-000000000000';

/** Devices with only the required fields (no name, times, location, state or image): absent fields must be left out, not null. */
export const BARE_USER = 'bare-user';
export const BARE = {
  battery: 'b0000000-0000-4000-8000-000000000001', pvInverter: 'b0000000-0000-4000-8000-000000000002',
  charger: 'b0000000-0000-4000-8000-000000000003', vehicle: 'b0000000-0000-4000-8000-000000000004',
  tariff: 'b0000000-0000-4000-8000-000000000005', hvac: 'b0000000-0000-4000-8000-000000000006',
  meter: 'b0000000-0000-4000-8000-000000000007',
};
const bareRecords = [
  { kind: 'battery', id: BARE.battery, userId: BARE_USER, staticData: { vendor: 'TESLA', model: 'Powerwall 2' } },
  { kind: 'pvInverter', id: BARE.pvInverter, userId: BARE_USER, staticData: { vendor: 'ENPHASE', model: 'IQ8' } },
  { kind: 'charger', id: BARE.charger, userId: BARE_USER, staticData: { vendor: 'EASEE', model: 'Charge' } },
  { kind: 'vehicle', id: BARE.vehicle, userId: BARE_USER, staticData: { vendor: 'BMW', model: 'i4' } },
  { kind: 'tariff', id: BARE.tariff, userId: BARE_USER, staticData: { vendor: 'OSTROM' } },
  { kind: 'hvac', id: BARE.hvac, userId: BARE_USER, type: 'AC', staticData: { vendor: 'DAIKIN', model: 'Perfera' } },
  { kind: 'meter', id: BARE.meter, userId: BARE_USER, staticData: { vendor: 'SMA', model: 'Home Manager 2.0' } },
];

// ---- the document ----

export async function fetchDocument(hub: TestHub): Promise<Json> {
  const res = await hub.request('/openapi.json');
  assert.equal(res.status, 200);
  return (await res.json()) as Json;
}

export function documentedOperations(doc: Json): OperationKey[] {
  return Object.entries(doc['paths'] as Json).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => `${method as Method} ${path}` as const)).sort();
}

/** Every documented response, as `get /batteries 200`. */
export function documentedResponses(doc: Json): string[] {
  return documentedOperations(doc).flatMap((op) => Object.keys(operationOf(doc, op)['responses']).map((s) => `${op} ${s}`)).sort();
}

export function operationOf(doc: Json, key: OperationKey): Json {
  const [method, path] = key.split(' ') as [Method, string];
  const operation = doc['paths'][path]?.[method];
  assert.ok(operation, `${key} is not in the document`);
  return operation;
}

/** The body of a `$ref` to `#/components/schemas/X`, or the schema itself. */
export function resolve(doc: Json, schema: Json): Json {
  const ref = schema['$ref'] as string | undefined;
  return ref ? doc['components']['schemas'][ref.replace('#/components/schemas/', '')] : schema;
}

/** Fills `{name}` placeholders; every one must be given. */
export function fillPath(path: string, params: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    assert.ok(name in params, `no value for path parameter ${name}`);
    return encodeURIComponent(params[name]!);
  });
}

export interface ConformingHub {
  hub: TestHub;
  /** Sends the call, asserts the status, and checks the response against the document. */
  expect(status: number, key: OperationKey, call?: Call): Promise<Checked>;
}

/** A schema of the document with its component refs pointing into the schema registered with Ajv. */
function linkedSchema(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"openapi:components#/$defs/')) as Json;
}

export class Conformance {
  /** `get /batteries 200` for every response checked so far. */
  readonly exercised = new Set<string>();
  private readonly ajv = new Ajv2020({ allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  /** The document with component refs pointing into the one schema registered with Ajv. */
  private readonly linked: Json;

  constructor(readonly doc: Json) {
    addFormats.default(this.ajv);
    // OpenAPI's own extension: a field the hub adds to the contract's shapes (decisions §5).
    this.ajv.addKeyword('x-hub-addition');
    this.linked = linkedSchema(doc);
    this.ajv.addSchema({ $id: 'openapi:components', $defs: this.linked['components']['schemas'] });
  }

  /** A hub seeded with the household and closed after `t`, whose answers are checked. */
  hub(t: TestContext, options?: TestHubOptions): ConformingHub {
    const hub = createTestHub(options);
    t.after(hub.close);
    hub.seed([...demo, ...bareRecords]);
    return { hub, expect: (status, key, call) => this.expect(hub, status, key, call) };
  }

  /** Sends the call, asserts the status, and checks the response against the document. */
  async expect(hub: TestHub, status: number, key: OperationKey, call: Call = {}): Promise<Checked> {
    const [method, path] = key.split(' ') as [Method, string];
    const res = await hub.request(fillPath(path, call.params) + (call.query ?? ''), {
      method: method.toUpperCase(),
      ...(call.json !== undefined ? { json: call.json } : {}),
      ...(call.body !== undefined ? { body: call.body } : {}),
      ...(call.headers ? { headers: call.headers } : {}),
    });
    if (res.status !== status) assert.fail(`${key}: expected ${status}, got ${res.status}: ${await res.text()}`);
    const documented = operationOf(this.linked, key)['responses'][String(status)] as Json | undefined;
    assert.ok(documented, `${key} answered ${status}, which its document does not list`);
    this.exercised.add(`${key} ${status}`);

    const content = (documented['content'] ?? {}) as Json;
    for (const header of Object.keys(documented['headers'] ?? {})) assert.ok(res.headers.has(header), `${key} ${status}: no ${header} header`);
    let body: any = '';
    if (content['application/json']) {
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      body = await res.json();
      this.assertValid(`${key} ${status}`, content['application/json']['schema'], body);
      if (status >= 400) this.assertErrorCode(key, status, documented, body);
    } else if (content['image/png']) {
      assert.equal(res.headers.get('content-type'), 'image/png');
      body = Buffer.from(await res.arrayBuffer());
    } else {
      assert.equal(Object.keys(content).length, 0, `${key} ${status}: unchecked content type`);
      assert.equal(await res.text(), '', `${key} ${status} is documented without content`);
    }
    const request = operationOf(this.linked, key)['requestBody']?.content?.['application/json']?.schema;
    if (status < 300 && request && call.json !== undefined) this.assertValid(`${key} request`, request, call.json);
    return { res, body };
  }

  /** The operations whose success response was checked. */
  exercisedOperations(): OperationKey[] {
    const ops = [...this.exercised].filter((r) => /\s2\d\d$/.test(r)).map((r) => r.replace(/\s\d+$/, '') as OperationKey);
    return [...new Set(ops)].sort();
  }

  /** Asserts that `value` matches `schema` (a schema of the document, its component refs resolved). */
  assertValid(label: string, schema: Json, value: unknown): void {
    let validate = this.validators.get(label);
    if (!validate) this.validators.set(label, (validate = this.ajv.compile(linkedSchema(schema))));
    if (!validate(value)) assert.fail(`${label} does not match the document: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`);
  }

  /** The error code is one the document names for this status; not-found messages carry their tag. */
  private assertErrorCode(key: OperationKey, status: number, documented: Json, body: Json): void {
    const codes = String(documented['description']).split(', ');
    assert.ok(codes.includes(body['errorCode']), `${key} ${status}: ${body['errorCode']} is not among ${codes.join(', ')}`);
    if (status === 400) assert.ok(body['validationErrors']?.length > 0, `${key} 400 without validationErrors`);
    if (/_NOT_FOUND$/.test(body['errorCode'])) assert.match(body['message'], /^\[[A-Z_]+\] /);
  }
}
