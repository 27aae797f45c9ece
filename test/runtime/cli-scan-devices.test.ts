import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runScan } from '../../src/cli/scan.ts';
import { runDevices } from '../../src/cli/devices.ts';
import { hybridSettings } from '../../src/runtime/modbus/modbus-discovery.ts';
import { Store } from '../../src/store/store.ts';
import { SiteModel } from '../../src/sim/site-model.ts';
import { sunspecBattery, sunspecHybrid, sunspecInverter, sunspecMeter } from '../../src/sim/sunspec-sims.ts';
import { huaweiSun2000 } from '../../src/sim/huawei-sim.ts';
import { simOn } from './support.ts';

/** A KOSTAL PLENTICORE's model 1 as evcc issue 31535 shows it (unit 71, port 1502 there). */
const KOSTAL = { manufacturer: 'KOSTAL', model: 'PLENTICORE plus8', serial: '90523TD90001R' };

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

test('hub scan probes unit ids and bases, shows progress and reports what answers', async (t) => {
  const site = new SiteModel({ now: () => Date.parse('2026-06-21T12:00:00Z') });
  const sim = await simOn(t, {
    1: sunspecInverter(site), 126: sunspecInverter(site, { manufacturer: 'SMA', model: 'Sunny Boy 5.0', base: 0 }),
    200: sunspecMeter(site), 3: huaweiSun2000(site),
  });
  const { io, out, err } = capture();
  assert.equal(await runScan([`127.0.0.1:${sim.port}`, '--units', '1-3,126,200', '--timeout', '300'], io), 0);
  assert.ok(err.some((l) => l.includes('[5/5] unit 200')), 'progress names each probe');
  const report = out.join('\n');
  assert.match(report, /found 4 device/);
  assert.match(report, /unit 1 .*Fronius.*SunSpec at 40000, models 1,103,120,160\) -> driver fronius, kinds pvInverter/);
  assert.match(report, /unit 126 .*SMA Sunny Boy 5\.0.*SunSpec at 0.*driver sma/);
  assert.match(report, /unit 200 .*models 1,203\) -> driver fronius, kinds meter/);
  assert.match(report, /unit 3 .*SUN2000.*driver huawei-sun2000, kinds pvInverter, battery, meter/);
  const none = capture();
  assert.equal(await runScan([`127.0.0.1:${sim.port}`, '--units', '9'], none.io), 1);
  assert.equal(await runScan([], none.io), 2);
});

