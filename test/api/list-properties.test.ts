// Property-based tests of the list endpoints (decisions §2, "List queries"): random device sets and
// random queries go through the real API, and each answer is compared with a plain in-memory model
// written here independently of the store (filter, sort, slice).
//
// A failing run prints its seed; replay it with FC_SEED=<seed> (and FC_PATH=<path> if given).
// FC_RUNS_FACTOR=<n> multiplies the number of runs, for a longer search.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createTestHub, type TestHub } from '../support/hub.ts';

// ---------------------------------------------------------------------------------------------
// The model's own vocabulary (deliberately not imported from src/)

type Kind = 'battery' | 'hvac' | 'pvInverter' | 'meter';
type SortField = 'USER_ID' | 'VENDOR' | 'IS_ONLINE' | 'LAST_UPDATED';
type SortOrder = 'ASC' | 'DESC';

const BATTERY_VENDORS = ['FRONIUS', 'SMA', 'HUAWEI', 'TESLA'] as const;
const BATTERY_FILTER_VENDORS = [...BATTERY_VENDORS, 'ENPHASE'] as const;
const HOME_POWER_VENDORS = ['FRONIUS', 'SMA', 'HUAWEI', 'TESLA', 'ENPHASE'] as const;
const HVAC_VENDORS = ['VIESSMANN', 'DAIKIN', 'VAILLANT'] as const;
const CHARGING_STATES = ['CHARGING', 'DISCHARGING', 'IDLE', 'FAULT'] as const;
const HVAC_TYPES = ['AC', 'HEATING_CIRCUIT', 'DHW', 'THERMOSTAT'] as const;
const SUBSCRIPTION_SORT_FIELDS = ['USER_ID', 'VENDOR', 'IS_ONLINE', 'LAST_UPDATED'] as const;
const USER_SORT_FIELDS = ['VENDOR', 'IS_ONLINE', 'LAST_UPDATED'] as const;

/**
 * Epoch ms around which every lastUpdated and every bound is drawn, 500 ms apart, so ties are common
 * and half the devices are imported with a fraction of a second (which the hub drops, see keptMs).
 */
const BASE_MS = Date.parse('2026-11-07T05:00:00Z');
const STEP_MS = 500;

interface Device {
  kind: Kind;
  /** The id in lower case, as the hub keeps it. */
  id: string;
  /** The id as the import file gives it: sometimes in upper case (UUIDs are case-insensitive). */
  importedId: string;
  userId: string;
  isOnline: boolean;
  lastUpdatedMs: number | null;
  vendor: string;
  name: string | null;
  model: string;
  /** Batteries only; undefined when the record has no chargeState.chargingState. */
  chargingState?: string;
  /** HVACs only. */
  type?: string;
}

/** An instant sent as a bound: `ms` whole milliseconds, plus a positive part finer than that when `finer`. */
interface Bound {
  ms: number;
  finer: boolean;
  text: string;
}

/** A subscription list query as the test means it; '' stands for a parameter sent empty. */
interface SubscriptionQuery {
  uuid?: string;
  userId?: string;
  isOnline?: boolean | '';
  name?: string;
  model?: string;
  vendor?: string;
  lastUpdatedFrom?: Bound | '';
  lastUpdatedTo?: Bound | '';
  chargingState?: string;
  type?: string;
  sortField?: SortField | '';
  sortOrder?: SortOrder | '';
  page?: number | '';
  size?: number | '';
}

interface UserQuery {
  owner: string;
  sortField?: SortField | '';
  sortOrder?: SortOrder | '';
  page?: number | '';
  size?: number | '';
  /** Parameters the user lists do not know; they must be ignored. */
  ignored: Record<string, string>;
}

// ---------------------------------------------------------------------------------------------
// The reference model

const present = <T>(value: T | '' | undefined): value is T => value !== undefined && value !== '';

function contains(haystack: string, needle: string): boolean {
  return haystack.toLowerCase().includes(needle.toLowerCase());
}

