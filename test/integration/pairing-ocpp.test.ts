// Pairing an OCPP charger (Zaptec, Easee) end to end: the page gives the hub's OCPP address as the
// charger reaches it on the home network, and a fresh password; the charger connects with it while
// the user is on the page (a new charge point id is let in only with a password a page showed),
// the user submits the id, and the hub adds the charger for the user, its password only as a hash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startOcppHub, ocppCharger, type OcppHub } from '../support/ocpp-hub.ts';
import { verifyPassword } from '../../src/domain/ocpp-password.ts';
import { ocppAddressForDevices } from '../../src/api/pairing/ocpp-prober.ts';
import { json } from '../support/hub.ts';

const EXISTING = '0c000000-0000-4000-8000-00000000c0e1';

async function session(hub: OcppHub, vendor: string, userId: string, language = 'ENGLISH'): Promise<string> {
  const res = await hub.api(`/connections/chargers?language=${language}`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirectUrl: 'https://partner.example/done', vendor, userId }),
  });
  assert.equal(res.status, 201);
  return (await json(res)).url.replace(/^https?:\/\/[^/]+/, hub.daemon.url);
}

const submit = (url: string, fields: Record<string, string>) => fetch(url, {
  method: 'POST', redirect: 'manual',
  headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(),
});

test('a Zaptec is paired: the page shows the OCPP address and a password, the charger connects with them, the hub adds it', async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(EXISTING, 'ZAP000001')], {
    config: { http: { port: 0, publicUrl: 'http://hub.test:8080' } },
  });
  const vendors = await json(await hub.api('/connections/available-vendors'));
  assert.deepEqual(vendors.chargers.map((v: { id: string }) => v.id), ['EASEE', 'ZAPTEC']);

  const url = await session(hub, 'ZAPTEC', 'household-7', 'GERMAN');
  const html = await (await fetch(url)).text();
  assert.match(html, /lang="de"/);
  assert.match(html, /ws:\/\/hub\.test:8080\/ocpp/, 'the address the charger reaches on the home network');
  assert.match(html, /Operator/);
  const password = /name="password" type="text" value="([0-9a-f]{32})"/.exec(html)?.[1];
  assert.ok(password, 'a freshly generated password');
  assert.notEqual(/value="([0-9a-f]{32})"/.exec(await (await fetch(url)).text())?.[1], password, 'each showing generates a new one');

  // A new id with some other password is still refused; with the page's password it is let in.
  const stranger = hub.sim('ZAP000777', { password: 'some-other-password-123' });
  await assert.rejects(stranger.client.connect(), (err: { code?: number }) => err.code === 401);
  const sim = hub.sim('ZAP000777', { password, vendor: 'Zaptec', model: 'ZAPTEC GO 2' });
  await sim.connect();
  await sim.plugIn();

  // An id the hub has already is another charger's: refused.
  assert.equal((await submit(url, { action: 'pair', chargePointId: 'ZAP000001', password })).status, 422);

  const connected = hub.event((e) => e.type === 'connect' && e.device.kind === 'charger');
  const paired = await submit(url, { action: 'pair', chargePointId: 'ZAP000777', password });
  assert.equal(paired.status, 303);
  const location = new URL(paired.headers.get('location')!);
  assert.equal(location.searchParams.get('status'), 'SUCCESS');
  const chargerId = location.searchParams.get('chargerId')!;
  await connected;
  const charger = hub.daemon.db.devices.get(chargerId)!;
  assert.equal(charger.userId, 'household-7');
  assert.equal(charger.vendor, 'ZAPTEC');
  assert.equal(charger.model, 'ZAPTEC GO 2');
  assert.deepEqual(charger.driver, { type: 'ocpp', chargePointId: 'ZAP000777' }, 'no password in the binding');
  assert.equal(charger.state?.['chargingState'], 'PREPARING', 'what it told while being paired');
  assert.equal(await verifyPassword(password, hub.daemon.db.ocpp.credential('ZAP000777')!.passwordHash), true);

  // The hub drives it from now on, on the connection it already has.
  await hub.online(chargerId, true);
  const charging = hub.event((e) => e.type === 'update' && e.device.id === chargerId && e.device.state?.['chargingState'] === 'CHARGING');
  await sim.startTransaction('home-energy-hub');
  await charging;
  // And it comes back after a reconnection, with the password that is now its own.
  await sim.reconnect();
  await hub.online(chargerId, true);
});

test('the OCPP address shown to chargers is never a loopback one', () => {
  assert.equal(ocppAddressForDevices('http://hub.local:8080', '127.0.0.1', 8080, false), 'ws://hub.local:8080/ocpp');
  assert.equal(ocppAddressForDevices('https://hub.local:8443', '0.0.0.0', 8443, true), 'wss://hub.local:8443/ocpp');
  assert.equal(ocppAddressForDevices('http://127.0.0.1:8080', '192.168.1.20', 8080, false), 'ws://192.168.1.20:8080/ocpp');
  assert.equal(ocppAddressForDevices('http://127.0.0.1:8080', '127.0.0.1', 8080, false), undefined, 'a hub on loopback only pairs no OCPP charger');
  const wildcard = ocppAddressForDevices('http://127.0.0.1:8080', '0.0.0.0', 8080, false);
  if (wildcard !== undefined) assert.doesNotMatch(wildcard, /127\.0\.0\.1|localhost/);
});

test('a hub listening on loopback only does not offer EASEE or ZAPTEC', async (t) => {
  const hub = await startOcppHub(t, []);
  const vendors = await json(await hub.api('/connections/available-vendors'));
  assert.deepEqual(vendors.chargers, []);
});
