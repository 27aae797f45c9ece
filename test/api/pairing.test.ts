// The pairing page behind the URL of POST /connections/chargers: every state it can be in, through
// app.request (no socket), with a test prober standing in for the chargers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createTestHub, json, type TestHub } from '../support/hub.ts';
import { GOOD_SERIAL, TestProber } from '../support/pairing.ts';
import { pickLanguage } from '../../src/api/pairing/messages.ts';
import { GO_E_PAIRING_FORM, type ChargerProber } from '../../src/runtime/devices/pairing-prober.ts';

const REDIRECT = 'https://app.example/paired?x=1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function pairingHub(t: { after: (fn: () => void) => void }, pairing: ChargerProber | null = new TestProber()) {
  const hub = createTestHub(pairing ? { pairing } : {});
  t.after(hub.close);
  return hub;
}

async function startSession(hub: TestHub, options: { query?: string; redirectUrl?: string; userId?: string } = {}): Promise<string> {
  const res = await hub.request(`/connections/chargers${options.query ?? ''}`, {
    method: 'POST', json: { redirectUrl: options.redirectUrl ?? REDIRECT, vendor: 'GO_E', userId: options.userId ?? 'user-1' },
  });
  assert.equal(res.status, 201);
  return new URL((await json(res)).url).pathname.split('/').pop()!;
}

/** A session straight in the store, for vendors the API would refuse. */
function storeSession(hub: TestHub, vendor = 'GO_E', extra: { language?: string; theme?: string } = {}): string {
  return hub.store.connectSessions.create({
    userId: 'user-1', vendor, redirectUrl: REDIRECT, theme: extra.theme ?? null, language: extra.language ?? null,
    createdAtMs: hub.clock.now(), expiresAtMs: hub.clock.now() + 60_000,
  });
}

const open = (hub: TestHub, token: string, headers: Record<string, string> = {}) =>
  Promise.resolve(hub.app.request(`/connect/${token}`, { headers }));

