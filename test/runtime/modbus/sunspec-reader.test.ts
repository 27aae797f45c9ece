import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ModbusSimServer, type SimUnit } from '../../../src/sim/modbus-sim-server.ts';
import { SiteModel } from '../../../src/sim/site-model.ts';
import { sunspecBattery, sunspecHybrid, sunspecInverter, sunspecMeter } from '../../../src/sim/sunspec-sims.ts';
import { LinePool } from '../../../src/transport/line-pool.ts';
import { DeviceReader } from '../../../src/runtime/modbus/modbus-reader.ts';
import { silentLogger } from '../../../src/log.ts';
import sunspec from '../../../drivers/modbus/sunspec.ts';
import sma from '../../../drivers/modbus/sma.ts';
import solaredge from '../../../drivers/modbus/solaredge.ts';
import type { DeviceKind } from '../../../src/domain/vocabulary.ts';
import type { DriverDefinition } from '../../../src/runtime/modbus/definition.ts';
import { dumpUnit } from '../../support/register-dump.ts';
import { hybridSettings, identify } from '../../../src/runtime/modbus/modbus-discovery.ts';
import { builtInDrivers } from '../../../drivers/modbus/index.ts';

const NOON = Date.parse('2026-06-21T12:00:00Z');

async function rig(t: import('node:test').TestContext, units: Record<number, SimUnit>) {
  const sim = await ModbusSimServer.tcp(new Map(Object.entries(units).map(([id, u]) => [Number(id), u])));
  const pool = new LinePool(silentLogger());
  t.after(async () => {
    await pool.closeAll();
    await sim.close();
  });
  const reader = (kind: DeviceKind, binding: Record<string, unknown> = {}, def: DriverDefinition = sunspec) => {
    const b = { type: def.type, host: '127.0.0.1', port: sim.port, ...binding };
    return new DeviceReader(def, b, kind, pool.get({ kind: 'tcp', host: '127.0.0.1', port: sim.port }));
  };
  return { sim, pool, reader };
}

test('a SunSpec inverter at noon reads as PRODUCING with its AC power in kW, in one request per poll', async (t) => {
  const site = new SiteModel({ now: () => NOON, pvPeakW: 8000 });
  const { reader, pool } = await rig(t, { 1: sunspecInverter(site) });
  const inverter = reader('pvInverter');
  const first = await inverter.readState();
  const expectedKw = Math.round(site.read().pvW / 10) / 100; // W_SF -1 or 0: tenths of a W at most
  assert.equal(first['state'], 'PRODUCING');
  assert.ok(Math.abs((first['solarPower'] as number) - expectedKw) < 0.01, `${first['solarPower']} vs ${expectedKw}`);
  const before = pool.transactions();
  await inverter.readState();
  assert.equal(pool.transactions() - before, 1, 'W, W_SF and St lie in one model: one read');
});

test('an inverter asleep at night is IDLE with no power, not offline', async (t) => {
  const site = new SiteModel({ now: () => Date.parse('2026-06-21T23:00:00Z') });
  const { reader } = await rig(t, { 1: sunspecInverter(site) });
  assert.deepEqual(await reader('pvInverter').readState(), { solarPower: 0, state: 'IDLE' });
});

test('float models (113, 213) and a SolarEdge-style short model 1 are read the same way', async (t) => {
  const site = new SiteModel({ now: () => NOON });
  const { reader } = await rig(t, {
    1: sunspecInverter(site, { float: true, shortCommonModel: true }),
    2: sunspecMeter(site, { float: true, shortCommonModel: true }),
  });
  const pv = await reader('pvInverter', { unitId: 1 }).readState();
  assert.equal(pv['state'], 'PRODUCING');
  assert.ok((pv['solarPower'] as number) > 1);
  const meter = await reader('meter', { unitId: 2 }).readState();
  const now = site.read();
  assert.equal(meter['power'], Math.round(now.gridW) / 1000);
  assert.equal(meter['frequency'], 49.98);
});

