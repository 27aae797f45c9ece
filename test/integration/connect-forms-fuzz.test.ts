// The connect pages' forms, fuzzed (issue 34): thousands of generated bodies posted to the charger
// pairing page, the vehicle connect page and the HVAC, home-power and tariff pages of a real hub on a loopback socket: any field names and
// values, huge values, repeated fields, wrong or missing content types, invalid UTF-8 and broken
// percent-encoding, broken multipart. Every answer is a proper page (2xx, 3xx with a Location, or
// 4xx; never 5xx, never a stack), the hub keeps answering, and a rejected form adds nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startMqttHub } from '../support/mqtt-hub.ts';
import { connect, startConnectHub } from '../support/connect-hub.ts';

/** Field names: the forms' own (so that actions and fields are hit often) and anything at all. */
const NAMES = ['action', 'serial', 'topicPrefix', 'vin', 'chargerId', 'clientId', 'clientSecret', 'vccApiKey', 'chargePointId', 'password', '__proto__', 'constructor',
  // The HVAC, home-power and tariff pages' fields.
  'host', 'port', 'device', 'token', 'email', 'prefix', 'circuit', 'zone', 'ecu', 'espalthermaPrefix', 'priceTopic', 'currency'];
const VALUES = ['pair', 'cancel', 'giveUp', 'login', 'add', '123456', '100001', 'go-eCharger', 'YV1XZK9V0R0000001', '', ' ', '%', '%ZZ', '\u0000',
  // An address where nothing answers (the discard port, closed), a scan's choice, topics nobody publishes on.
  '127.0.0.1', '9', '200:meter', '1:pvInverter', 'a.b.c', 'ebusd', 'evcc/site/tariffGrid', 'EUR', '680'];

const text = fc.string({ unit: 'binary', maxLength: 80 });
const name = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...NAMES) }, { weight: 1, arbitrary: text });
const value = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...VALUES) },
  { weight: 2, arbitrary: text },
  // Huge: beyond the page's body limit sometimes.
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 40_000 }).map((n) => 'x'.repeat(n)) },
);
/** Repeated names come from the small set of the forms' own. */
const fields = fc.array(fc.tuple(name, value), { maxLength: 8 });