const submit = (hub: TestHub, token: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  Promise.resolve(hub.app.request(`/connect/${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  }));

const heading = (page: string) => page.match(/<h1>([^<]*)<\/h1>/)?.[1];
const chargers = (hub: TestHub) => hub.store.devices.all().filter((d) => d.kind === 'charger');

function assertPageHeaders(res: Response, formTarget: string | null) {
  assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(res.headers.get('cache-control'), 'no-store');
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
  const csp = res.headers.get('content-security-policy')!;
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.doesNotMatch(csp, /unsafe-inline|script-src/);
  assert.match(csp, formTarget ? new RegExp(`form-action 'self' ${formTarget.replace(/[.:/]/g, '\\$&')}(;|$)`) : /form-action 'none'/);
}

test('the pairing page is the vendor form, in the session language and theme, with strict headers', async (t) => {
  const hub = pairingHub(t);
  const res = await open(hub, await startSession(hub));
  assert.equal(res.status, 200);
  assertPageHeaders(res, 'https://app.example');
  const page = await res.text();
  assert.match(page, /^<!doctype html>\n<html lang="en">/, 'English, no theme: follows prefers-color-scheme');
  assert.match(page, /<meta name="color-scheme" content="light dark">/);
  assert.equal(heading(page), 'Connect your go-e charger');
  assert.match(page, /enable the MQTT API and enter this hub&#39;s broker as the MQTT broker: mqtt:\/\/hub\.test:1883\./);
  assert.match(page, /<label for="f-serial">Serial number<\/label>/);
  assert.match(page, /<label for="f-topicPrefix">MQTT topic prefix <span class="hub">\(optional\)<\/span><\/label>/);
  assert.match(page, /<input id="f-serial" name="serial" type="text" value="" maxlength="12" pattern="\[0-9\]\{6,12\}" required aria-required="true" aria-describedby="f-serial-help" autofocus/);
  assert.match(page, /<img src="\/logos\/go-e\.svg" alt=""/);
  assert.match(page, /<form method="post" action="\/connect\/[A-Za-z0-9_-]{32}" novalidate>/);
  assert.match(page, /<button type="submit" name="action" value="cancel"/);
  assert.doesNotMatch(page, /<script|style="/);

  // The CSP allows exactly the page's stylesheet, by its hash.
  const css = page.match(/<style>([\s\S]*?)<\/style>/)![1]!;
  const hash = createHash('sha256').update(css).digest('base64');
  assert.ok(res.headers.get('content-security-policy')!.includes(`style-src 'sha256-${hash}'`));

  const german = await (await open(hub, await startSession(hub, { query: '?theme=DARK&language=GERMAN' }))).text();
  assert.match(german, /<html lang="de" data-theme="dark">/);
  assert.match(german, /<meta name="color-scheme" content="dark">/);
  assert.equal(heading(german), 'go-e Ladestation verbinden');
  assert.match(german, /<label for="f-serial">Seriennummer<\/label>/);
  assert.match(german, />Verbinden<\/button>/);

  const french = await (await open(hub, await startSession(hub, { query: '?theme=LIGHT&language=FRENCH' }))).text();
  assert.match(french, /<html lang="fr" data-theme="light">/);
  assert.equal(heading(french), 'Connecter votre borne go-e');
  assert.match(french, /<label for="f-serial">Numéro de série<\/label>/);

  // Without a session language, the browser's Accept-Language decides.
  const token = await startSession(hub);
  assert.match(await (await open(hub, token, { 'accept-language': 'fr-CH, de;q=0.9, en;q=0.8' })).text(), /<html lang="fr">/);
  assert.match(await (await open(hub, token, { 'accept-language': 'es, de;q=0.5' })).text(), /<html lang="de">/);
});

test('a successful probe adds the charger for the user, ends the session and redirects with its id', async (t) => {
  const prober = new TestProber();
  const hub = pairingHub(t, prober);
  const token = await startSession(hub, { userId: 'household-7' });
  const res = await submit(hub, token, { serial: ` ${GOOD_SERIAL} `, topicPrefix: '', action: 'pair' });
  assert.equal(res.status, 303);
  const location = new URL(res.headers.get('location')!);
  assert.equal(`${location.origin}${location.pathname}`, 'https://app.example/paired');
  assert.deepEqual([...location.searchParams.keys()], ['x', 'status', 'chargerId']);
  assert.equal(location.searchParams.get('x'), '1');
  assert.equal(location.searchParams.get('status'), 'SUCCESS');
  const chargerId = location.searchParams.get('chargerId')!;
  assert.match(chargerId, UUID);
  assert.deepEqual(prober.calls, [{ vendor: 'GO_E', fields: { serial: GOOD_SERIAL } }], 'trimmed; empty optional fields left out');

  const device = hub.store.devices.get(chargerId)!;
  assert.deepEqual(
    { kind: device.kind, userId: device.userId, vendor: device.vendor, model: device.model, name: device.name, isOnline: device.isOnline, state: device.state, driver: device.driver },
    { kind: 'charger', userId: 'household-7', vendor: 'GO_E', model: 'go-e Charger Gemini flex 22', name: 'Garage', isOnline: true,
      // The first state read is stamped, in whole seconds, like every state a driver writes.
      state: { lastUpdated: '2026-11-07T05:31:56Z', chargingState: 'UNPLUGGED', chargeRate: 0 }, driver: { type: 'go-e', serial: GOOD_SERIAL } },
  );
  const detail = await json(await hub.request(`/chargers/${chargerId}`));
  assert.equal(detail.userId, 'household-7');
  assert.equal(detail.staticData.vendor, 'GO_E');
  assert.equal(detail.staticData.lastUpdated, '2026-11-07T05:31:56Z', 'its static data was set when it was paired');

  const again = await open(hub, token);
  assert.equal(again.status, 410);
  assertPageHeaders(again, null);
  assert.equal(heading(await again.text()), 'Link already used');
  // A repeated submission (a double click that arrived late) gets the same answer for a minute, not a second charger.
  const resubmit = await submit(hub, token, { serial: GOOD_SERIAL, action: 'pair' });
  assert.equal(resubmit.status, 303);
  assert.equal(resubmit.headers.get('location'), location.href);
  assert.equal(chargers(hub).length, 1);
  assert.equal(prober.calls.length, 1);
  hub.clock.advance(60_000);
  const late = await submit(hub, token, { serial: GOOD_SERIAL, action: 'pair' });
  assert.equal(late.status, 410);
  assert.equal(heading(await late.text()), 'Link already used');
});

test('a charger another household has is refused with its default topic prefix written out; its own household gets it again', async (t) => {
  const hub = pairingHub(t);
  const paired = await submit(hub, await startSession(hub, { userId: 'household-A' }), { serial: GOOD_SERIAL, action: 'pair' });
  assert.equal(paired.status, 303);
  const chargerId = new URL(paired.headers.get('location')!).searchParams.get('chargerId');
  // issue 34: go-eCharger is the driver's default: the binding written out is the same charger.
  const taken = await submit(hub, await startSession(hub, { userId: 'household-B' }), { serial: GOOD_SERIAL, topicPrefix: 'go-eCharger', action: 'pair' });
  assert.equal(taken.status, 422);
  assert.match(await taken.text(), /already connected to another user&#39;s account/);
  const again = await submit(hub, await startSession(hub, { userId: 'household-A' }), { serial: GOOD_SERIAL, topicPrefix: 'go-eCharger', action: 'pair' });
  assert.equal(again.status, 303);
  assert.equal(new URL(again.headers.get('location')!).searchParams.get('chargerId'), chargerId);
  assert.equal(chargers(hub).length, 1);
});

test('a failed probe shows the form again with a translated reason, and the session stays usable', async (t) => {
  const prober = new TestProber();
  const hub = pairingHub(t, prober);
  const token = await startSession(hub, { query: '?language=GERMAN' });

  const unreachable = await submit(hub, token, { serial: '999999', topicPrefix: 'home/wallbox', action: 'pair' });
  assert.equal(unreachable.status, 422);
  assertPageHeaders(unreachable, 'https://app.example');
  const page = await unreachable.text();
  assert.match(page, /<div class="alert" role="alert" id="problem"><p>Die Ladestation hat nicht geantwortet\./);
  assert.match(page, /name="serial" type="text" value="999999"/, 'what the user typed is kept');
  assert.match(page, /name="topicPrefix" type="text" value="home\/wallbox"/);

  const rejected = await (await submit(hub, token, { serial: '666666', action: 'pair' })).text();
  assert.match(rejected, /Die Ladestation hat die Verbindung abgelehnt\./);
  const crashed = await submit(hub, token, { serial: '777777', action: 'pair' });
  assert.equal(crashed.status, 422);
  const crashedPage = await crashed.text();
  assert.match(crashedPage, /Die Ladestation konnte nicht erreicht werden\./);
  assert.doesNotMatch(crashedPage, /socket exploded|secret\.js/, 'no internal detail reaches the page');

  assert.equal(hub.store.connectSessions.find(token)!.usedAtMs, null);
  assert.equal(chargers(hub).length, 0);
  const fixed = await submit(hub, token, { serial: GOOD_SERIAL, topicPrefix: 'home/wallbox', action: 'pair' });
  assert.equal(fixed.status, 303);
  assert.equal(new URL(fixed.headers.get('location')!).searchParams.get('status'), 'SUCCESS');
  assert.equal(chargers(hub)[0]!.driver!['topicPrefix'], 'home/wallbox');
});

test('Cancel ends the session and redirects with status=CANCELLED, adding nothing', async (t) => {
  const prober = new TestProber();
  const hub = pairingHub(t, prober);
  const token = await startSession(hub);
  const res = await submit(hub, token, { serial: 'not checked on cancel', action: 'cancel' });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get('location'), 'https://app.example/paired?x=1&status=CANCELLED');
  assert.equal(prober.calls.length, 0);
  assert.equal(chargers(hub).length, 0);
  assert.equal((await submit(hub, token, { action: 'pair', serial: GOOD_SERIAL })).headers.get('location'), res.headers.get('location'), 'a repeat gets the same answer');
  assert.equal(prober.calls.length, 0);
  assert.equal((await open(hub, token)).status, 410, 'single use');
});

test('an unknown link is a translated 404 page, an expired one a 410 page with a way back', async (t) => {
  const hub = pairingHub(t);
  for (const token of ['AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'short', 'x'.repeat(200), '%3Cscript%3E']) {
    const res = await open(hub, token, { 'accept-language': 'de-DE,de;q=0.9' });
    assert.equal(res.status, 404, token);
    assertPageHeaders(res, null);
    const page = await res.text();
    assert.match(page, /<html lang="de">/);
    assert.equal(heading(page), 'Unbekannter Link');
    assert.doesNotMatch(page, /<script/);
    assert.equal((await submit(hub, token, { action: 'pair', serial: GOOD_SERIAL })).status, 404);
  }
  assert.equal(heading(await (await open(hub, 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).text()), 'Unknown link');

  const token = await startSession(hub, { query: '?language=FRENCH&theme=DARK', redirectUrl: 'https://app.example/cb?q=%22%3E%3Cb%3E&x=1' });
  hub.clock.advance(15 * 60_000);
  const expired = await open(hub, token);
  assert.equal(expired.status, 410);
  assertPageHeaders(expired, null);
  const page = await expired.text();
  assert.match(page, /<html lang="fr" data-theme="dark">/);
  assert.equal(heading(page), 'Lien expiré');
  const back = page.match(/<a class="button primary" href="([^"]*)" autofocus>Retour à l’application<\/a>/)![1]!;
  assert.equal(back.replaceAll('&amp;', '&'), 'https://app.example/cb?q=%22%3E%3Cb%3E&x=1&status=FAILED&error=SESSION_EXPIRED');
  const post = await submit(hub, token, { serial: GOOD_SERIAL, action: 'pair' });
  assert.equal(post.status, 410);
  assert.equal(chargers(hub).length, 0);
});

test('bad input is refused server-side with translated messages next to each field', async (t) => {
  const prober = new TestProber();
  const hub = pairingHub(t, prober);
  const token = await startSession(hub, { query: '?language=FRENCH' });
  const cases: [Record<string, string>, RegExp[]][] = [
    [{ serial: '' }, [/<p class="error" id="f-serial-error">Veuillez saisir « Numéro de série ».<\/p>/]],
    [{ serial: '12ab56' }, [/<p class="error" id="f-serial-error">Le numéro de série comporte 6 à 12 chiffres.<\/p>/]],
    [{ serial: '1234567890123' }, [/« Numéro de série » ne doit pas dépasser 12 caractères./]],
    [{ serial: '123456', topicPrefix: 'a/+/#' }, [/id="f-topicPrefix-error">Le préfixe de topic peut contenir/]],
    [{ serial: '12', topicPrefix: 'x'.repeat(65) }, [/id="f-serial-error"/, /« Préfixe de topic MQTT » ne doit pas dépasser 64 caractères./]],
  ];
  for (const [fields, messages] of cases) {
    const res = await submit(hub, token, { ...fields, action: 'pair' });
    assert.equal(res.status, 400, JSON.stringify(fields));
    const page = await res.text();
    assert.match(page, /<div class="alert" role="alert" id="problem"><h2>Veuillez corriger les points suivants :<\/h2><ul><li><a href="#f-/);
    for (const message of messages) assert.match(page, message);
    // The first invalid field is marked, described by its message, and focused.
    assert.match(page, /<input id="f-(\w+)" [^>]*aria-describedby="f-\1-help f-\1-error" aria-invalid="true" autofocus/);
  }
  assert.equal(prober.calls.length, 0);
  assert.equal(hub.store.connectSessions.find(token)!.usedAtMs, null);
});

test('whatever the user typed is echoed escaped', async (t) => {
  const hub = pairingHub(t);
  const token = await startSession(hub);
  const attack = '"><script>alert(1)</script><img src=x onerror=alert(2)>';
  const res = await submit(hub, token, { serial: attack, topicPrefix: `'${attack}`, action: 'pair' });
  assert.equal(res.status, 400);
  const page = await res.text();
  assert.doesNotMatch(page, /<script|<img src=x|onerror=alert\(2\)>/);
  assert.ok(page.includes('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;"'));
  assert.ok(page.includes('value="&#39;&quot;&gt;&lt;script&gt;'));
});

test('the outcome is added to redirectUrl, keeping its own query and fragment', async (t) => {
  const hub = pairingHub(t);
  const token = await startSession(hub, { redirectUrl: 'https://app.example/back?state=abc%20d&status=STALE&lang=de#done' });
  const res = await submit(hub, token, { serial: GOOD_SERIAL, action: 'pair' });
  const location = res.headers.get('location')!;
  assert.match(location, /^https:\/\/app\.example\/back\?state=abc(%20|\+)d&lang=de&status=SUCCESS&chargerId=[0-9a-f-]{36}#done$/);
});

test('two submissions at once probe once, add one charger and both land on the same outcome', async (t) => {
  const prober = new TestProber();
  const hub = pairingHub(t, prober);
  const token = await startSession(hub);
  const held = prober.hold();
  const first = submit(hub, token, { serial: GOOD_SERIAL, action: 'pair' });
  await held.started;
  const second = submit(hub, token, { serial: GOOD_SERIAL, action: 'pair' });
  held.release();
  const [a, b] = await Promise.all([first, second]);
  assert.deepEqual([a.status, b.status], [303, 303]);
  assert.equal(a.headers.get('location'), b.headers.get('location'));
  assert.equal(prober.calls.length, 1);
  assert.equal(chargers(hub).length, 1);

  // Cancel while a probe runs wins; the probe's charger is then not added.
  const other = await startSession(hub);
  const held2 = prober.hold();
  const pairing = submit(hub, other, { serial: GOOD_SERIAL, action: 'pair' });
  await held2.started;
  const cancel = await submit(hub, other, { action: 'cancel' });
  assert.equal(new URL(cancel.headers.get('location')!).searchParams.get('status'), 'CANCELLED');
  held2.release();
  const late = await pairing;
  assert.equal(late.headers.get('location'), cancel.headers.get('location'), 'the session ended as cancelled');
  assert.equal(chargers(hub).length, 1, 'the probed charger was not added');
});

test('without a prober for the vendor the page says so, and going back reports VENDOR_NOT_SUPPORTED', async (t) => {
  for (const prober of [null, new TestProber(new Map([['ZAPTEC', GO_E_PAIRING_FORM]]))]) {
    const hub = pairingHub(t, prober);
    const token = storeSession(hub, 'GO_E', { language: 'GERMAN', theme: 'LIGHT' });
    const res = await open(hub, token);
    assert.equal(res.status, 200);
    assertPageHeaders(res, 'https://app.example');
    const page = await res.text();
    assert.equal(heading(page), 'Diese Ladestation kann nicht verbunden werden');
    assert.match(page, /Dieser Hub kann keine Ladestationen von go-e verbinden\./);
    assert.doesNotMatch(page, /name="serial"/);
    assert.equal((await submit(hub, token, { serial: GOOD_SERIAL, action: 'pair' })).status, 200, 'still the same page');
    const back = await submit(hub, token, { action: 'giveUp' });
    assert.equal(back.status, 303);
    assert.equal(back.headers.get('location'), 'https://app.example/paired?x=1&status=FAILED&error=VENDOR_NOT_SUPPORTED');
    assert.equal((await open(hub, token)).status, 410);
  }
});

test('an unreadable or oversized form, or a failure inside the hub, is a page without internals', async (t) => {
  const hub = pairingHub(t);
  const token = await startSession(hub);
  const asJson = await hub.app.request(`/connect/${token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"serial":"123456"}' });
  assert.equal(asJson.status, 400);
  assert.equal(heading(await asJson.text()), 'Form not understood');
  assert.equal((await submit(hub, token, { serial: GOOD_SERIAL })).status, 400, 'no action');
  assert.equal((await submit(hub, token, { serial: GOOD_SERIAL, action: 'giveUp' })).status, 400, 'giving up is only for unsupported vendors');
  const big = await submit(hub, token, { serial: '1'.repeat(20_000), action: 'pair' });
  assert.equal(big.status, 413);
  assert.equal(heading(await big.text()), 'Too much data');
  assert.equal(hub.store.connectSessions.find(token)!.usedAtMs, null);

  const broken: ChargerProber = {
    forms: () => { throw new Error('prober broke at /srv/hub/secret.ts:12'); },
    probe: () => Promise.reject(new Error('unused')),
  };
  const failing = pairingHub(t, broken);
  const res = await open(failing, storeSession(failing, 'GO_E', { language: 'FRENCH' }));
  assert.equal(res.status, 500);
  assertPageHeaders(res, null);
  const page = await res.text();
  assert.equal(heading(page), 'Une erreur est survenue');
  assert.doesNotMatch(page, /secret|prober broke|at \//);
});

test('the page language: session first, then Accept-Language by weight, then English', () => {
  assert.equal(pickLanguage('GERMAN', 'fr'), 'de');
  assert.equal(pickLanguage(null, 'fr'), 'fr');
  assert.equal(pickLanguage(null, 'en-GB;q=0.4, de-AT;q=0.8, *;q=0.1'), 'de');
  assert.equal(pickLanguage(null, 'de;q=0, fr;q=0.2'), 'fr');
  assert.equal(pickLanguage(null, 'es, it'), 'en');
  assert.equal(pickLanguage(null, undefined), 'en');
  assert.equal(pickLanguage('KLINGON', 'garbage;;;q=x'), 'en');
});