/** Compares strings by Unicode code points, as SQLite's BINARY collation does on UTF-8. */
function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/**
 * The time the hub keeps and shows for a device: whole seconds, any fraction given on import dropped
 * (decisions §2: timestamps in `2026-11-07T05:31:56Z` style). The bounds compare this very time, so
 * that a device shown as 05:31:56Z is within `lastUpdatedTo=…05:31:56Z`.
 */
function keptMs(d: Device): number | null {
  return d.lastUpdatedMs === null ? null : d.lastUpdatedMs - (d.lastUpdatedMs % 1000);
}

/** Inclusive bounds, compared exactly; a device without lastUpdated is within no bound. */
function atOrAfter(ms: number | null, bound: Bound): boolean {
  return ms !== null && (ms > bound.ms || (ms === bound.ms && !bound.finer));
}
function atOrBefore(ms: number | null, bound: Bound): boolean {
  return ms !== null && ms <= bound.ms;
}

function sortKeyCompare(field: SortField, a: Device, b: Device): number {
  switch (field) {
    case 'USER_ID':
      return compareCodePoints(a.userId, b.userId);
    case 'VENDOR':
      return compareCodePoints(a.vendor, b.vendor);
    case 'IS_ONLINE':
      return Number(a.isOnline) - Number(b.isOnline);
    case 'LAST_UPDATED': {
      // No lastUpdated sorts before every value (SQLite: NULL is the smallest).
      const [x, y] = [keptMs(a), keptMs(b)];
      if (x === null || y === null) return (x === null ? 0 : 1) - (y === null ? 0 : 1);
      return x - y;
    }
  }
}

function sortDevices(devices: Device[], field: SortField, order: SortOrder): Device[] {
  const sign = order === 'ASC' ? 1 : -1;
  return [...devices].sort((a, b) => sign * (sortKeyCompare(field, a, b) || compareCodePoints(a.id, b.id)));
}

function subscriptionMatches(device: Device, kind: 'battery' | 'hvac', q: SubscriptionQuery): boolean {
  if (device.kind !== kind) return false;
  if (present(q.uuid) && device.id !== q.uuid.toLowerCase()) return false;
  if (present(q.userId) && !contains(device.userId, q.userId)) return false;
  if (present(q.name) && (device.name === null || !contains(device.name, q.name))) return false;
  if (present(q.model) && !contains(device.model, q.model)) return false;
  if (present(q.isOnline) && device.isOnline !== q.isOnline) return false;
  if (present(q.vendor) && device.vendor !== q.vendor) return false;
  if (present(q.lastUpdatedFrom) && !atOrAfter(keptMs(device), q.lastUpdatedFrom)) return false;
  if (present(q.lastUpdatedTo) && !atOrBefore(keptMs(device), q.lastUpdatedTo)) return false;
  if (kind === 'battery' && present(q.chargingState) && device.chargingState !== q.chargingState) return false;
  if (kind === 'hvac' && present(q.type) && device.type !== q.type) return false;
  return true;
}

interface Expected {
  matches: Device[];
  content: Device[];
  totalElements: number;
  totalPages: number;
}

function paged(sorted: Device[], page: number, size: number): Expected {
  return {
    matches: sorted,
    content: sorted.slice(page * size, page * size + size),
    totalElements: sorted.length,
    totalPages: Math.ceil(sorted.length / size),
  };
}

function expectSubscription(devices: Device[], kind: 'battery' | 'hvac', q: SubscriptionQuery): Expected {
  const matching = devices.filter((d) => subscriptionMatches(d, kind, q));
  const sorted = sortDevices(matching, present(q.sortField) ? q.sortField : 'USER_ID', present(q.sortOrder) ? q.sortOrder : 'DESC');
  return paged(sorted, present(q.page) ? q.page : 0, present(q.size) ? q.size : 10);
}

function expectUser(devices: Device[], kind: Kind, q: UserQuery): Expected {
  const matching = devices.filter((d) => d.kind === kind && d.userId === q.owner);
  const sorted = sortDevices(matching, present(q.sortField) ? q.sortField : 'VENDOR', present(q.sortOrder) ? q.sortOrder : 'DESC');
  return paged(sorted, present(q.page) ? q.page : 0, present(q.size) ? q.size : 10);
}

