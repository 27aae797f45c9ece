// Connect sessions for HVAC units, home-power devices and tariffs, end to end at the API's level: a
// real hub on loopback with the project's own broker, and the real simulators of each way the hub
// reaches them (ebusd, ESPAltherma, a tariff topic over MQTT; a Daikin adapter and an Enphase gateway
// over HTTP; SunSpec units over Modbus TCP). The partner opens a session, the user fills in the page's
// form, the hub finds the device, adds it for the user and redirects with its id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startMqttHub, type MqttHub } from '../support/mqtt-hub.ts';
import { createLogger } from '../../src/log.ts';
import { skipWithout } from '../support/peers.ts';
import { deviceCertificate, started } from '../support/http-hub.ts';
import { simOn } from '../runtime/support.ts';
import { EbusdVaillantSim } from '../../src/sim/mqtt/ebusd-vaillant-sim.ts';
import { TariffTopicSim } from '../../src/sim/mqtt/tariff-topic-sim.ts';
import { DaikinSim } from '../../src/sim/http/daikin-sim.ts';
import { EnphaseSim } from '../../src/sim/http/enphase-sim.ts';
import { PowerwallSim } from '../../src/sim/http/powerwall-sim.ts';
import { PROBES_PER_SESSION } from '../../src/api/pairing/device-flow.ts';
import { HOME_POWER_VENDORS, HVAC_VENDORS, TARIFF_VENDORS } from '../../src/domain/vocabulary.ts';
import { SiteModel } from '../../src/sim/site-model.ts';
import { sunspecInverter, sunspecMeter } from '../../src/sim/sunspec-sims.ts';

const REDIRECT = 'https://partner.example/done?x=1';
const ENPHASE_TOKEN = 'eyJhbGciOiJFUzI1NiJ9.eyJ1c2VybmFtZSI6Im93bmVyIn0.c2lnbmF0dXJl';

async function session(hub: MqttHub, path: string, vendor: string, userId: string, query = ''): Promise<string> {
  const res = await hub.api(`/connections/${path}${query}`, { method: 'POST', json: { redirectUrl: REDIRECT, vendor, userId } });
  assert.equal(res.status, 201, await res.clone().text());
  return ((await res.json()) as { url: string }).url.replace(/^https?:\/\/[^/]+/, hub.daemon.url!);
}

const submit = (url: string, fields: Record<string, string>) => fetch(url, {
  method: 'POST', redirect: 'manual',
  headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(),
});

/** The outcome a 303 sends the browser to, as the partner's page reads it. */
function outcome(res: Response): URLSearchParams {
  assert.equal(res.status, 303);
  const location = new URL(res.headers.get('location')!);
  assert.equal(location.origin + location.pathname, 'https://partner.example/done');
  assert.equal(location.searchParams.get('x'), '1');
  return location.searchParams;
}