test('a SunSpec battery maps SoC, power sign, limits and capacity into API units and enums', async (t) => {
  const site = new SiteModel({ now: () => NOON, initialSocPct: 64 });
  const { reader } = await rig(t, { 1: sunspecBattery(site) });
  const battery = reader('battery');
  const state = await battery.readState();
  const now = site.read();
  assert.equal(state['stateOfCharge'], Math.round(now.socPct * 10) / 10);
  assert.equal(state['chargeRate'], now.batteryW / 1000);
  assert.equal(state['chargingState'], now.batteryW > 0 ? 'CHARGING' : now.batteryW < 0 ? 'DISCHARGING' : 'IDLE');
  assert.equal(state['chargeLimitMin'], 10);
  assert.equal(state['maxChargeRate'], 5);
  assert.equal(state['maxDischargeRate'], 5);
  assert.deepEqual(await battery.readStatic(), {
    model: 'BYD Battery-Box Premium HVS 10.2', manufacturer: 'Fronius', batteryCapacity: 10.24,
  });
});

test('a battery with model 124 only has no chargeRate at all rather than a made-up number', async (t) => {
  const site = new SiteModel({ now: () => NOON, initialSocPct: 30 });
  const { reader } = await rig(t, { 1: sunspecBattery(site, { without802: true, withModel713: true }) });
  const state = await reader('battery').readState();
  assert.equal('chargeRate' in state, false);
  assert.equal(state['stateOfCharge'], Math.round(site.read().socPct * 10) / 10);
  assert.ok(['CHARGING', 'DISCHARGING', 'IDLE'].includes(state['chargingState'] as string));
});

test('the meter keeps power in kW (import positive) and counters in kWh; invert flips the sign per device', async (t) => {
  const site = new SiteModel({ now: () => NOON });
  const { reader } = await rig(t, { 1: sunspecMeter(site) });
  const now = site.read();
  const plain = await reader('meter').readState();
  assert.equal(plain['power'], now.gridW / 1000);
  assert.equal(plain['energyImported'], Math.round(now.gridImportWh / 10) / 100);
  const inverted = await reader('meter', { invert: ['power'] }).readState();
  assert.equal(inverted['power'], -now.gridW / 1000 || 0);
});

test('detection finds SMA on unit 126 and a map at base 50000; a unit without a map is refused', async (t) => {
  const site = new SiteModel({ now: () => NOON });
  const { reader } = await rig(t, { 126: sunspecInverter(site, { base: 50000 }) });
  const found = reader('pvInverter', {}, sma);
  assert.deepEqual(await found.detectKinds(), ['pvInverter']);
  assert.equal(found.unit, 126);
  await assert.rejects(reader('pvInverter', { unitId: 1 }).readState(), /exception 11|no SunSpec map/);
});

const SPLIT = { batteryMppt: { charge: [3], discharge: [4] } }; // GEN24: 3 StCha, 4 StDisCha

test('a hybrid inverter: chargeRate and solarPower from model 160 modules, scaled by DCW_SF in the same request', async (t) => {
  const site = new SiteModel({ now: () => NOON, initialSocPct: 50 });
  const hybrid = sunspecHybrid(site);
  const { reader } = await rig(t, { 1: hybrid });
  const now = site.read();
  assert.ok(now.batteryW > 0 && now.pvW > 0, 'the battery charges at noon');
  const battery = reader('battery', SPLIT);
  const state = await battery.readState();
  assert.equal(state['chargeRate'], now.batteryW / 1000);
  assert.equal(state['chargingState'], 'CHARGING');
  assert.equal(state['stateOfCharge'], Math.round(now.socPct * 10) / 10);
  const [sf, dcw4] = [hybrid.address(160, 'DCW_SF'), hybrid.address(160, 'DCW', 4)];
  assert.ok(battery.lastBlocks.some((b) => b.start <= sf && b.start + b.length > dcw4), 'DCW_SF and the modules in one request');
  // Without the setting the device has no battery power of its own (no model 802).
  assert.equal('chargeRate' in (await reader('battery').readState()), false);
  const pv = await reader('pvInverter', { solarPowerFrom: 'mppt', ...SPLIT }).readState();
  assert.ok(Math.abs((pv['solarPower'] as number) - now.pvW / 1000) <= 0.001, `${pv['solarPower']} vs ${now.pvW / 1000}`);
  assert.equal(pv['state'], 'PRODUCING');
  const ac = await reader('pvInverter', SPLIT).readState();
  assert.equal(ac['solarPower'], (now.pvW - now.batteryW) / 1000, 'the default stays the AC W of model 103');
});

