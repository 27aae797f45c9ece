import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestHub } from '../support/hub.ts';
import { ModbusRuntime } from '../../src/runtime/modbus/modbus-runtime.ts';
import type { Runtime } from '../../src/runtime/devices/live.ts';
import { builtInDrivers } from '../../drivers/modbus/index.ts';
import { silentLogger } from '../../src/log.ts';
import { systemClock } from '../../src/domain/time.ts';
import { SiteModel } from '../../src/sim/site-model.ts';
import { sunspecInverter } from '../../src/sim/sunspec-sims.ts';
import { huaweiSun2000 } from '../../src/sim/huawei-sim.ts';
import type { PollResult } from '../../src/runtime/modbus/modbus-poller.ts';
import { FAST, device, hubWith, simOn, until } from './support.ts';

const PV = '1e6d3b2f-8b5c-4a8f-8c4f-2b3c4d5e6f01';
const BAT = '0d5c2a1e-7a4b-4f7e-9b3e-1a2b3c4d5e02';

test('GET /pv-inverters/{id}/refresh reads the device live; 503 DEVICE_IS_DISCONNECTED within a bounded time when it is silent', async (t) => {
  let now = Date.parse('2026-06-21T10:00:00Z');
  const site = new SiteModel({ now: () => now });
  const sim = await simOn(t, { 1: sunspecInverter(site) });
  let runtime: ModbusRuntime | undefined;
  const lazy: Runtime = { refresh: (d) => runtime!.refresh(d), commandCreated: () => {}, deviceDeleted: (d) => runtime!.deviceDeleted(d) };
  const hub = createTestHub({ runtime: lazy });
  runtime = new ModbusRuntime({ store: hub.store, registry: builtInDrivers(), log: silentLogger(), clock: systemClock, refreshTimeoutMs: 800, settings: FAST });
  t.after(async () => {
    await runtime!.stop();
    hub.close();
  });
  hub.seed([device('pvInverter', PV, { type: 'fronius', host: '127.0.0.1', port: sim.port, unitId: 1 })]);

  now += 2 * 3_600_000;
  const res = await hub.request(`/pv-inverters/${PV}/refresh`);
  assert.equal(res.status, 200);
  const body = (await res.json()) as { isOnline: boolean; powerState: Record<string, unknown> };
  assert.equal(body.isOnline, true);
  assert.equal(body.powerState.solarPower, site.read().pvW / 1000);
  assert.equal(body.powerState.state, 'PRODUCING');

  sim.setFault(1, { kind: 'silence' });
  const started = Date.now();
  const down = await hub.request(`/pv-inverters/${PV}/refresh`);
  assert.equal(down.status, 503);
  assert.equal(((await down.json()) as { errorCode: string }).errorCode, 'DEVICE_IS_DISCONNECTED');
  assert.ok(Date.now() - started < 1500, `refresh took ${Date.now() - started} ms`);
});

test('Huawei: a pause after connect, and "busy" answers are waited out without marking the battery offline', async (t) => {
  const site = new SiteModel({ now: () => Date.parse('2026-06-21T12:00:00Z'), batteryCapacityWh: 5000 });
  const sim = await simOn(t, { 1: huaweiSun2000(site) });
  const { store, runtime, scheduler } = hubWith(t, [
    device('battery', BAT, { type: 'huawei-sun2000', host: '127.0.0.1', port: sim.port, pauseAfterConnectMs: 150, timeoutMs: 300 }, {
      staticData: { vendor: 'HUAWEI', model: 'LUNA2000-5-S0' },
    }),
  ]);
  const connectedAt = Date.now();
  runtime.start();
  await until<string[]>(scheduler, 'written', () => store.devices.get(BAT)!.isOnline);
  assert.ok(Date.now() - connectedAt >= 150, 'first request waited for the pause after connect');
  const state = store.devices.get(BAT)!.state!;
  assert.equal(state['mode'], 'AUTO');
  assert.equal(state['stateOfCharge'], Math.round(site.read().socPct * 10) / 10);

  sim.setFault(1, { kind: 'exception', code: 6 });
  let busy = 0;
  await until<PollResult>(scheduler, 'polled', (r) => !r.ok && ++busy >= 3);
  scheduler.flush();
  assert.equal(store.devices.get(BAT)!.isOnline, true, 'busy is not offline');
  sim.setFault(1, { kind: 'none' });
  await until<PollResult>(scheduler, 'polled', (r) => r.ok);
});