/** The list item the API should show for a device: absent values left out. */
function expectedItem(d: Device): Record<string, unknown> {
  const item: Record<string, unknown> = { id: d.id, userId: d.userId, vendor: d.vendor, isOnline: d.isOnline, model: d.model };
  if (d.name !== null) item['name'] = d.name;
  const kept = keptMs(d);
  if (kept !== null) item['lastUpdated'] = new Date(kept).toISOString().replace('.000Z', 'Z');
  if (d.kind === 'battery' && d.chargingState !== undefined) item['chargingState'] = d.chargingState;
  if (d.kind === 'hvac') item['type'] = d.type;
  return item;
}

// ---------------------------------------------------------------------------------------------
// Requests

function subscriptionParams(q: SubscriptionQuery): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(q)) {
    if (value === undefined) continue;
    params.set(key, typeof value === 'object' ? value.text : String(value));
  }
  return params;
}

function userParams(q: UserQuery): URLSearchParams {
  const params = new URLSearchParams(q.ignored);
  for (const key of ['sortField', 'sortOrder', 'page', 'size'] as const) {
    const value = q[key];
    if (value !== undefined) params.set(key, String(value));
  }
  return params;
}

const SUBSCRIPTION_PATH = { battery: '/batteries', hvac: '/hvacs' } as const;
const USER_PATH = { pvInverter: 'pv-inverters', meter: 'meters', hvac: 'hvacs' } as const;
type UserKind = keyof typeof USER_PATH;

function userPath(kind: UserKind, owner: string): string {
  return `/users/${encodeURIComponent(owner)}/${USER_PATH[kind]}`;
}

interface PageBody {
  content: Array<Record<string, unknown>>;
  totalElements: number;
  totalPages: number;
}