test('HVAC, home power and tariffs: each is found, added for the user and answered with its id', { skip: skipWithout('mosquitto') }, async (t) => {
  const logLines: string[] = [];
  const hub = await startMqttHub(t, { mqttSettings: { probeTimeoutMs: 1500 }, log: createLogger('debug', { write: (line: string) => logLines.push(line) }) });
  // The secrets typed on the pages below, right or wrong: none of them may reach a log line.
  t.after(() => {
    for (const secret of [ENPHASE_TOKEN, 'aaaa.bbbb.cccc', 'S3CR3', 'WRONG-PASSWORD', '0f1e2d3c4b5a69788796a5b4c3d2e1f0']) {
      assert.equal(logLines.filter((line) => line.includes(secret)).length, 0, `a log line holds ${secret}`);
    }
    assert.ok(logLines.some((line) => line.includes('device connected')), 'the connections are logged');
  });
  const vendors = (await (await hub.api('/connections/available-vendors')).json()) as Record<string, { id: string }[]>;
  assert.deepEqual(vendors['hvac']!.map((v) => v.id), ['DAIKIN', 'VAILLANT', 'VIESSMANN']);
  assert.deepEqual(vendors['homePower']!.map((v) => v.id), ['ENPHASE', 'FRONIUS', 'HUAWEI', 'SMA', 'TESLA']);
  assert.deepEqual(vendors['tariffs']!.map((v) => v.id), ['LUOX', 'OCTOPUS_ENERGY', 'OSTROM', 'TIBBER']);

  await t.test('a Vaillant through ebusd: hvacId; another household is refused; the same gets its id back', async () => {
    const sim = new EbusdVaillantSim(hub.broker.url, { preread: true });
    t.after(() => sim.stop());
    await sim.start();
    const url = await session(hub, 'hvacs', 'VAILLANT', 'household-1', '?language=GERMAN&theme=DARK');
    const page = await fetch(url);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /lang="de"/);
    assert.match(html, /data-theme="dark"/);
    assert.match(html, /Vaillant-Heizung oder -Klimagerät verbinden/);
    assert.match(html, /name="prefix"/);
    // A prefix nobody publishes under: nothing heard, the form again, nothing added.
    const wrong = await submit(url, { action: 'pair', prefix: 'nobody' });
    assert.equal(wrong.status, 422);
    assert.match(await wrong.text(), /Das Gerät hat nicht geantwortet/);
    const added = outcome(await submit(url, { action: 'pair' }));
    assert.equal(added.get('status'), 'SUCCESS');
    const hvacId = added.get('hvacId')!;
    const device = hub.device(hvacId)!;
    assert.equal(device.userId, 'household-1');
    assert.equal(device.vendor, 'VAILLANT');
    assert.equal(device.hvacType, 'HEATING_CIRCUIT');
    assert.deepEqual(device.driver, { type: 'ebusd-vaillant-zone' });
    assert.equal((await fetch(url)).status, 410, 'single-use');
    // A second press of the button (the page was slow) is sent where the first went.
    assert.equal(outcome(await submit(url, { action: 'pair' })).get('hvacId'), hvacId);
    // From now on the hub drives it: ebusd's next value reaches the device.
    await hub.event((e) => e.type === 'update' && e.device.id === hvacId);

    const other = await session(hub, 'hvacs', 'VAILLANT', 'household-2');
    const taken = await submit(other, { action: 'pair', prefix: 'ebusd', circuit: '700', zone: '1' });
    assert.equal(taken.status, 422);
    assert.match(await taken.text(), /another user/);
    const again = outcome(await submit(await session(hub, 'hvacs', 'VAILLANT', 'household-1'), { action: 'pair', zone: '1' }));
    assert.equal(again.get('hvacId'), hvacId);
    assert.equal(hub.daemon.db.devices.all().filter((d) => d.kind === 'hvac').length, 1);
  });

  await t.test('a tariff on evcc\'s topic: tariffId, driven by the tariff-topic driver', async () => {
    const sim = new TariffTopicSim(hub.broker.url);
    t.after(() => sim.stop());
    await sim.start();
    const url = await session(hub, 'tariffs', 'TIBBER', 'household-1', '?language=FRENCH');
    assert.match(await (await fetch(url)).text(), /Connecter votre tarif Tibber/);
    const added = outcome(await submit(url, { action: 'pair' }));
    const tariff = hub.device(added.get('tariffId')!)!;
    assert.equal(tariff.kind, 'tariff');
    assert.equal(tariff.vendor, 'TIBBER');
    assert.equal(tariff.driver?.['type'], 'tariff-topic');
    const detail = (await (await hub.api(`/users/household-1/tariffs/${tariff.id}`)).json()) as { staticData: { currency?: string } };
    assert.equal(detail.staticData.currency, 'EUR', 'the currency evcc publishes');
    const taken = await submit(await session(hub, 'tariffs', 'OSTROM', 'household-2'), { action: 'pair', priceTopic: 'evcc/site/tariffGrid' });
    assert.equal(taken.status, 422, 'the same price topic is the same tariff: another household\'s');
  });

  await t.test('a Daikin adapter over HTTP: hvacId, an AC', async () => {
    const sim = await started(t, new DaikinSim({ name: 'Living room' }));
    const url = await session(hub, 'hvacs', 'DAIKIN', 'household-1');
    const form = await (await fetch(url)).text();
    assert.match(form, /name="host"/);
    assert.match(form, /name="espalthermaPrefix"/, 'the other way to a Daikin, over the broker');
    const empty = await submit(url, { action: 'pair' });
    assert.equal(empty.status, 400, 'one way or the other must be given');
    const added = outcome(await submit(url, { action: 'pair', host: '127.0.0.1', port: String(sim.port) }));
    const unit = hub.device(added.get('hvacId')!)!;
    assert.equal(unit.hvacType, 'AC');
    assert.equal(unit.driver?.['host'], '127.0.0.1');
    assert.equal(unit.driver?.['port'], sim.port);

    // A BRP072C (HTTPS) answers only with its registered uuid, which is then a secret of the binding.
    const uuid = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';
    const brp072c = await started(t, new DaikinSim({ name: 'Office', uuid }), deviceCertificate(t, 'brp072c'));
    const url072 = await session(hub, 'hvacs', 'DAIKIN', 'household-1');
    const fields = { action: 'pair', host: '127.0.0.1', port: String(brp072c.port) };
    assert.equal((await submit(url072, fields)).status, 422, 'without the uuid the adapter does not answer');
    const office = hub.device(outcome(await submit(url072, { ...fields, uuid })).get('hvacId')!)!;
    assert.deepEqual([office.driver?.['uuid'], office.driver?.['scheme']], [uuid, 'https']);
  });

  await t.test('an Enphase gateway: a wrong token is said and never shown again; the right one is kept in the binding only', async () => {
    const site = new SiteModel();
    const certificate = deviceCertificate(t, 'envoy.local');
    const sim = await started(t, new EnphaseSim(site, { token: ENPHASE_TOKEN }), certificate);
    const url = await session(hub, 'home-powers', 'ENPHASE', 'household-1');
    const wrongToken = 'aaaa.bbbb.cccc';
    const refused = await submit(url, { action: 'pair', host: '127.0.0.1', port: String(sim.port), token: wrongToken });
    assert.equal(refused.status, 422);
    const page = await refused.text();
    assert.match(page, /refused the login/);
    assert.doesNotMatch(page, new RegExp(wrongToken.replace(/\./g, '\\.')), 'a secret is never filled in again');
    assert.match(page, /name="host"[^>]*value="127\.0\.0\.1"/, 'the address stays');
    const added = outcome(await submit(url, { action: 'pair', host: '127.0.0.1', port: String(sim.port), token: ENPHASE_TOKEN }));
    const pv = hub.device(added.get('pvInverterId')!)!;
    assert.equal(pv.kind, 'pvInverter');
    assert.equal(pv.vendor, 'ENPHASE');
    assert.equal(pv.driver?.['token'], ENPHASE_TOKEN);
    assert.equal((pv.driver?.['tls'] as { sha256: string }).sha256, certificate.pinned.sha256, 'its certificate is pinned on first use');
    const detail = await (await hub.api(`/users/household-1/pv-inverters/${pv.id}`)).text();
    assert.doesNotMatch(detail, new RegExp(ENPHASE_TOKEN), 'the API never shows it');
  });

  await t.test('a Powerwall: a wrong password is refused and never shown again; the right one adds the battery', async () => {
    const site = new SiteModel();
    const sim = await started(t, new PowerwallSim(site, { email: 'owner@home.example', password: 'S3CR3' }), deviceCertificate(t, 'powerwall'));
    const url = await session(hub, 'home-powers', 'TESLA', 'household-1');
    const fields = { action: 'pair', host: '127.0.0.1', port: String(sim.port), email: 'owner@home.example' };
    const refused = await submit(url, { ...fields, password: 'WRONG-PASSWORD' });
    assert.equal(refused.status, 422);
    const page = await refused.text();
    assert.match(page, /refused the login/);
    assert.doesNotMatch(page, /WRONG-PASSWORD/);
    const added = outcome(await submit(url, { ...fields, password: 'S3CR3' }));
    const battery = hub.device(added.get('batteryId')!)!;
    assert.deepEqual([battery.kind, battery.vendor, battery.driver?.['password']], ['battery', 'TESLA', 'S3CR3']);
  });

  await t.test('SunSpec over Modbus: the scan\'s devices to choose from, the chosen one added with its kind\'s id', async () => {
    const site = new SiteModel({ now: () => Date.parse('2026-06-21T12:00:00Z') });
    const sim = await simOn(t, { 1: sunspecInverter(site), 200: sunspecMeter(site) });
    const url = await session(hub, 'home-powers', 'FRONIUS', 'household-1');
    const scanned = await submit(url, { action: 'pair', host: '127.0.0.1', port: String(sim.port) });
    assert.equal(scanned.status, 200);
    const choices = await scanned.text();
    assert.match(choices, /value="1:pvInverter"/);
    assert.match(choices, /value="200:meter"/);
    const added = outcome(await submit(url, { action: 'pair', host: '127.0.0.1', port: String(sim.port), device: '200:meter' }));
    const meter = hub.device(added.get('meterId')!)!;
    assert.equal(meter.kind, 'meter');
    assert.equal(meter.vendor, 'FRONIUS');
    assert.equal(meter.driver?.['unitId'], 200);
    // The same meter for another household: refused, whichever way its address is written.
    const other = await session(hub, 'home-powers', 'FRONIUS', 'household-2');
    const taken = await submit(other, { action: 'pair', host: 'LOCALHOST', port: String(sim.port), device: '200:meter' });
    assert.equal(taken.status, 422);
    assert.match(await taken.text(), /another user/);
  });
});