test('batteryMppt as a list: DC power out of the battery modules is discharging; invert still flips it', async (t) => {
  const site = new SiteModel({ now: () => Date.parse('2026-06-21T22:00:00Z'), initialSocPct: 80 });
  const { reader } = await rig(t, { 1: sunspecHybrid(site) });
  const now = site.read();
  assert.ok(now.batteryW < 0, 'the battery discharges at night');
  const state = await reader('battery', { batteryMppt: [3, 4] }).readState();
  assert.equal(state['chargeRate'], now.batteryW / 1000);
  assert.equal(state['chargingState'], 'DISCHARGING');
  const inverted = await reader('battery', { batteryMppt: [4], invert: ['chargeRate'] }).readState();
  assert.equal(inverted['chargeRate'], -now.batteryW / 1000);
  const pv = await reader('pvInverter', { solarPowerFrom: 'mppt', batteryMppt: [3, 4] }).readState();
  assert.equal(pv['solarPower'], 0);
});

test('not-implemented modules are left out of a sum, which is absent only when none is implemented; bad settings are refused', async (t) => {
  const site = new SiteModel({ now: () => NOON, initialSocPct: 50 });
  const { reader } = await rig(t, { 1: sunspecHybrid(site, { missingModules: [2, 4] }) });
  const battery = await reader('battery', SPLIT).readState();
  assert.equal('chargeRate' in battery, false, 'the discharge module is not implemented: no difference');
  assert.equal(battery['chargingState'], 'CHARGING', 'model 124 ChaSt still answers');
  // As on the SMA Sunny Boy, whose unused inputs are "not implemented": the used ones still count.
  const pv = await reader('pvInverter', { solarPowerFrom: 'mppt', ...SPLIT }).readState();
  assert.ok(Math.abs((pv['solarPower'] as number) - (site.read().pvW * 0.6) / 1000) <= 0.001, `module 1 alone: ${pv['solarPower']}`);
  const none = await rig(t, { 1: sunspecHybrid(site, { missingModules: [1, 2] }) });
  assert.equal('solarPower' in (await none.reader('pvInverter', { solarPowerFrom: 'mppt', ...SPLIT }).readState()), false, 'no PV module implemented');
  assert.equal('chargeRate' in (await reader('battery', { batteryMppt: [3, 5] }).readState()), false);
  assert.ok(typeof (await reader('battery', { batteryMppt: [3] }).readState())['chargeRate'] === 'number');
  await assert.rejects(reader('battery', { batteryMppt: [0] }).readState(), /module numbers from 1/);
  await assert.rejects(reader('pvInverter', { solarPowerFrom: 'dc' }).readState(), /solarPowerFrom/);
});

test('meter sign by maker: a SolarEdge meter counts feed-in positive, the hub shows import positive (evcc #15445)', async (t) => {
  const site = new SiteModel({ now: () => NOON });
  const { reader } = await rig(t, { 1: sunspecMeter(site, { manufacturer: 'SolarEdge', shortCommonModel: true, feedInPositive: true }) });
  const now = site.read();
  assert.notEqual(now.gridW, 0, 'power flows at the grid point');
  assert.equal((await reader('meter', {}, solaredge).readState())['power'], now.gridW / 1000);
  assert.equal((await reader('meter', {}, sunspec).readState())['power'], -now.gridW / 1000, 'read as plain SunSpec, the sign is the maker\'s');
});

