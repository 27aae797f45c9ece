// The hub as src/main.ts runs it, its wall clock moved from outside with libfaketime (issue 33): a
// fresh image boots in 1970 and NTP later sets the clock. A charger booting meanwhile is held Pending
// (it is not handed 1970), then Accepted with the right time once the clock is set. A hub-run schedule
// whose clock is set back applies the event in force at once (the occurrence applied last, now in the
// future, holds nothing back). A pinned HTTPS device whose certificate lies in the hub's future (the hub
// booted behind) is reached: the pin is trusted whatever the certificate's dates. A grid meter read at
// 1970 gives no point dated 1970: its samples are dated once the clock is set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHubProcess, until } from '../support/process.ts';
import { Store } from '../../src/store/store.ts';
import { prepareImport } from '../../src/domain/import.ts';
import { ChargePointSim } from '../../src/sim/ocpp/charge-point-sim.ts';
import { ocppCharger, PASSWORD } from '../support/ocpp-hub.ts';
import { skipWithout } from '../support/peers.ts';
import { fakedClock } from '../support/faketime.ts';
import { freePort } from '../support/broker.ts';
import { ModbusSimServer, readHoldingRegisters } from '../../src/sim/modbus-sim-server.ts';
import Database from 'better-sqlite3';
import { drivenRecord } from '../support/mqtt-hub.ts';
import { HEAT_PUMP, HeatPumpUnit, heatPumpRecord } from '../support/heat-pump-unit.ts';
import { DaikinSim } from '../../src/sim/http/daikin-sim.ts';
import { deviceCertificate, httpRecord, started } from '../support/http-hub.ts';

const KEY = 'clock-step-test-key-0123456789abcdef';
const CHARGER = '0c000000-0000-4000-8000-0000000c10c1';

test('a hub booted in 1970: a charger is held Pending, then Accepted with the right time once NTP sets the clock', { skip: skipWithout('libfaketime') }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-clock-step-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const seed = Store.open(join(dir, 'hub.db'));
  const prepared = prepareImport([ocppCharger(CHARGER, 'CP-1970')], Date.now(), () => undefined);
  seed.importDevices(prepared.devices, prepared.images, Date.now(), prepared.ocppCredentials);
  seed.close();

  const clock = fakedClock(t, '1970-01-01T00:00:02Z');
  const port = String(await freePort());
  const hub = await startHubProcess({ HUB_DATA_DIR: dir, HUB_API_KEY: KEY, HUB_HTTP_PORT: port, ...clock.env });
  t.after(() => hub.kill());
  const sim = new ChargePointSim({ endpoint: `ws://127.0.0.1:${port}/ocpp`, identity: 'CP-1970', password: PASSWORD, pendingRetryMs: 200 });
  t.after(() => sim.close());
  const connected = sim.connect();
  connected.catch(() => {});
  await until('the charger\'s first boot to be answered', () => (sim.boots.length > 0 ? true : undefined));
  assert.equal(sim.boots[0]!.status, 'Pending', `answered ${JSON.stringify(sim.boots[0])}`);
  assert.ok(sim.boots[0]!.interval > 0);

  clock.set(new Date().toISOString()); // NTP sets the clock
  await connected;
  const accepted = sim.boots.at(-1)!;
  assert.equal(accepted.status, 'Accepted');
  assert.ok(Math.abs(Date.parse(accepted.currentTime) - Date.now()) < 10_000, `currentTime ${accepted.currentTime} is the right time`);
  assert.ok(sim.boots.every((boot) => boot.status !== 'Accepted' || !boot.currentTime.startsWith('1970')), 'never handed 1970 with an Accepted');
});

test('a hub-run schedule on a clock set back past the occurrence applied last: the event in force is applied at once', { skip: skipWithout('libfaketime') }, async (t) => {
  const unit = new HeatPumpUnit();
  const written: number[] = [];
  const write = unit.write.bind(unit);
  unit.write = (address, values) => {
    if (address === 100) written.push(values[0]! / 10);
    return write(address, values);
  };
  const sim = await ModbusSimServer.tcp(new Map([[1, unit]]));
  const dir = mkdtempSync(join(tmpdir(), 'hub-clock-schedule-'));
  t.after(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const seed = Store.open(join(dir, 'hub.db'));
  const prepared = prepareImport([heatPumpRecord(sim.port)], Date.now(), () => undefined);
  seed.importDevices(prepared.devices, prepared.images, Date.now());
  seed.close();

  // A Wednesday in winter; the hub's zone is UTC (TZ of the faked clock's environment).
  const clock = fakedClock(t, '2027-01-13T08:29:56Z');
  const hub = await startHubProcess({ HUB_DATA_DIR: dir, HUB_API_KEY: KEY, ...clock.env });
  t.after(() => hub.kill());
  const res = await fetch(`${hub.url}/v1.0.0/hvacs/${HEAT_PUMP}/commands/schedule`, {
    method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ schedules: [
      { mode: 'HEAT', temperature: 21, start: { day: 'WEDNESDAY', time: '06:00' } },
      { mode: 'HEAT', temperature: 19, start: { day: 'WEDNESDAY', time: '08:30' } },
    ] }),
  });
  assert.equal(res.status, 200);
  await until('08:30\'s 19 °C to be applied', () => (written.includes(19) ? true : undefined), 20_000);
  written.length = 0;

  // A bad time source sets the clock back 20 s, before 08:30: 06:00's 21 °C is in force again. (The
  // next poll of the heat pump may wait for as long as the clock went back: the poller's pacing.)
  clock.set(new Date(Date.parse('2027-01-13T08:29:40Z')).toISOString());
  await until('06:00\'s 21 °C to be applied again', () => (written.includes(21) ? true : undefined), 30_000);
});

