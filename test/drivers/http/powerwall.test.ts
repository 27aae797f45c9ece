// The Powerwall driver against its simulator over HTTPS with a self-signed certificate: the
// customer login and its session cookies, a session the gateway dropped (logged in again once), a
// refused login, the gateway's 5 % reserve scaling, signs and units, and a gateway that rate-limits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SiteModel } from '../../../src/sim/site-model.ts';
import { PowerwallSim } from '../../../src/sim/http/powerwall-sim.ts';
import { HttpReader } from '../../../src/runtime/http/http-reader.ts';
import powerwall from '../../../drivers/http/tesla-powerwall.ts';
import { deviceCertificate, httpRecord, started, startHttpHub } from '../../support/http-hub.ts';

const BATTERY = '00000000-0000-4000-8000-0000000000f1';
const CREDENTIALS = { email: 'owner@example.com', password: 'S3cr"et\\5' };
const STILL = () => Date.parse('2026-06-21T13:00:00Z');

async function rig(t: import('node:test').TestContext, options: Partial<ConstructorParameters<typeof PowerwallSim>[1]> = {}) {
  const site = new SiteModel({ pvPeakW: 7000, initialSocPct: 80, batteryCapacityWh: 13_500, now: STILL });
  const cert = deviceCertificate(t, 'powerwall');
  const sim = await started(t, new PowerwallSim(site, { ...CREDENTIALS, ...options }), cert);
  const binding = (extra: Record<string, unknown> = {}) => ({ type: 'tesla-powerwall', host: '127.0.0.1', port: sim.port, ...CREDENTIALS, tls: cert.pinned, ...extra });
  const reader = (extra: Record<string, unknown> = {}) => new HttpReader(powerwall, binding(extra), { now: () => Date.now() });
  return { site, sim, binding, reader };
}

test('Powerwall: battery, solar and grid fields in the API\'s units and signs; the state of charge on the app\'s scale', async (t) => {
  const { site, sim, reader } = await rig(t, { packs: 2, backupReservePercent: 24, realMode: 'autonomous' });
  const read = reader();
  const battery = await read.readState('battery', { timeoutMs: 5000 });
  const r = site.read();
  // The gateway says 5 + soc × 0.95; the app (and the hub) show (gateway − 5) / 0.95.
  assert.equal(battery['stateOfCharge'], Math.round(r.socPct * 10) / 10);
  assert.equal(battery['chargeLimitMin'], 20);
  assert.equal(battery['mode'], 'AUTO');
  // The gateway's battery power is positive while discharging; the hub's chargeRate while charging.
  assert.equal(battery['chargeRate'], Math.round(r.batteryW) / 1000);
  assert.equal(battery['chargingState'], r.batteryW > 50 ? 'CHARGING' : r.batteryW < -50 ? 'DISCHARGING' : 'IDLE');
  const fixed = await read.readStatic('battery', { timeoutMs: 5000 });
  assert.deepEqual(fixed, { batteryCapacity: 27, siteName: 'Tesla Home' });
  const pv = await read.readState('pvInverter', { timeoutMs: 5000 });
  assert.equal(pv['solarPower'], Math.round(r.pvW) / 1000);
  const meter = await read.readState('meter', { timeoutMs: 5000 });
  assert.equal(meter['power'], Math.round(r.gridW) / 1000);
  assert.equal(meter['energyImported'], Math.round(r.gridImportWh / 10) / 100);
  // One login for all of it, with the JSON-escaped password.
  assert.equal(sim.logins, 1);
  const login = sim.requests.find((q) => q.path === '/api/login/Basic')!;
  assert.deepEqual(JSON.parse(login.body), { username: 'customer', ...CREDENTIALS, force_sm_off: false });
  for (const q of sim.requests.filter((q) => q.path !== '/api/login/Basic')) assert.match(String(q.headers['cookie']), /AuthCookie=/);
});

test('Powerwall: a session the gateway dropped is renewed by one new login, and the read succeeds', async (t) => {
  const { sim, reader } = await rig(t);
  const read = reader();
  await read.readState('battery', { timeoutMs: 5000 });
  sim.expireSessions();
  const again = await read.readState('battery', { timeoutMs: 5000 });
  assert.equal(typeof again['stateOfCharge'], 'number');
  assert.equal(sim.logins, 2);
});

test('Powerwall: a refused login shows the device offline with the reason and is not retried until the longest back-off', async (t) => {
  const { sim, binding } = await rig(t);
  const hub = await startHttpHub(t, [httpRecord('battery', BATTERY, 'TESLA', binding({ password: 'wrong' }), { isOnline: true })], { maxBackoffMs: 3_600_000 });
  await hub.until(BATTERY, (d) => !d.isOnline);
  assert.match(hub.daemon.http!.offlineReason(BATTERY) ?? '', /refused the login \(401\): check the email and password/);
  const logins = sim.requests.filter((q) => q.path === '/api/login/Basic').length;
  assert.equal(logins, 1, 'one failed login, not a loop that would lock the account');
});

test('Powerwall: refreshes of a gateway that refused the login answer 503 with the reason and send no login of their own (an app polling the refresh would lock the account)', async (t) => {
  const { sim, binding } = await rig(t);
  const PV = '00000000-0000-4000-8000-0000000000f2';
  const hub = await startHttpHub(t, [httpRecord('pvInverter', PV, 'TESLA', binding({ password: 'wrong' }), { isOnline: true })], { maxBackoffMs: 3_600_000 });
  await hub.until(PV, (d) => !d.isOnline);
  const logins = () => sim.requests.filter((q) => q.path === '/api/login/Basic').length;
  assert.equal(logins(), 1);
  for (let i = 0; i < 3; i++) {
    const res = await hub.api(`/pv-inverters/${PV}/refresh`);
    assert.equal(res.status, 503);
    assert.equal((await res.json() as { errorCode: string }).errorCode, 'DEVICE_IS_DISCONNECTED');
  }
  await assert.rejects(hub.daemon.http!.refresh(hub.device(PV)!), /refused the login \(401\)/);
  assert.equal(logins(), 1, 'no login was tried again before the longest back-off');
});

test('Powerwall: a gateway that rate-limits (429, Retry-After) is left alone that long and stays online', async (t) => {
  const { sim, binding } = await rig(t);
  const hub = await startHttpHub(t, [httpRecord('battery', BATTERY, 'TESLA', binding({ pollIntervalMs: 200 }))]);
  await hub.until(BATTERY, (d) => d.isOnline && typeof d.state?.['stateOfCharge'] === 'number');
  // From now on the gateway takes 2 requests a minute and asks for 60 s of quiet after.
  sim.faults.rateLimitAfter = 2;
  sim.faults.rateWindowMs = 60_000;
  sim.faults.retryAfterSeconds = 60;
  await assert.rejects(hub.daemon.http!.refresh(hub.device(BATTERY)!).then(() => hub.daemon.http!.refresh(hub.device(BATTERY)!)), /asks the hub to wait 60 s/);
  // The next poll waits the minute out, although the poll interval is 200 ms.
  assert.ok(hub.daemon.http!.nextPollAt(BATTERY)! >= Date.now() + 55_000);
  assert.equal(hub.device(BATTERY)!.isOnline, true);
});