test('an SMA Sunny Boy 3.6 as captured (nielsbasjes/modbus-schema): PV power from its two used MPPT inputs, no battery offered', async (t) => {
  const sb36 = dumpUnit('test/fixtures/sunspec/sma-sunny-boy-3.6-2025-05-18.txt', 40000);
  const { reader, sim, pool } = await rig(t, { 126: sb36 });
  const line = pool.get({ kind: 'tcp', host: '127.0.0.1', port: sim.port });
  // Model 160: DCW_SF 1, module 1 DCW 221, module 2 DCW 160, modules 3–6 "not implemented".
  const pv = await reader('pvInverter', { solarPowerFrom: 'mppt' }, sma).readState();
  assert.equal(pv['solarPower'], 3.81);
  // Model 124 is listed, with every measurement "not implemented": the scan offers no battery.
  const found = await identify(line, 126, builtInDrivers(), { timeoutMs: 500 });
  assert.equal(found?.driver, 'sma');
  assert.deepEqual(found?.kinds, ['pvInverter']);
  assert.equal(found?.model, 'SB3.6-1AV-41');
});

test('a FIMER PVS as captured (nielsbasjes/modbus-schema): found by a scan as a SunSpec PV inverter and read without a maker code', async (t) => {
  const fimer = dumpUnit('test/fixtures/sunspec/fimer-pvs-2024-07-22.txt', 40000);
  const { reader, sim, pool } = await rig(t, { 1: fimer });
  const found = await identify(pool.get({ kind: 'tcp', host: '127.0.0.1', port: sim.port }), 1, builtInDrivers(), { timeoutMs: 500 });
  assert.equal(found?.manufacturer, 'FIMER');
  assert.equal(found?.driver, 'sunspec');
  assert.deepEqual(found?.kinds, ['pvInverter']);
  // Model 103: W 0x373A with W_SF 1 is 141,380 W (a 120 kW-class PVS at full power), St 4 (MPPT).
  const pv = await reader('pvInverter').readState();
  assert.equal(pv['solarPower'], 141.38);
  assert.equal(pv['state'], 'PRODUCING');
});

test('a GEN24 model 160 as evcc issue 16256 traced it: StCha 3 at 2609.8 W is the battery charging at 2.61 kW', async (t) => {
  const gen24 = dumpUnit('test/fixtures/sunspec/fronius-gen24-model160-evcc-16256.txt', 40000);
  const { reader, sim, pool } = await rig(t, { 1: gen24 });
  const found = await identify(pool.get({ kind: 'tcp', host: '127.0.0.1', port: sim.port }), 1, builtInDrivers(), { timeoutMs: 500 });
  assert.deepEqual(found?.mpptModules, ['MPPT 1', 'MPPT 2', 'StCha 3', 'StDisCha 4']);
  const settings = hybridSettings(found?.mpptModules, 'battery');
  const battery = await reader('battery', settings).readState();
  assert.equal(battery['chargeRate'], 2.61);
  assert.equal(battery['chargingState'], 'CHARGING');
});

test('the SolarEdge meter of evcc issue 15445: 58 W of import, which SolarEdge reports as -58, is 0.058 kW on the hub', async (t) => {
  const site = new SiteModel({ now: () => NOON });
  const meter = sunspecMeter(site, { manufacturer: 'SolarEdge', shortCommonModel: true, feedInPositive: true });
  const read = meter.onRead!;
  meter.onRead = () => {
    read();
    meter.set(203, 'W', -58);
    meter.set(203, 'W_SF', 0);
  };
  const { reader } = await rig(t, { 1: meter });
  assert.equal((await reader('meter', {}, solaredge).readState())['power'], 0.058);
});