test('a hub booted a week behind reaches a pinned HTTPS device whose certificate is not yet valid on its clock', { skip: skipWithout('libfaketime') }, async (t) => {
  const AC = '6f1c2a4e-0000-4000-8000-0000000c1ac1';
  const cert = deviceCertificate(t, 'daikin'); // made now: valid from now, in the faked clock's future
  const sim = await started(t, new DaikinSim({ uuid: '0123456789abcdef0123456789abcdef' }), cert);
  const dir = mkdtempSync(join(tmpdir(), 'hub-clock-pin-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const seed = Store.open(join(dir, 'hub.db'));
  const driver = { type: 'daikin-brp069', host: '127.0.0.1', port: sim.port, scheme: 'https', tls: cert.pinned, uuid: '0123456789abcdef0123456789abcdef' };
  const prepared = prepareImport([httpRecord('hvac', AC, 'DAIKIN', driver, { type: 'AC' })], Date.now(), () => undefined);
  seed.importDevices(prepared.devices, prepared.images, Date.now());
  seed.close();

  const clock = fakedClock(t, new Date(Date.now() - 7 * 24 * 3_600_000).toISOString());
  const hub = await startHubProcess({ HUB_DATA_DIR: dir, HUB_API_KEY: KEY, ...clock.env });
  t.after(() => hub.kill());
  const online = await until('the AC to be read over HTTPS', async () => {
    const res = await fetch(`${hub.url}/v1.0.0/users/household-1/hvacs/${AC}`, { headers: { 'x-api-key': KEY } });
    const body = (await res.json()) as { isOnline?: boolean };
    return body.isOnline ? true : undefined;
  }, 15_000);
  assert.equal(online, true);
  assert.ok(sim.requests.length > 0);
});

test('a grid meter read while the hub is at 1970: its samples are kept and dated once the clock is set, none dated 1970', { skip: skipWithout('libfaketime') }, async (t) => {
  const METER = '2f7e4c3a-0000-4000-8000-0000000c1b01';
  // A grid meter importing 2 kW (register 0, W) while the hub is at 1970, 4 kW after.
  const registers = new Map([[0, 2000]]);
  const sim = await ModbusSimServer.tcp(new Map([[1, { read: (fn: 3 | 4, address: number, count: number) => readHoldingRegisters(registers, fn, address, count), write: () => false }]]));
  const dir = mkdtempSync(join(tmpdir(), 'hub-clock-series-'));
  t.after(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const dbPath = join(dir, 'hub.db');
  const seed = Store.open(dbPath);
  const record = drivenRecord('meter', METER, 'SMA', {
    type: 'modbus-registers', host: '127.0.0.1', port: sim.port, unitId: 1, kind: 'meter', pollIntervalMs: 500, role: 'grid',
    points: { power: { register: 0, type: 'int16', scale: 0.001 } }, fields: { power: { point: 'power', digits: 3 } },
  });
  const prepared = prepareImport([record], Date.now(), () => undefined);
  seed.importDevices(prepared.devices, prepared.images, Date.now());
  seed.close();

  const clock = fakedClock(t, '1970-01-01T00:00:02Z');
  const hub = await startHubProcess({ HUB_DATA_DIR: dir, HUB_API_KEY: KEY, ...clock.env });
  t.after(() => hub.kill());
  const api = (path: string) => fetch(`${hub.url}/v1.0.0${path}`, { headers: { 'x-api-key': KEY } }).then((r) => r.json());
  // Read for more than one sampling interval (10 s) at 1970: its lastUpdated moves with every read.
  await until('the meter to be read over 12 s at 1970', async () => {
    const meter = (await api(`/users/household-1/meters/${METER}`)) as { isOnline?: boolean; lastUpdated?: string };
    return meter.isOnline && (meter.lastUpdated ?? '') >= '1970-01-01T00:00:14Z' ? true : undefined;
  }, 30_000);
  // Set 15 s before a 5-minute boundary: the 5 minutes under way (with the samples taken at 1970,
  // dated now) close as the boundary passes.
  const boundary = Math.ceil((Date.now() + 60_000) / 300_000) * 300_000;
  registers.set(0, 4000);
  clock.set(new Date(boundary - 15_000).toISOString());
  const series = await until('a point of the curve', async () => {
    const { points } = (await api('/users/household-1/household/series')) as { points: { startDate: string; gridPower?: number }[] };
    return points.length > 0 ? points : undefined;
  }, 40_000);
  assert.ok(series.every((p) => p.startDate.startsWith(new Date(boundary).toISOString().slice(0, 10))), JSON.stringify(series));
  await hub.kill('SIGTERM'); // a clean stop writes the points
  const db = new Database(dbPath, { readonly: true });
  t.after(() => db.close());
  const rows = db.prepare('SELECT start_at AS startMs, grid_kw AS gridKw FROM household_points').all() as { startMs: number; gridKw: number }[];
  assert.ok(rows.length > 0);
  assert.deepEqual(rows.filter((r) => r.startMs < boundary - 3_600_000), [], 'no point dated 1970');
  const last = rows.find((r) => r.startMs === boundary - 300_000);
  assert.ok(last && last.gridKw > 2 && last.gridKw < 4, `the 5 minutes before the boundary hold the 2 kW sampled at 1970 (dated) and the 4 kW after: ${JSON.stringify(rows)}`);
});