async function getPage(hub: TestHub, path: string, params: URLSearchParams): Promise<PageBody> {
  const query = params.toString();
  const url = query ? `${path}?${query}` : path;
  const res = await hub.request(url);
  const body = (await res.json()) as PageBody;
  assert.equal(res.status, 200, `GET ${url} answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

function assertPage(actual: PageBody, expected: Expected, label: string): void {
  const actualIds = actual.content.map((item) => item['id']);
  const expectedIds = expected.content.map((d) => d.id);
  assert.equal(actual.totalElements, expected.totalElements, `${label}: totalElements`);
  assert.equal(actual.totalPages, expected.totalPages, `${label}: totalPages`);
  assert.deepEqual(actualIds, expectedIds, `${label}: ids of the page`);
  assert.deepEqual(actual.content, expected.content.map(expectedItem), `${label}: items`);
}

// ---------------------------------------------------------------------------------------------
// Seeding

function toRecord(d: Device): Record<string, unknown> {
  const staticData: Record<string, unknown> = { vendor: d.vendor, model: d.model };
  if (d.name !== null) staticData['name'] = d.name;
  const record: Record<string, unknown> = { kind: d.kind, id: d.importedId, userId: d.userId, isOnline: d.isOnline, staticData };
  if (d.lastUpdatedMs !== null) record['lastUpdated'] = new Date(d.lastUpdatedMs).toISOString();
  if (d.kind === 'battery') record['chargeState'] = d.chargingState === undefined ? {} : { chargingState: d.chargingState };
  if (d.kind === 'hvac') record['type'] = d.type;
  return record;
}

/** A fresh hub holding exactly these devices, closed after `body`. */
async function withHub(devices: Device[], body: (hub: TestHub) => Promise<void>): Promise<void> {
  const hub = createTestHub();
  try {
    hub.seed(devices.map(toRecord));
    await body(hub);
  } finally {
    hub.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Generators: small alphabets, so that substring hits, case variants and equal sort keys are common

/**
 * Letters with case variants (ASCII, Latin-1, fullwidth, and Deseret outside the BMP, where UTF-16 order
 * differs from code-point order: U+FF21 'Ａ' sorts before U+10400 '𐐀' by code point, after it by code unit),
 * LIKE wildcards that must be taken literally, a space.
 */
const TEXT_UNITS = ['a', 'A', 'b', 'B', 'ä', 'Ä', 'é', 'É', 'Ａ', 'ａ', '𐐀', '𐐨', '%', '_', ' '] as const;
const textOf = (minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...TEXT_UNITS), minLength, maxLength });

const userIdArb = fc.oneof(
  fc.constantFrom('ab', 'AB', 'Ab', 'a_b', 'a%b', 'axb', 'äb', 'Äb', '%', '_', 'b a', 'a+b', 'a/b', '%25', 'aＡ', 'a𐐀', 'A𐐨'),
  textOf(1, 4),
);
const nameArb = fc.option(fc.oneof(fc.constantFrom('Äpfel', 'äPFEL', '50%', '5_0', 'x_y', 'xy', ''), textOf(0, 5)), {
  nil: null,
  freq: 4,
});
const modelArb = fc.oneof(fc.constantFrom('M1', 'm1', 'M_1', 'M%1', 'Mä', 'MÄ'), textOf(1, 4));
const lastUpdatedArb = fc.option(
  fc.integer({ min: 0, max: 8 }).map((k) => BASE_MS + k * STEP_MS),
  { nil: null, freq: 4 },
);

/** A device set: a handful of users, every kind mixed in one store, unique ids. */
const deviceSetArb = fc
  .uniqueArray(userIdArb, { minLength: 1, maxLength: 5 })
  .chain((users) => {
    const common = {
      userId: fc.constantFrom(...users),
      isOnline: fc.boolean(),
      lastUpdatedMs: lastUpdatedArb,
      name: nameArb,
      model: modelArb,
    };
    const battery = fc.record({
      kind: fc.constant('battery' as const),
      ...common,
      vendor: fc.constantFrom(...BATTERY_VENDORS),
      chargingState: fc.option(fc.constantFrom(...CHARGING_STATES), { nil: undefined, freq: 4 }),
    });
    const hvac = fc.record({ kind: fc.constant('hvac' as const), ...common, vendor: fc.constantFrom(...HVAC_VENDORS), type: fc.constantFrom(...HVAC_TYPES) });
    const pvInverter = fc.record({ kind: fc.constant('pvInverter' as const), ...common, vendor: fc.constantFrom(...HOME_POWER_VENDORS) });
    const meter = fc.record({ kind: fc.constant('meter' as const), ...common, vendor: fc.constantFrom(...HOME_POWER_VENDORS) });
    const devices = fc.array(fc.oneof(battery, hvac, pvInverter, meter), { maxLength: 60, size: 'max' });
    const idArb = fc.tuple(fc.uuid({ version: 4 }), fc.boolean()).map(([uuid, upper]) => ({
      id: uuid.toLowerCase(),
      importedId: upper ? uuid.toUpperCase() : uuid,
    }));
    return devices.chain((list) =>
      fc.uniqueArray(idArb, { minLength: list.length, maxLength: list.length, selector: (ids) => ids.id }).map((ids) => ({
        users,
        devices: list.map((d, i): Device => ({ ...d, ...ids[i]! })),
      })),
    );
  });
type DeviceSet = { users: string[]; devices: Device[] };

/** A piece of an existing value with some letters' case flipped, or a fresh string. */
function textFilterArb(values: string[]): fc.Arbitrary<string> {
  const fresh = textOf(1, 3);
  if (values.length === 0) return fresh;
  const piece = fc
    .tuple(fc.constantFrom(...values), fc.nat(), fc.nat(), fc.array(fc.boolean(), { maxLength: 8 }))
    .map(([value, i, j, flips]) => {
      const chars = [...value];
      const start = chars.length === 0 ? 0 : i % chars.length;
      const end = start + 1 + (j % Math.max(1, chars.length - start));
      return chars
        .slice(start, end)
        .map((c, k) => (flips[k] ? (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) : c))
        .join('');
    });
  return fc.oneof({ arbitrary: piece, weight: 3 }, { arbitrary: fresh, weight: 1 });
}

/**
 * A bound on lastUpdated: on a step, one ms beside it, or outside the range; sent with Z or an offset,
 * with or without a fraction, sometimes finer than a millisecond (`…:00.5000001Z` is later than `….500`).
 */
const boundArb = fc
  .tuple(
    fc.integer({ min: -1, max: 9 }),
    fc.constantFrom(0, 0, 0, -1, 1),
    fc.constantFrom(0, 0, 120, -330, 60),
    fc.constantFrom('', '', '', '0', '000000', '0005', '9', '999999', '000001'),
  )
  .map(([k, nudge, offsetMinutes, finer]): Bound => {
    const ms = BASE_MS + k * STEP_MS + nudge;
    let text = new Date(ms + offsetMinutes * 60_000).toISOString(); // …:SS.sssZ
    if (finer !== '') text = text.replace('Z', `${finer}Z`);
    else if (ms % 1000 === 0) text = text.replace('.000Z', 'Z');
    if (offsetMinutes !== 0) {
      const abs = Math.abs(offsetMinutes);
      const hhmm = `${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
      text = text.replace('Z', `${offsetMinutes > 0 ? '+' : '-'}${hhmm}`);
    }
    return { ms, finer: /[1-9]/.test(finer), text };
  });