test('hub devices add detects the device, reads its model and capacity, and saves it; list shows it', async (t) => {
  const site = new SiteModel({ now: () => Date.parse('2026-06-21T12:00:00Z') });
  const sim = await simOn(t, { 1: sunspecBattery(site, { manufacturer: 'Fronius' }) });
  const smaSim = await simOn(t, { 126: sunspecInverter(site, { manufacturer: 'SMA', model: 'STP 8.0' }) });
  const dir = mkdtempSync(join(tmpdir(), 'hub-devices-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));

  const add = capture();
  assert.equal(await runDevices(['add', '--user', 'alice', '--host', '127.0.0.1', '--port', String(sim.port), '--unit', '1', '--name', 'Garage'], add.io, dir), 0, add.err.join('\n'));
  assert.match(add.out.join('\n'), /added battery .* \(FRONIUS BYD Battery-Box Premium HVS 10\.2\) for alice/);
  const sma = capture();
  // No unit id given: detection tries 1, then 126 where SMA answers.
  assert.equal(await runDevices(['add', '--user', 'bob', '--host', `127.0.0.1:${smaSim.port}`], sma.io, dir), 0, sma.err.join('\n'));

  const store = Store.open(join(dir, 'hub.db'));
  try {
    const [battery, inverter] = store.devices.driven();
    assert.equal(battery!.kind, 'battery');
    const { lastUpdated, ...staticData } = battery!.staticData;
    assert.deepEqual(staticData, { batteryCapacity: 10.24 });
    assert.match(String(lastUpdated), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, 'read from the device as it was added, and stamped then');
    assert.deepEqual(battery!.driver, { type: 'fronius', host: '127.0.0.1', port: sim.port, unitId: 1 });
    assert.equal(battery!.state!['stateOfCharge'], Math.round(site.read().socPct * 10) / 10);
    // The read made while adding is a measurement: the device and its state are stamped with it.
    assert.equal(typeof battery!.lastUpdatedMs, 'number');
    assert.equal(battery!.state!['lastUpdated'], new Date(battery!.lastUpdatedMs!).toISOString().replace('.000Z', 'Z'));
    assert.equal(typeof inverter!.lastUpdatedMs, 'number');
    assert.equal(inverter!.vendor, 'SMA');
    assert.deepEqual(inverter!.driver, { type: 'sma', host: '127.0.0.1', port: smaSim.port, unitId: 126 });
  } finally {
    store.close();
  }
  // The same unit again (found again by detection) is the device added already: named, not added twice.
  const again = capture();
  assert.equal(await runDevices(['add', '--user', 'bob', '--host', `127.0.0.1:${smaSim.port}`], again.io, dir), 1);
  assert.match(again.err.join('\n'), new RegExp(`this pvInverter is device [0-9a-f-]{36} already \\(SMA of bob, at sma, host 127\\.0\\.0\\.1, port ${smaSim.port}, unitId 126\\): nothing changed; give --update to update it in place`));
  const updated = capture();
  assert.equal(await runDevices(['add', '--user', 'bob', '--host', `127.0.0.1:${smaSim.port}`, '--name', 'Carport', '--update'], updated.io, dir), 0, updated.err.join('\n'));
  assert.match(updated.out.join('\n'), /^updated pvInverter .* for bob$/m);
  const list = capture();
  assert.equal(await runDevices(['list'], list.io, dir), 0);
  assert.match(list.out.join('\n'), /^2 devices$/m);
  assert.match(list.out.join('\n'), /pvInverter\s+SMA\s+bob\s+Carport/);
  const bad = capture();
  assert.equal(await runDevices(['add', '--user', 'x', '--host', '127.0.0.1', '--port', String(sim.port), '--driver', 'nope'], bad.io, dir), 2);
});

test('a default scan probes the unit ids makers use: KOSTAL on 71, Fronius secondary meters on 201–204', async (t) => {
  const site = new SiteModel({ now: () => Date.parse('2026-06-21T12:00:00Z') });
  const sim = await simOn(t, {
    71: sunspecInverter(site, KOSTAL),
    200: sunspecMeter(site),
    202: sunspecMeter(site),
  });
  const { io, out, err } = capture();
  assert.equal(await runScan([`127.0.0.1:${sim.port}`, '--timeout', '200'], io), 0, err.join('\n'));
  const report = out.join('\n');
  assert.match(report, /found 3 device/);
  assert.match(report, /unit 71 .*KOSTAL PLENTICORE plus8/);
  assert.match(report, /unit 200 .*kinds meter/);
  assert.match(report, /unit 202 .*kinds meter/);
  assert.ok(err.some((l) => /\[\d+\/12\] unit 240/.test(l)), 'progress over the twelve default ids');
});

test('no phantom kinds: an empty model 124 offers no battery, a SUN2000 without a meter (37100 = 0) offers no meter', async (t) => {
  const site = new SiteModel({ now: () => Date.parse('2026-06-21T12:00:00Z') });
  const sim = await simOn(t, {
    126: sunspecInverter(site, { manufacturer: 'SMA', model: 'SB3.6-1AV-41', base: 40000, emptyModels: [124] }),
    1: huaweiSun2000(site, 'SUN2000-5KTL-L1', { meter: false }),
    2: huaweiSun2000(site),
  });
  const { io, out, err } = capture();
  assert.equal(await runScan([`127.0.0.1:${sim.port}`, '--units', '1,2,126', '--timeout', '200'], io), 0, err.join('\n'));
  const report = out.join('\n');
  assert.match(report, /unit 126 .*models 1,103,120,160,124\) -> driver sma, kinds pvInverter$/m);
  assert.match(report, /unit 1 .*SUN2000.*kinds pvInverter, battery$/m);
  assert.match(report, /unit 2 .*SUN2000.*kinds pvInverter, battery, meter$/m);
});

test('a maker without a vendor code is added under the code given, its own maker and model kept in staticData.model', async (t) => {
  const site = new SiteModel({ now: () => Date.parse('2026-06-21T12:00:00Z') });
  const sim = await simOn(t, { 71: sunspecInverter(site, KOSTAL) });
  const dir = mkdtempSync(join(tmpdir(), 'hub-devices-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const refused = capture();
  assert.equal(await runDevices(['add', '--user', 'alice', '--host', `127.0.0.1:${sim.port}`], refused.io, dir), 2, 'no vendor code for KOSTAL: asked for one');
  assert.match(refused.err.join('\n'), /give --vendor/);
  const add = capture();
  assert.equal(await runDevices(['add', '--user', 'alice', '--host', `127.0.0.1:${sim.port}`, '--vendor', 'FRONIUS'], add.io, dir), 0, add.err.join('\n'));
  assert.match(add.out.join('\n'), /added pvInverter .* \(FRONIUS KOSTAL PLENTICORE plus8\) for alice/);
  const store = Store.open(join(dir, 'hub.db'));
  try {
    const [inverter] = store.devices.driven();
    assert.equal(inverter!.vendor, 'FRONIUS');
    assert.equal(inverter!.model, 'KOSTAL PLENTICORE plus8');
    assert.equal(inverter!.driver!['unitId'], 71, 'found on unit 71 without --unit');
  } finally {
    store.close();
  }
});

test('hub devices add on a GEN24: its StCha/StDisCha modules give the battery its charge rate and the PV inverter its DC solar power', async (t) => {
  const site = new SiteModel({ now: () => Date.parse('2026-06-21T12:00:00Z'), initialSocPct: 50 });
  const sim = await simOn(t, { 1: sunspecHybrid(site) });
  const dir = mkdtempSync(join(tmpdir(), 'hub-devices-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const kind of ['battery', 'pvInverter']) {
    const add = capture();
    assert.equal(await runDevices(['add', '--user', 'alice', '--host', `127.0.0.1:${sim.port}`, '--kind', kind], add.io, dir), 0, add.err.join('\n'));
  }
  const now = site.read();
  assert.ok(now.batteryW > 0 && now.pvW > now.batteryW, 'the battery charges from the sun at noon');
  const store = Store.open(join(dir, 'hub.db'));
  try {
    const devices = store.devices.driven();
    const battery = devices.find((d) => d.kind === 'battery')!;
    const inverter = devices.find((d) => d.kind === 'pvInverter')!;
    assert.deepEqual(battery.driver!['batteryMppt'], { charge: [3], discharge: [4] });
    assert.equal(battery.state!['chargeRate'], now.batteryW / 1000);
    assert.equal(typeof battery.state!['lastUpdated'], 'string');
    assert.equal(inverter.driver!['solarPowerFrom'], 'mppt');
    assert.ok(Math.abs((inverter.state!['solarPower'] as number) - now.pvW / 1000) <= 0.001, `DC solar power ${inverter.state!['solarPower']} vs ${now.pvW / 1000}, not the AC ${(now.pvW - now.batteryW) / 1000}`);
  } finally {
    store.close();
  }
});

test('hybrid settings from model 160 module names as a GEN24 sends them ("StCha 3", evcc issue 16256)', () => {
  const gen24 = ['MPPT 1', 'MPPT 2', 'StCha 3', 'StDisCha 4'];
  assert.deepEqual(hybridSettings(gen24, 'battery'), { batteryMppt: { charge: [3], discharge: [4] } });
  assert.deepEqual(hybridSettings(gen24, 'pvInverter'), { batteryMppt: { charge: [3], discharge: [4] }, solarPowerFrom: 'mppt' });
  assert.deepEqual(hybridSettings(['MPPT 1', 'MPPT 2'], 'pvInverter'), {}, 'no storage modules: nothing to set');
  assert.deepEqual(hybridSettings(gen24, 'meter'), {});
});
