// The Enphase IQ Gateway driver against its simulator over HTTPS with a self-signed certificate:
// every mapped field, sign and unit; a token the gateway refuses; an expired token; a certificate
// that changed (refused until the installer accepts it); a gateway that hangs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SiteModel } from '../../../src/sim/site-model.ts';
import { EnphaseSim, type EnphaseSimOptions } from '../../../src/sim/http/enphase-sim.ts';
import { join } from 'node:path';
import { Store } from '../../../src/store/store.ts';
import { deviceCertificate, HTTP_HUB_KEY, httpRecord, started, startHttpHub } from '../../support/http-hub.ts';

const PV = '00000000-0000-4000-8000-0000000000e1';
const METER = '00000000-0000-4000-8000-0000000000e2';
const BATTERY = '00000000-0000-4000-8000-0000000000e3';

/** A JWT as Enlighten issues (header.payload.signature) with the expiry given, seconds since the epoch. */
function jwt(exp: number): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'ES256', typ: 'JWT' })}.${part({ aud: '122302045041', iss: 'Entrez', enphaseUser: 'owner', exp })}.c2lnbmF0dXJl`;
}

const NOON = () => Date.parse('2026-06-21T12:00:00Z');

async function rig(t: import('node:test').TestContext, options: { token?: string; batteries?: number; meters?: EnphaseSimOptions['meters'] } = {}) {
  const token = options.token ?? jwt(Math.floor(Date.now() / 1000) + 365 * 86_400);
  // A still site: values do not move between the reads a test compares.
  const site = new SiteModel({ pvPeakW: 6000, initialSocPct: 64, now: NOON });
  const cert = deviceCertificate(t, 'envoy');
  const sim = await started(t, new EnphaseSim(site, { token, batteries: options.batteries ?? 2, meters: options.meters }), cert);
  const binding = (extra: Record<string, unknown> = {}) => ({ type: 'enphase-envoy', host: '127.0.0.1', port: sim.port, token, tls: cert.pinned, ...extra });
  return { site, sim, cert, token, binding };
}

test('Enphase: PV power, net meter and IQ Batteries are read over the pinned HTTPS with the bearer token, in the API\'s units and signs', async (t) => {
  const { site, sim, binding, token } = await rig(t);
  const hub = await startHttpHub(t, [
    httpRecord('pvInverter', PV, 'ENPHASE', binding()),
    httpRecord('meter', METER, 'ENPHASE', binding()),
  ]);
  const pv = await hub.until(PV, (d) => d.isOnline && d.state?.['solarPower'] !== undefined);
  const r = site.read();
  assert.equal(pv.state?.['solarPower'], Math.round(r.pvW) / 1000);
  assert.equal(pv.state?.['state'], r.pvW > 5 ? 'PRODUCING' : 'IDLE');
  const meter = await hub.until(METER, (d) => d.isOnline && d.state?.['power'] !== undefined);
  // net-consumption is positive while importing, as the hub's meters are.
  assert.equal(meter.state?.['power'], Math.round(r.gridW) / 1000);
  assert.equal(meter.state?.['consumptionPower'], Math.round(r.loadW) / 1000);
  // Every request carried the token as a bearer; /info is the one the hub never needs for polling.
  assert.ok(sim.requests.length > 0);
  for (const request of sim.requests) assert.equal(request.headers['authorization'], `Bearer ${token}`);
  // The API shows the PV inverter's state as it was read.
  const res = await hub.api(`/pv-inverters/${PV}/refresh`);
  assert.equal(res.status, 200);
  const body = await res.json() as { powerState: { solarPower: number }; isOnline: boolean };
  assert.equal(body.isOnline, true);
  assert.equal(body.powerState.solarPower, Math.round(r.pvW) / 1000);
});

test('Enphase: the battery fields (sum of the batteries\' mW, inverted to positive-charging; agg_soc; reserve; capacity) are read by the driver', async (t) => {
  const { site, binding } = await rig(t, { batteries: 3 });
  const { HttpReader } = await import('../../../src/runtime/http/http-reader.ts');
  const { default: enphase } = await import('../../../drivers/http/enphase-envoy.ts');
  const reader = new HttpReader(enphase, binding(), { now: () => Date.now() });
  const state = await reader.readState('battery', { timeoutMs: 5000 });
  const r = site.read();
  // The simulator splits the battery power over 3 batteries in whole mW; the sum is within 3 mW.
  assert.ok(Math.abs((state['chargeRate'] as number) - r.batteryW / 1000) < 0.001, `${String(state['chargeRate'])} vs ${r.batteryW / 1000}`);
  assert.equal(state['stateOfCharge'], Math.round(r.socPct));
  assert.equal(state['chargeLimitMin'], 20);
  assert.equal(state['chargingState'], r.batteryW > 20 ? 'CHARGING' : r.batteryW < -20 ? 'DISCHARGING' : 'IDLE');
  const fixed = await reader.readStatic('battery', { timeoutMs: 5000 });
  assert.equal(fixed['batteryCapacity'], site.batteryCapacityWh / 1000);
});

test('Enphase: PV power as pyenphase takes it per gateway: the production CT, the micros when the CTs are not set up, /api/v1/production without meters', async (t) => {
  const { HttpReader } = await import('../../../src/runtime/http/http-reader.ts');
  const { default: enphase } = await import('../../../drivers/http/enphase-envoy.ts');
  const read = async (meters: EnphaseSimOptions['meters']) => {
    const { site, binding } = await rig(t, { meters, batteries: 0 });
    const reader = new HttpReader(enphase, binding(), { now: () => Date.now() });
    return { r: site.read(), pv: await reader.readState('pvInverter', { timeoutMs: 5000 }), meter: await reader.readState('meter', { timeoutMs: 5000 }) };
  };
  // With CTs (fixture 8.2.4286…): production.json's production CT, not /api/v1/production's figure.
  const cts = await read('cts');
  assert.equal(cts.pv['solarPower'], Math.round(cts.r.pvW) / 1000);
  assert.notEqual(cts.pv['solarPower'], Math.round(cts.r.pvW * 0.99) / 1000, 'the simulator\'s /api/v1/production differs, as on the gateway');
  assert.equal(cts.meter['power'], Math.round(cts.r.gridW) / 1000);
  // Metered, CTs not set up (fixture 8.2.4264_metered_noct): /api/v1/production is stalled at 4 W;
  // the micros are the figure, and the idle CTs' noise is no meter reading.
  const noCt = await read('metered-no-ct');
  assert.equal(noCt.pv['solarPower'], Math.round(noCt.r.pvW) / 1000);
  assert.equal(noCt.meter['power'], undefined);
  assert.equal(noCt.meter['consumptionPower'], undefined);
  // No meter (fixture 7.6.114_without_cts): /api/v1/production.
  const none = await read('none');
  assert.equal(none.pv['solarPower'], Math.round(none.r.pvW) / 1000);
});

test('Enphase: a gateway without batteries leaves the battery fields absent (404 on the ensemble endpoints), not an error', async (t) => {
  const { binding } = await rig(t, { batteries: 0 });
  const { HttpReader } = await import('../../../src/runtime/http/http-reader.ts');
  const { default: enphase } = await import('../../../drivers/http/enphase-envoy.ts');
  const state = await new HttpReader(enphase, binding(), { now: () => Date.now() }).readState('battery', { timeoutMs: 5000 });
  // production.json's ACB entry (no AC Batteries: 0 W) is all there is.
  assert.equal(state['stateOfCharge'], undefined);
  assert.equal(state['chargeRate'], 0);
});

test('Enphase: a token the gateway refuses shows the device offline with the reason, asked again only at the longest back-off', async (t) => {
  const { sim, binding } = await rig(t);
  sim.token = 'another-token';
  const hub = await startHttpHub(t, [httpRecord('pvInverter', PV, 'ENPHASE', binding(), { isOnline: true })], { maxBackoffMs: 3_600_000 });
  await hub.until(PV, (d) => !d.isOnline);
  assert.match(hub.daemon.http!.offlineReason(PV) ?? '', /refused the token \(401\)/);
  // The household page tells the same reason (docs/household-page.md).
  const page = await fetch(`${hub.daemon.url}/home/devices`, { headers: { 'x-api-key': HTTP_HUB_KEY } });
  const listed = ((await page.json()) as { devices: { kind: string; reason?: { code: string; text?: string } }[] }).devices.find((d) => d.kind === 'pvInverter');
  assert.equal(listed?.reason?.code, 'driver');
  assert.match(listed?.reason?.text ?? '', /refused the token \(401\)/);
  const asked = sim.requests.length;
  // A refresh is a live read: 503 with the reason.
  const res = await hub.api(`/pv-inverters/${PV}/refresh`);
  assert.equal(res.status, 503, await res.text());
  // Polling does not hammer the gateway: one request for the refresh, and the next poll is an hour
  // away (the longest back-off of this hub), not the 15 s poll interval.
  assert.ok(sim.requests.length <= asked + 1);
  assert.ok(hub.daemon.http!.nextPollAt(PV)! >= Date.now() + 3_500_000);
});

test('Enphase: an expired token is not even sent: the device is offline with the expiry date', async (t) => {
  const expired = jwt(Math.floor(Date.parse('2026-01-01T00:00:00Z') / 1000));
  const { sim, binding } = await rig(t, { token: expired });
  const hub = await startHttpHub(t, [httpRecord('pvInverter', PV, 'ENPHASE', binding(), { isOnline: true })]);
  await hub.until(PV, (d) => !d.isOnline);
  assert.match(hub.daemon.http!.offlineReason(PV) ?? '', /token expired on 2026-01-01T00:00:00.000Z/);
  // A refresh says why, as docs/drivers-http.md promises: not a bare "disconnected".
  const res = await hub.api(`/pv-inverters/${PV}/refresh`);
  assert.equal(res.status, 503);
  const body = await res.json() as { errorCode: string; message: string };
  assert.equal(body.errorCode, 'DEVICE_IS_DISCONNECTED');
  assert.match(body.message, /is disconnected: the token expired on 2026-01-01T00:00:00.000Z/);
  assert.equal(sim.requests.length, 0);
});

test('Enphase: a gateway presenting another certificate is refused before the token is sent, until the installer accepts it', async (t) => {
  const { sim, binding, cert } = await rig(t);
  // The gateway was replaced: a new self-signed certificate on the same address.
  await sim.stop();
  const replaced = deviceCertificate(t, 'envoy');
  await sim.start({ port: 0, tls: replaced });
  const hub = await startHttpHub(t, [httpRecord('pvInverter', PV, 'ENPHASE', binding(), { isOnline: true })]);
  const res = await hub.api(`/pv-inverters/${PV}/refresh`);
  assert.equal(res.status, 503);
  await assert.rejects(hub.daemon.http!.refresh(hub.device(PV)!), /another TLS certificate \(SHA-256 [0-9A-F:]{95}\)/);
  assert.equal(sim.requests.length, 0, 'no request reached the device: the token never left the hub');
  assert.notEqual(replaced.pinned.sha256, cert.pinned.sha256);
  // The installer accepts the new certificate: the binding's pin changes and the device is read.
  const device = hub.device(PV)!;
  hub.daemon.db.devices.updateDriver(PV, { ...device.driver!, tls: replaced.pinned });
  hub.daemon.http!.sync();
  const ok = await hub.api(`/pv-inverters/${PV}/refresh`);
  assert.equal(ok.status, 200, await ok.text());
});

test('Enphase: a gateway that takes the request and never answers fails the refresh within the timeout and does not stall the hub', async (t) => {
  const { sim, binding } = await rig(t);
  sim.faults.hang = true;
  const hub = await startHttpHub(t, [httpRecord('pvInverter', PV, 'ENPHASE', binding({ timeoutMs: 300 }), { isOnline: true })], { refreshTimeoutMs: 2000 });
  const started = Date.now();
  const res = await hub.api(`/pv-inverters/${PV}/refresh`);
  assert.equal(res.status, 503);
  assert.ok(Date.now() - started < 2000);
  await assert.rejects(hub.daemon.http!.refresh(hub.device(PV)!), /no answer within 300 ms/);
  await hub.until(PV, (d) => !d.isOnline);
  // The API still answers at once.
  assert.equal((await hub.api('/users/household-1/pv-inverters')).status, 200);
});

test('Enphase: a refresh while a poll hangs answers 503 within the refresh\'s time, not after the poll\'s', async (t) => {
  const { sim, binding } = await rig(t);
  // A poll's request may take 4 s; a refresh has 1 s in all, the poll it waits for included.
  const hub = await startHttpHub(t, [httpRecord('pvInverter', PV, 'ENPHASE', binding({ timeoutMs: 4000, pollIntervalMs: 300 }))], { refreshTimeoutMs: 1000 });
  await hub.until(PV, (d) => d.isOnline);
  sim.faults.hang = true;
  // The next poll's request is taken and not answered.
  await sim.requestsReach(sim.requests.length + 1);
  const started = Date.now();
  const res = await hub.api(`/pv-inverters/${PV}/refresh`);
  const took = Date.now() - started;
  assert.equal(res.status, 503);
  assert.equal((await res.json() as { errorCode: string }).errorCode, 'DEVICE_IS_DISCONNECTED');
  assert.ok(took < 3000, `the refresh took ${took} ms`);
});

test('Enphase: the gateway added as PV inverter and as meter is asked one request at a time, not once per device record', async (t) => {
  const { sim, binding } = await rig(t);
  sim.faults.delayMs = 50;
  const hub = await startHttpHub(t, [
    httpRecord('pvInverter', PV, 'ENPHASE', binding({ pollIntervalMs: 200 })),
    httpRecord('meter', METER, 'ENPHASE', binding({ pollIntervalMs: 200 })),
  ]);
  await hub.until(PV, (d) => d.isOnline);
  await hub.until(METER, (d) => d.isOnline);
  // Refreshes of both at once join the same lane as the polls.
  await Promise.all([hub.daemon.http!.refresh(hub.device(PV)!), hub.daemon.http!.refresh(hub.device(METER)!)]);
  assert.ok(sim.requests.length >= 4);
  assert.equal(sim.mostOpen, 1);
});

test('Enphase: a hub stopping while a request hangs ends at once and does not show the gateway offline', async (t) => {
  const { sim, binding } = await rig(t);
  const hub = await startHttpHub(t, [httpRecord('pvInverter', PV, 'ENPHASE', binding({ timeoutMs: 60_000 }))], { refreshTimeoutMs: 60_000 });
  await hub.until(PV, (d) => d.isOnline);
  sim.faults.hang = true;
  const asked = sim.requests.length;
  const refreshing = hub.daemon.http!.refresh(hub.device(PV)!).catch((err: Error) => err);
  await sim.requestsReach(asked + 1);
  const started = Date.now();
  await hub.daemon.stop();
  assert.ok(Date.now() - started < 10_000, 'stop is not held by the hanging request');
  assert.match(String(await refreshing), /stopping/);
  const store = Store.open(join(hub.dataDir, 'hub.db'));
  t.after(() => store.close());
  assert.equal(store.devices.get(PV)!.isOnline, true);
});

test('Enphase: a gateway imported without its token (an export leaves it out) is not asked, shows why and what to do, and reads once given it', async (t) => {
  const { sim, binding, token } = await rig(t);
  const { token: _left, ...withoutToken } = binding();
  // Imported as the export writes it: online as it was on the old hub.
  const hub = await startHttpHub(t, [httpRecord('pvInverter', PV, 'ENPHASE', withoutToken, { isOnline: true })]);
  await hub.until(PV, (d) => !d.isOnline);
  const why = `no token in its binding (an export leaves secrets out): give it with \`npm run hub -- devices secret ${PV} token\` (installed: \`sudo home-energy-hub devices secret ${PV} token\`)`;
  assert.equal(hub.daemon.http!.offlineReason(PV), why);
  const page = await fetch(`${hub.daemon.url}/home/devices`, { headers: { 'x-api-key': HTTP_HUB_KEY } });
  const listed = ((await page.json()) as { devices: { kind: string; reason?: { code: string; text?: string } }[] }).devices.find((d) => d.kind === 'pvInverter');
  assert.deepEqual(listed?.reason, { code: 'driver', text: why });
  const res = await hub.api(`/pv-inverters/${PV}/refresh`);
  assert.equal(res.status, 503);
  assert.match(((await res.json()) as { message: string }).message, /no token in its binding .*hub devices secret/);
  // Without a token it could only be refused: it was not asked at all.
  assert.equal(sim.requests.length, 0);
  // The token given again (as `hub devices secret` stores it): read at the next resync.
  hub.daemon.db.devices.updateDriver(PV, { ...withoutToken, token });
  hub.daemon.http!.sync();
  await hub.until(PV, (d) => d.isOnline && d.state?.['solarPower'] !== undefined);
  assert.equal(hub.daemon.http!.offlineReason(PV), undefined);
});