const orEmpty = <T>(arb: fc.Arbitrary<T>, emptyFreq = 8): fc.Arbitrary<T | ''> =>
  fc.oneof({ arbitrary: arb, weight: emptyFreq }, { arbitrary: fc.constant('' as const), weight: 1 });

const pageArb = orEmpty(
  fc.oneof(
    { arbitrary: fc.constant(0), weight: 6 },
    { arbitrary: fc.integer({ min: 1, max: 3 }), weight: 3 },
    { arbitrary: fc.constantFrom(50, 2_147_483_647), weight: 1 },
  ),
);
const sizeArb = orEmpty(fc.oneof({ arbitrary: fc.integer({ min: 1, max: 6 }), weight: 4 }, { arbitrary: fc.integer({ min: 1, max: 100 }), weight: 1 }));

function subscriptionQueryArb(set: DeviceSet, kind: 'battery' | 'hvac'): fc.Arbitrary<SubscriptionQuery> {
  const own = set.devices.filter((d) => d.kind === kind);
  // Mostly an id of this kind, in either case; sometimes one of another kind or an unknown one (no match).
  const ownIds = own.map((d) => d.id);
  const otherIds = set.devices.filter((d) => d.kind !== kind).map((d) => d.id);
  const uuid = fc.oneof(
    ...(ownIds.length > 0 ? [{ arbitrary: fc.constantFrom(...ownIds), weight: 4 }] : []),
    ...(ownIds.length > 0 ? [{ arbitrary: fc.constantFrom(...ownIds).map((id) => id.toUpperCase()), weight: 2 }] : []),
    ...(otherIds.length > 0 ? [{ arbitrary: fc.constantFrom(...otherIds), weight: 1 }] : []),
    { arbitrary: fc.uuid({ version: 4 }), weight: 1 },
  );
  const names = own.flatMap((d) => (d.name === null ? [] : [d.name]));
  const common = {
    uuid: orEmpty(uuid),
    userId: orEmpty(textFilterArb(set.users)),
    isOnline: orEmpty(fc.boolean()),
    name: orEmpty(textFilterArb(names)),
    model: orEmpty(textFilterArb(own.map((d) => d.model))),
    lastUpdatedFrom: orEmpty(boundArb),
    lastUpdatedTo: orEmpty(boundArb),
  };
  const paging = {
    sortField: orEmpty(fc.constantFrom(...SUBSCRIPTION_SORT_FIELDS)),
    sortOrder: orEmpty(fc.constantFrom('ASC' as const, 'DESC' as const)),
    page: pageArb,
    size: sizeArb,
  };
  // Zero to three filters per query (some of them sent empty), so that many queries still match something.
  const filters: Record<string, fc.Arbitrary<unknown>> = kind === 'battery'
    ? { ...common, vendor: orEmpty(fc.constantFrom(...BATTERY_FILTER_VENDORS)), chargingState: orEmpty(fc.constantFrom(...CHARGING_STATES)) }
    : { ...common, vendor: orEmpty(fc.constantFrom(...HVAC_VENDORS)), type: orEmpty(fc.constantFrom(...HVAC_TYPES)) };
  const keys = Object.keys(filters);
  const chosen = fc.oneof(
    { arbitrary: fc.constant(0), weight: 1 },
    { arbitrary: fc.constant(1), weight: 3 },
    { arbitrary: fc.constant(2), weight: 2 },
    { arbitrary: fc.constant(3), weight: 1 },
  ).chain((n) => fc.shuffledSubarray(keys, { minLength: n, maxLength: n }));
  return fc
    .tuple(fc.record(filters), chosen, fc.record(paging, { requiredKeys: [] }))
    .map(([values, picked, page]) => {
      const query: Record<string, unknown> = { ...page };
      for (const key of picked) query[key] = values[key];
      return query as SubscriptionQuery;
    });
}