const urlEncoded = (pairs: [string, string][]) => new TextEncoder().encode(new URLSearchParams(pairs).toString());
const multipart = (pairs: [string, string][], boundary: string) => new TextEncoder().encode(
  pairs.map(([n, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`).join('') + `--${boundary}--\r\n`);

interface Body {
  contentType: string | undefined;
  bytes: Uint8Array;
}

const BOUNDARY = 'fuzzBoundary7MA4YWxkTrZu0gW';
const FORM = 'application/x-www-form-urlencoded';
const body: fc.Arbitrary<Body> = fc.oneof(
  fields.map((pairs) => ({ contentType: FORM, bytes: urlEncoded(pairs) })),
  fields.map((pairs) => ({ contentType: `multipart/form-data; boundary=${BOUNDARY}`, bytes: multipart(pairs, BOUNDARY) })),
  // The right names, bytes that are not UTF-8 and percent-encoding that decodes to none.
  fc.tuple(fc.constantFrom(...NAMES), fc.uint8Array({ maxLength: 200 })).map(([n, raw]) => ({
    contentType: FORM, bytes: Uint8Array.from([...new TextEncoder().encode(`action=pair&${n}=`), ...raw]),
  })),
  fc.array(fc.constantFrom('%', '%E0', '%A4', '%ff', '%C3%28', '%', '=', '&', '+', 'action', 'pair', 'serial', '123456', '%00', 'ÿ'), { maxLength: 40 })
    .map((parts) => ({ contentType: FORM, bytes: new TextEncoder().encode(parts.join('')) })),
  // Any bytes under any content type, or none.
  fc.record({
    contentType: fc.option(fc.constantFrom(FORM, 'multipart/form-data', `multipart/form-data; boundary=${BOUNDARY}`, 'MULTIPART/FORM-DATA; boundary=x',
      `${FORM}; charset=latin1`, `${FORM}x`, 'multipart/form-data; boundary=', 'application/json', 'text/plain', 'text/html', '', ';;;'), { nil: undefined }),
    bytes: fc.uint8Array({ maxLength: 3000 }),
  }),
  fields.map((pairs) => ({ contentType: 'application/json', bytes: new TextEncoder().encode(JSON.stringify(Object.fromEntries(pairs))) })),
);

/** What a page may never show: a stack frame, a source path, SQL or an error's name. */
const INTERNALS = /\n\s+at |node:internal|node_modules|\.ts:\d+|SQLITE|TypeError|RangeError|SyntaxError|Error:/;

async function post(url: string, { contentType, bytes }: Body): Promise<Response> {
  const headers: Record<string, string> = contentType === undefined ? {} : { 'content-type': contentType };
  return fetch(url, { method: 'POST', redirect: 'manual', headers, body: bytes });
}

/** The answer is a page or a redirect, never a failure or the inside of the hub. */
async function assertProperAnswer(res: Response): Promise<void> {
  const page = await res.text();
  assert.ok(res.status >= 200 && res.status < 500, `status ${res.status}: ${page.slice(0, 300)}`);
  if (res.status >= 300 && res.status < 400) assert.ok(res.headers.get('location'), 'a redirect says where');
  else assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8', `a page, status ${res.status}`);
  assert.doesNotMatch(page, INTERNALS);
}

/** Runs the property within a bound: this many bodies, at most this long. */
const BOUNDS = { numRuns: 2000, interruptAfterTimeLimit: 90_000, markInterruptAsFailure: false };

test('the charger pairing page answers thousands of generated forms with a page, stays up, and adds nothing for a rejected one', { timeout: 180_000 }, async (t) => {
  // No charger answers on this broker: every probe fails (quickly), so nothing may ever be added.
  const hub = await startMqttHub(t, { mqttSettings: { probeTimeoutMs: 30 } });
  const newSession = async () => {
    const res = await hub.api('/connections/chargers', { method: 'POST', json: { redirectUrl: 'https://partner.example/done', vendor: 'GO_E', userId: 'fuzz-user' } });
    assert.equal(res.status, 201);
    return ((await res.json()) as { url: string }).url.replace(/^https?:\/\/[^/]+/, hub.daemon.url!);
  };
  let url = await newSession();
  let runs = 0;
  await fc.assert(fc.asyncProperty(body, async (generated) => {
    runs++;
    const res = await post(url, generated);
    await assertProperAnswer(res);
    assert.equal(hub.daemon.db.devices.count(), 0, 'no charger answers: nothing is added');
    // Cancel or give up ended the session (a 303 back to the partner): the next body gets a new one.
    if (res.status === 303 || res.status === 410) url = await newSession();
  }), BOUNDS);
  assert.ok(runs >= 500, `only ${runs} bodies in the time allowed`);
  t.diagnostic(`${runs} bodies posted to the pairing page`);
  // The hub is up and the page still works.
  const page = await fetch(await newSession());
  assert.equal(page.status, 200);
  assert.equal((await hub.api('/connections/available-vendors')).status, 200);
});

test('the vehicle connect page answers thousands of generated forms with a page, stays up, and adds nothing for a rejected one', { timeout: 180_000 }, async (t) => {
  const hub = await startConnectHub(t);
  const devicesAtStart = hub.daemon.db.devices.count();
  const urls = { BMW: await connect(hub, { vendor: 'BMW' }), VOLVO: await connect(hub, { vendor: 'VOLVO' }) };
  let runs = 0;
  await fc.assert(fc.asyncProperty(fc.constantFrom('BMW', 'VOLVO' as const), body, async (vendor, generated) => {
    runs++;
    const res = await post(urls[vendor], generated);
    await assertProperAnswer(res);
    // A login may begin (a redirect to the maker, or its code page); a car is added only when the
    // owner has logged in at the maker, which no generated form does.
    assert.equal(hub.daemon.db.devices.count(), devicesAtStart, 'nothing is added');
    const location = res.headers.get('location') ?? '';
    if (res.status === 410 || (res.status === 303 && location.startsWith('https://app.example/'))) urls[vendor] = await connect(hub, { vendor });
  }), BOUNDS);
  assert.ok(runs >= 500, `only ${runs} bodies in the time allowed`);
  t.diagnostic(`${runs} bodies posted to the vehicle connect page`);
  const page = await fetch(await connect(hub, { vendor: 'VOLVO' }));
  assert.equal(page.status, 200);
});

test('the HVAC, home-power and tariff connect pages answer thousands of generated forms with a page, stay up, and add nothing', { timeout: 180_000 }, async (t) => {
  // Nothing answers on this broker or at 127.0.0.1:9: every probe fails, so nothing may ever be added.
  const hub = await startMqttHub(t, { mqttSettings: { probeTimeoutMs: 30 } });
  const KINDS = [['hvacs', 'VAILLANT'], ['hvacs', 'DAIKIN'], ['home-powers', 'ENPHASE'], ['home-powers', 'FRONIUS'], ['tariffs', 'TIBBER']] as const;
  const newSession = async (path: string, vendor: string) => {
    const res = await hub.api(`/connections/${path}`, { method: 'POST', json: { redirectUrl: 'https://partner.example/done', vendor, userId: 'fuzz-user' } });
    assert.equal(res.status, 201);
    return ((await res.json()) as { url: string }).url.replace(/^https?:\/\/[^/]+/, hub.daemon.url!);
  };
  const urls = await Promise.all(KINDS.map(([path, vendor]) => newSession(path, vendor)));
  let runs = 0;
  await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: KINDS.length - 1 }), body, async (i, generated) => {
    runs++;
    const res = await post(urls[i]!, generated);
    await assertProperAnswer(res);
    assert.equal(hub.daemon.db.devices.count(), 0, 'no device answers: nothing is added');
    if (res.status === 303 || res.status === 410) urls[i] = await newSession(KINDS[i]![0], KINDS[i]![1]);
  }), BOUNDS);
  assert.ok(runs >= 500, `only ${runs} bodies in the time allowed`);
  t.diagnostic(`${runs} bodies posted to the HVAC, home-power and tariff connect pages`);
  assert.equal((await fetch(await newSession('tariffs', 'TIBBER'))).status, 200);
});