test('Huawei meter: energy counters are magnitudes, though some DTSU666-H report 37119 negative (huawei_solar #54)', async (t) => {
  const METER = '0d5c2a1e-7a4b-4f7e-9b3e-1a2b3c4d5e03';
  const site = new SiteModel({ now: () => Date.parse('2026-06-21T12:00:00Z') });
  const unit = huaweiSun2000(site);
  const read = unit.onRead!;
  unit.onRead = () => {
    read();
    unit.set32(37119, -345678); // as reported in that capture: −3456.78 kWh exported
    unit.set32(37121, 123456); // 1234.56 kWh imported
  };
  const sim = await simOn(t, { 1: unit });
  const { store, runtime, scheduler } = hubWith(t, [
    device('meter', METER, { type: 'huawei-sun2000', host: '127.0.0.1', port: sim.port, pauseAfterConnectMs: 0, timeoutMs: 300 }, { staticData: { vendor: 'HUAWEI', model: 'DTSU666-H', name: 'grid' } }),
  ]);
  runtime.start();
  await until<string[]>(scheduler, 'written', () => store.devices.get(METER)!.isOnline);
  const state = store.devices.get(METER)!.state!;
  assert.equal(state['energyExported'], 3456.78);
  assert.equal(state['energyImported'], 1234.56);
});

test('static data from the device for an imported device: capacity filled on first reach, the installer\'s model and name kept, the stamp moved only by a change', async (t) => {
  const BATTERY = '0d5c2a1e-7a4b-4f7e-9b3e-1a2b3c4d5e04';
  const site = new SiteModel({ now: () => Date.parse('2026-06-21T12:00:00Z'), batteryCapacityWh: 5000 });
  const unit = huaweiSun2000(site);
  const sim = await simOn(t, { 1: unit });
  const { store, runtime, scheduler } = hubWith(t, [
    device('battery', BATTERY, { type: 'huawei-sun2000', host: '127.0.0.1', port: sim.port, pauseAfterConnectMs: 0, timeoutMs: 300 }, {
      staticData: { vendor: 'HUAWEI', model: 'LUNA2000-5-S0', name: 'Cellar' },
    }),
  ]);
  const imported = store.devices.get(BATTERY)!;
  assert.equal(imported.staticData['batteryCapacity'], undefined, 'imported without a capacity');
  runtime.start();
  await until<PollResult>(scheduler, 'polled', (r) => r.ok && store.devices.get(BATTERY)!.staticData['batteryCapacity'] !== undefined);
  const read = store.devices.get(BATTERY)!;
  assert.equal(read.staticData['batteryCapacity'], 5);
  assert.equal(read.model, 'LUNA2000-5-S0', 'the installer\'s model stays');
  assert.equal(read.name, 'Cellar');
  const stamp = read.staticData['lastUpdated'];
  assert.equal(typeof stamp, 'string');

  // Gone and back: read again, nothing changed, the stamp stays.
  sim.setFault(1, { kind: 'silence' });
  await until<string[]>(scheduler, 'written', () => store.devices.get(BATTERY)!.isOnline === false);
  sim.setFault(1, { kind: 'none' });
  await until<string[]>(scheduler, 'written', () => store.devices.get(BATTERY)!.isOnline);
  assert.equal(store.devices.get(BATTERY)!.staticData['lastUpdated'], stamp);
  // A new capacity (a module added) is taken when it comes back.
  unit.set32(37758, 10_000);
  sim.setFault(1, { kind: 'silence' });
  await until<string[]>(scheduler, 'written', () => store.devices.get(BATTERY)!.isOnline === false);
  sim.setFault(1, { kind: 'none' });
  await until<PollResult>(scheduler, 'polled', (r) => r.ok && store.devices.get(BATTERY)!.staticData['batteryCapacity'] === 10);
});