/** An owner: a user of the set, a case variant of one (which must not match), or a stranger. */
function ownerArb(set: DeviceSet): fc.Arbitrary<string> {
  const variant = fc.constantFrom(...set.users).map((u) => (u === u.toUpperCase() ? u.toLowerCase() : u.toUpperCase()));
  return fc.oneof({ arbitrary: fc.constantFrom(...set.users), weight: 6 }, { arbitrary: variant, weight: 1 }, { arbitrary: userIdArb, weight: 1 });
}

function userQueryArb(set: DeviceSet): fc.Arbitrary<{ kind: UserKind; query: UserQuery }> {
  const ignored = fc.record(
    { userId: textOf(1, 2), name: textOf(1, 2), vendor: fc.constantFrom('SMA', 'NOPE'), isOnline: fc.constantFrom('true', 'maybe'), uuid: fc.constant('not-a-uuid') },
    { requiredKeys: [] },
  );
  return fc.record({
    kind: fc.constantFrom('pvInverter' as const, 'meter' as const, 'hvac' as const),
    query: fc.record(
      {
        owner: ownerArb(set),
        sortField: orEmpty(fc.constantFrom(...USER_SORT_FIELDS)),
        sortOrder: orEmpty(fc.constantFrom('ASC' as const, 'DESC' as const)),
        page: pageArb,
        size: sizeArb,
        ignored: ignored as fc.Arbitrary<Record<string, string>>,
      },
      { requiredKeys: ['owner', 'ignored'] },
    ),
  });
}

// ---------------------------------------------------------------------------------------------
// Running

const replaySeed = process.env['FC_SEED'];
const replayPath = process.env['FC_PATH'];
const runsFactor = Number(process.env['FC_RUNS_FACTOR'] ?? 1);

function runOptions(numRuns: number): fc.Parameters<unknown> {
  return {
    numRuns: Math.max(1, Math.round(numRuns * runsFactor)),
    includeErrorInReport: true,
    ...(replaySeed !== undefined && { seed: Number(replaySeed) }),
    ...(replayPath !== undefined && { path: replayPath }),
  };
}

const QUERIES_PER_SET = 20;

for (const kind of ['battery', 'hvac'] as const) {
  test(`GET ${SUBSCRIPTION_PATH[kind]} agrees with the model on any filters, sort and page`, async () => {
    await fc.assert(
      fc.asyncProperty(
        deviceSetArb.chain((set) => fc.tuple(fc.constant(set), fc.array(subscriptionQueryArb(set, kind), { minLength: 1, maxLength: QUERIES_PER_SET }))),
        async ([set, queries]) => {
          await withHub(set.devices, async (hub) => {
            for (const q of queries) {
              const params = subscriptionParams(q);
              const actual = await getPage(hub, SUBSCRIPTION_PATH[kind], params);
              assertPage(actual, expectSubscription(set.devices, kind, q), `${SUBSCRIPTION_PATH[kind]}?${params}`);
            }
          });
        },
      ),
      runOptions(45),
    );
  });
}