test('the sessions\' API: cancel, an expired link, vendors this hub cannot reach, scoped and read-only keys', { skip: skipWithout('mosquitto') }, async (t) => {
  const hub = await startMqttHub(t);
  const url = await session(hub, 'home-powers', 'SMA', 'household-1');
  assert.equal(outcome(await submit(url, { action: 'cancel' })).get('status'), 'CANCELLED');
  assert.equal((await fetch(url)).status, 410);

  // An expired link says so, and its button goes back to the app with the reason.
  const now = Date.now();
  const token = hub.daemon.db.connectSessions.create({
    userId: 'household-1', vendor: 'DAIKIN', kind: 'hvac', redirectUrl: REDIRECT, theme: null, language: 'GERMAN', createdAtMs: now - 60_000, expiresAtMs: now - 1,
  });
  const expired = await fetch(`${hub.daemon.url}/connect/${token}`);
  assert.equal(expired.status, 410);
  assert.match(await expired.text(), /status=FAILED&amp;error=SESSION_EXPIRED/);
  assert.equal((await submit(`${hub.daemon.url}/connect/${token}`, { action: 'pair', host: '127.0.0.1' })).status, 410);

  // A link starts ten probes at most: it is a way to connect a device, not to sweep the network.
  const sweep = await session(hub, 'hvacs', 'DAIKIN', 'household-1');
  for (let port = 1; port <= PROBES_PER_SESSION; port++) {
    const nothing = await submit(sweep, { action: 'pair', host: '127.0.0.1', port: String(port) });
    assert.equal(nothing.status, 422);
    assert.match(await nothing.text(), /did not answer/);
  }
  const stopped = await submit(sweep, { action: 'pair', host: '127.0.0.1', port: '11' });
  assert.equal(stopped.status, 422);
  assert.match(await stopped.text(), /Too many attempts with this link/);

  // Every vendor available-vendors lists opens a session; every other vendor of the kind is refused.
  const available = (await (await hub.api('/connections/available-vendors')).json()) as Record<string, { id: string }[]>;
  for (const [path, domain, catalog] of [['hvacs', 'hvac', HVAC_VENDORS], ['home-powers', 'homePower', HOME_POWER_VENDORS], ['tariffs', 'tariffs', TARIFF_VENDORS]] as const) {
    for (const vendor of catalog) {
      const res = await hub.api(`/connections/${path}`, { method: 'POST', json: { redirectUrl: REDIRECT, vendor, userId: 'household-1' } });
      assert.equal(res.status, available[domain]!.some((v) => v.id === vendor) ? 201 : 400, `${path} ${vendor}`);
    }
  }

  // TESLA makes cars and Powerwalls: the session's kind decides which page.
  const powerwall = await (await fetch(await session(hub, 'home-powers', 'TESLA', 'household-1'))).text();
  assert.match(powerwall, /name="password"[^>]*type="password"|type="password"[^>]*name="password"|id="f-password" name="password" type="password"/);

  const bad = await hub.api('/connections/hvacs', { method: 'POST', json: { redirectUrl: REDIRECT, vendor: 'GO_E', userId: 'u' } });
  assert.equal(bad.status, 400);
  const body = (await bad.json()) as { validationErrors: { field: string; message: string }[] };
  assert.equal(body.validationErrors[0]!.field, 'vendor');
  assert.match(body.validationErrors[0]!.message, /DAIKIN, VAILLANT, VIESSMANN/);

  const scoped = hub.daemon.db.apiKeys.create('household-1 app', Date.now(), { userId: 'household-1', readOnly: false });
  const readOnly = hub.daemon.db.apiKeys.create('household-1 viewer', Date.now(), { userId: 'household-1', readOnly: true });
  const as = (key: string, path: string, userId: string) => fetch(`${hub.daemon.url}/v1.0.0/connections/${path}`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ redirectUrl: REDIRECT, vendor: 'TIBBER', userId }),
  });
  assert.equal((await as(scoped.key, 'tariffs', 'household-1')).status, 201);
  assert.equal((await as(scoped.key, 'tariffs', 'household-2')).status, 400, 'a scoped key opens sessions for its own user only');
  assert.equal((await as(readOnly.key, 'tariffs', 'household-1')).status, 403, 'a read-only key opens none');
});

