import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SiteModel } from '../../../src/sim/site-model.ts';
import { sunspecBattery, sunspecInverter, sunspecMeter } from '../../../src/sim/sunspec-sims.ts';
import { DeviceUnreachableError } from '../../../src/runtime/devices/live.ts';
import type { PollResult } from '../../../src/runtime/modbus/modbus-poller.ts';
import { device, hubWith, simOn, until } from '../support.ts';

const PV = '1e6d3b2f-8b5c-4a8f-8c4f-2b3c4d5e6f01';
const BAT = '0d5c2a1e-7a4b-4f7e-9b3e-1a2b3c4d5e01';
const METER = '2f7e4c3a-9c6d-4b9a-9d5a-3c4d5e6f7a01';
const NOON = Date.parse('2026-06-21T12:00:00Z');

test('polled state reaches SQLite in API units with isOnline and lastUpdated, and unchanged values are not rewritten', async (t) => {
  const site = new SiteModel({ now: () => NOON });
  const sim = await simOn(t, { 1: sunspecInverter(site), 2: sunspecBattery(site), 3: sunspecMeter(site) });
  const at = (unitId: number) => ({ type: 'fronius', host: '127.0.0.1', port: sim.port, unitId });
  const { store, runtime, scheduler } = hubWith(t, [
    device('pvInverter', PV, at(1)), device('battery', BAT, at(2), { chargeState: { mode: 'SELF_CONSUMPTION', chargeRate: 9 } }),
    device('meter', METER, at(3)),
  ]);
  runtime.start();
  await until<string[]>(scheduler, 'written', () => [PV, BAT, METER].every((id) => store.devices.get(id)!.isOnline));
  const pv = store.devices.get(PV)!;
  assert.equal(pv.state!['state'], 'PRODUCING');
  assert.equal(typeof pv.state!['solarPower'], 'number');
  assert.equal(pv.state!['lastUpdated'], new Date(pv.lastUpdatedMs!).toISOString().replace('.000Z', 'Z'));
  assert.match(pv.state!['lastUpdated'] as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const battery = store.devices.get(BAT)!;
  assert.equal(battery.state!['mode'], 'SELF_CONSUMPTION', 'a field the device has no register for keeps its imported value');
  assert.equal(battery.state!['chargeRate'], site.read().batteryW / 1000, 'a mapped field takes the device value');
  assert.equal(typeof store.devices.get(METER)!.state!['power'], 'number');

  // The simulated site is frozen in time: further polls read the same values and write nothing to
  // the card; the time they were last confirmed moves on in memory (issue 33: a value unchanged for
  // days is still a fresh reading).
  const rows = scheduler.writer.rowsWritten;
  const stamp = store.devices.get(PV)!.lastUpdatedMs!;
  let polls = 0;
  await until<PollResult>(scheduler, 'polled', (r) => r.ok && ++polls >= 9);
  scheduler.flush();
  assert.equal(scheduler.writer.rowsWritten, rows);
  assert.ok(store.devices.get(PV)!.lastUpdatedMs! >= stamp);
});

test('a dead device on a shared connection goes offline and backs off, while its neighbour keeps being polled', async (t) => {
  const site = new SiteModel({ now: () => NOON });
  const sim = await simOn(t, { 1: sunspecInverter(site), 2: sunspecMeter(site) });
  const at = (unitId: number) => ({ type: 'sunspec', host: '127.0.0.1', port: sim.port, unitId });
  const { store, runtime, scheduler } = hubWith(t, [device('pvInverter', PV, at(1)), device('meter', METER, at(2))]);
  runtime.start();
  await until<string[]>(scheduler, 'written', () => store.devices.get(METER)!.isOnline && store.devices.get(PV)!.isOnline);

  sim.setFault(2, { kind: 'silence' });
  await until<string[]>(scheduler, 'written', () => !store.devices.get(METER)!.isOnline);
  const deadRequests = sim.requests.get(2)!;
  let healthy = 0;
  const started = Date.now();
  await until<PollResult>(scheduler, 'polled', (r) => r.deviceId === PV && r.ok && ++healthy >= 8);
  // 8 polls at 100 ms take ~0.8 s; each stall behind the dead meter would add its 200 ms timeout.
  assert.ok(Date.now() - started < 2000, `neighbour slowed down: ${Date.now() - started} ms`);
  assert.ok(sim.requests.get(2)! - deadRequests <= 3, 'the dead device is retried with back-off, not at every interval');
  assert.equal(store.devices.get(PV)!.isOnline, true);

  sim.setFault(2, { kind: 'none' });
  await until<string[]>(scheduler, 'written', () => store.devices.get(METER)!.isOnline, 4000);
});

test('refresh reads now and returns the stored fresh state; an unreachable device is DeviceUnreachableError', async (t) => {
  let now = NOON;
  const site = new SiteModel({ now: () => now });
  const sim = await simOn(t, { 1: sunspecInverter(site) });
  const { store, runtime } = hubWith(t, [
    device('pvInverter', PV, { type: 'fronius', host: '127.0.0.1', port: sim.port, unitId: 1, pollIntervalMs: 3_600_000 }),
    device('meter', METER, { type: 'fronius', host: '127.0.0.1', port: sim.port, unitId: 9 }),
    device('battery', BAT, { type: 'mqtt-something', topic: 'x' }),
  ]);
  now = NOON + 3_600_000; // an hour later: the sun has moved, the stored state has not
  const fresh = await runtime.refresh(store.devices.get(PV)!);
  assert.equal(fresh.isOnline, true);
  assert.equal(fresh.state!['solarPower'], site.read().pvW / 1000);
  assert.deepEqual(store.devices.get(PV), fresh);

  await assert.rejects(runtime.refresh(store.devices.get(METER)!), DeviceUnreachableError);
  const other = store.devices.get(BAT)!;
  assert.equal(await runtime.refresh(other), other, 'a binding of another runtime is answered as stored');
});