test('GET /users/{userId}/pv-inverters, /meters and /hvacs list only that exact owner, in model order', async () => {
  await fc.assert(
    fc.asyncProperty(
      deviceSetArb.chain((set) => fc.tuple(fc.constant(set), fc.array(userQueryArb(set), { minLength: 1, maxLength: QUERIES_PER_SET }))),
      async ([set, queries]) => {
        await withHub(set.devices, async (hub) => {
          for (const { kind, query } of queries) {
            const path = userPath(kind, query.owner);
            const params = userParams(query);
            const actual = await getPage(hub, path, params);
            const label = `${path}?${params}`;
            for (const item of actual.content) assert.equal(item['userId'], query.owner, `${label}: another user's device`);
            assertPage(actual, expectUser(set.devices, kind, query), label);
          }
        });
      },
    ),
    runOptions(45),
  );
});

type Walk =
  | { list: 'subscription'; kind: 'battery' | 'hvac'; query: SubscriptionQuery }
  | { list: 'user'; kind: UserKind; query: UserQuery };

function walkArb(set: DeviceSet): fc.Arbitrary<Walk> {
  const size = fc.integer({ min: 1, max: 7 });
  const subscription = (kind: 'battery' | 'hvac') =>
    fc.tuple(subscriptionQueryArb(set, kind), size).map(([query, s]): Walk => ({ list: 'subscription', kind, query: { ...query, page: 0, size: s } }));
  const user = fc.tuple(userQueryArb(set), size).map(([{ kind, query }, s]): Walk => ({ list: 'user', kind, query: { ...query, page: 0, size: s } }));
  return fc.oneof(subscription('battery'), subscription('hvac'), user);
}

test('walking every page of a fixed query yields each matching id exactly once', async () => {
  await fc.assert(
    fc.asyncProperty(
      deviceSetArb.chain((set) => fc.tuple(fc.constant(set), fc.array(walkArb(set), { minLength: 1, maxLength: 6 }))),
      async ([set, walks]) => {
        await withHub(set.devices, async (hub) => {
          for (const walk of walks) {
            const size = walk.query.size as number;
            const expected =
              walk.list === 'subscription' ? expectSubscription(set.devices, walk.kind, walk.query) : expectUser(set.devices, walk.kind, walk.query);
            const wanted = new Set(expected.matches.map((d) => d.id));
            const seen: unknown[] = [];
            let totalPages: number | undefined;
            // Up to and including the first page past the end, which must be empty with the same totals.
            for (let page = 0; totalPages === undefined || page <= totalPages; page++) {
              const path = walk.list === 'subscription' ? SUBSCRIPTION_PATH[walk.kind] : userPath(walk.kind, walk.query.owner);
              const params = walk.list === 'subscription' ? subscriptionParams({ ...walk.query, page }) : userParams({ ...walk.query, page });
              const body = await getPage(hub, path, params);
              const label = `${path}?${params}`;
              assert.equal(body.totalElements, wanted.size, `${label}: totalElements`);
              totalPages ??= body.totalPages;
              assert.equal(body.totalPages, totalPages, `${label}: totalPages changed between pages`);
              assert.equal(totalPages, Math.ceil(wanted.size / size), `${label}: totalPages`);
              const expectedLength = Math.max(0, Math.min(size, wanted.size - page * size));
              assert.equal(body.content.length, expectedLength, `${label}: page length`);
              seen.push(...body.content.map((item) => item['id']));
            }
            assert.equal(new Set(seen).size, seen.length, 'an id appeared on two pages');
            assert.deepEqual(new Set(seen), wanted, 'the pages together are not exactly the matching devices');
          }
        });
      },
    ),
    runOptions(40),
  );
});