test('without a broker the vendors reached over MQTT are not offered, and their sessions are refused', async (t) => {
  const { Daemon } = await import('../../src/daemon.ts');
  const { ConfigSchema } = await import('../../src/config.ts');
  const { silentLogger } = await import('../../src/log.ts');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-connect-nobroker-'));
  const daemon = new Daemon({ config: ConfigSchema.parse({ dataDir, http: { port: 0 }, apiKey: 'no-broker-key-0123456789abcdef' }), log: silentLogger() });
  t.after(async () => {
    await daemon.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  await daemon.start();
  const api = (path: string, init: RequestInit = {}) => fetch(`${daemon.url}/v1.0.0${path}`, { ...init, headers: { 'x-api-key': 'no-broker-key-0123456789abcdef', 'content-type': 'application/json' } });
  const vendors = (await (await api('/connections/available-vendors')).json()) as Record<string, { id: string }[]>;
  assert.deepEqual(vendors['hvac']!.map((v) => v.id), ['DAIKIN']);
  assert.deepEqual(vendors['tariffs'], []);
  const refused = await api('/connections/hvacs', { method: 'POST', body: JSON.stringify({ redirectUrl: REDIRECT, vendor: 'VIESSMANN', userId: 'u' }) });
  assert.equal(refused.status, 400);
  assert.match(await refused.text(), /must be a HVAC vendor this hub can connect: DAIKIN/);
  const tariff = await api('/connections/tariffs', { method: 'POST', body: JSON.stringify({ redirectUrl: REDIRECT, vendor: 'TIBBER', userId: 'u' }) });
  assert.equal(tariff.status, 400);
});
