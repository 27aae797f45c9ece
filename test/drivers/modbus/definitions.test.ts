// Loads every driver definition the hub ships and runs each kind it maps against a simulator of
// that device; the state must satisfy the API's own schema for that kind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DRIVER_DEFINITIONS } from '../../../drivers/modbus/index.ts';
import skeleton from '../../../drivers/modbus/_skeleton.ts';
import sunspec from '../../../drivers/modbus/sunspec.ts';
import { DriverRegistry } from '../../../src/runtime/modbus/modbus-registry.ts';
import { DeviceReader } from '../../../src/runtime/modbus/modbus-reader.ts';
import { LinePool } from '../../../src/transport/line-pool.ts';
import { ModbusSimServer, type SimUnit } from '../../../src/sim/modbus-sim-server.ts';
import { SiteModel } from '../../../src/sim/site-model.ts';
import { sunspecBattery, sunspecHybrid, sunspecInverter, sunspecMeter } from '../../../src/sim/sunspec-sims.ts';
import { huaweiSun2000 } from '../../../src/sim/huawei-sim.ts';
import { BatteryChargeState, PvPowerState } from '../../../src/domain/schemas.ts';
import { VendorCatalog } from '../../../src/domain/vendors.ts';
import { silentLogger } from '../../../src/log.ts';
import type { DeviceKind } from '../../../src/domain/vocabulary.ts';

const NOON = Date.parse('2026-06-21T11:00:00Z');
interface Case { kind: DeviceKind; binding: Record<string, unknown> }
interface Rig { units: Record<number, SimUnit>; cases: Case[] }

/** A hybrid inverter's battery and PV power from its model 160 modules (3 StCha, 4 StDisCha). */
const HYBRID = { batteryMppt: { charge: [3], discharge: [4] } };

const sunspecRig = (unitFor: (u: number) => number) => (site: SiteModel): Rig => ({
  units: {
    [unitFor(1)]: sunspecInverter(site), [unitFor(2)]: sunspecBattery(site), [unitFor(3)]: sunspecMeter(site),
    [unitFor(4)]: sunspecHybrid(site),
  },
  cases: [
    { kind: 'pvInverter', binding: { unitId: unitFor(1) } },
    { kind: 'battery', binding: { unitId: unitFor(2) } },
    { kind: 'meter', binding: { unitId: unitFor(3) } },
    { kind: 'battery', binding: { unitId: unitFor(4), ...HYBRID } },
    { kind: 'pvInverter', binding: { unitId: unitFor(4), solarPowerFrom: 'mppt', ...HYBRID } },
  ],
});

/** A simulator for every definition: a new definition without one fails this test. */
const SIMULATORS: Record<string, (site: SiteModel) => Rig> = {
  sunspec: sunspecRig((u) => u),
  fronius: sunspecRig((u) => [1, 2, 200, 3][u - 1]!),
  // SMA answers on unit 126; the battery inverter and meter of this rig sit behind other ids.
  sma: (site) => ({
    units: { 126: sunspecInverter(site, { manufacturer: 'SMA' }), 3: sunspecBattery(site), 4: sunspecMeter(site) },
    cases: [{ kind: 'pvInverter', binding: {} }, { kind: 'battery', binding: { unitId: 3 } }, { kind: 'meter', binding: { unitId: 4 } }],
  }),
  solaredge: (site) => ({
    units: { 1: sunspecInverter(site, { manufacturer: 'SolarEdge', shortCommonModel: true }), 2: sunspecMeter(site, { manufacturer: 'SolarEdge', shortCommonModel: true, feedInPositive: true }), 3: sunspecBattery(site, { manufacturer: 'SolarEdge' }) },
    cases: [{ kind: 'pvInverter', binding: {} }, { kind: 'meter', binding: { unitId: 2 } }, { kind: 'battery', binding: { unitId: 3 } }],
  }),
  'huawei-sun2000': (site) => ({
    units: { 1: huaweiSun2000(site) },
    cases: [{ kind: 'pvInverter', binding: {} }, { kind: 'battery', binding: {} }, { kind: 'meter', binding: {} }],
  }),
  // The generic driver reads the Huawei simulator as if it had no definition: the installer's map.
  'modbus-registers': (site) => ({
    units: { 5: huaweiSun2000(site) },
    cases: [{
      kind: 'battery',
      binding: {
        unitId: 5, kind: 'battery', maxGap: 8,
        points: { soc: { register: 37760, type: 'uint16', scale: 0.1, unit: '%' }, power: { register: 37765, type: 'int32', unit: 'W' } },
        fields: {
          stateOfCharge: { point: 'soc', digits: 1 }, chargeRate: { point: 'power', unit: 'kW' },
          chargingState: { sign: 'chargeRate', positive: 'CHARGING', negative: 'DISCHARGING', zero: 'IDLE' },
        },
      },
    }],
  }),
};

// A driver's reading is the state's values; the API dates them (lastUpdated) when it shows them.
const SCHEMAS: Partial<Record<DeviceKind, { parse(v: unknown): unknown }>> = { battery: BatteryChargeState.partial({ lastUpdated: true }), pvInverter: PvPowerState.partial({ lastUpdated: true }) };

for (const definition of DRIVER_DEFINITIONS) {
  test(`driver ${definition.type} reads its simulator into valid API state`, async (t) => {
    const rigFor = SIMULATORS[definition.type];
    assert.ok(rigFor, `no simulator for driver ${definition.type}: add one to SIMULATORS`);
    const site = new SiteModel({ now: () => NOON, initialSocPct: 55 });
    const rig = rigFor(site);
    const sim = await ModbusSimServer.tcp(new Map(Object.entries(rig.units).map(([id, u]) => [Number(id), u])));
    const pool = new LinePool(silentLogger());
    t.after(async () => {
      await pool.closeAll();
      await sim.close();
    });
    const registry = new DriverRegistry(DRIVER_DEFINITIONS);
    const mapped = new Set(Object.keys(definition.kinds));
    for (const { kind, binding } of rig.cases) {
      const full = { type: definition.type, host: '127.0.0.1', port: sim.port, pauseAfterConnectMs: 0, ...binding };
      const effective = registry.definitionFor(full);
      const line = pool.get({ kind: 'tcp', host: '127.0.0.1', port: sim.port }, { pauseAfterConnectMs: 0 });
      const reader = new DeviceReader(effective, full, kind, line);
      const state = await reader.readState();
      const fields = Object.keys(effective.kinds[kind]!.fields);
      assert.ok(Object.keys(state).length > 0, `${kind}: nothing read`);
      for (const field of Object.keys(state)) assert.ok(fields.includes(field), `${kind}: unexpected field ${field}`);
      SCHEMAS[kind]?.parse(state);
      const now = site.read();
      if (kind === 'battery') assert.equal(state['stateOfCharge'], Math.round(now.socPct * 10) / 10);
      if (kind === 'pvInverter') assert.equal(state['state'], 'PRODUCING');
      if (kind === 'meter') assert.equal(state['power'], now.gridW / 1000);
      const staticData = await reader.readStatic();
      if (effective.kinds[kind]!.staticData) assert.equal(typeof staticData['model'], 'string');
      mapped.delete(kind);
    }
    assert.deepEqual([...mapped], [], 'every kind the definition maps is exercised');
  });
}

test('the registry refuses unknown and duplicate types and rules that name missing points', () => {
  const registry = new DriverRegistry(DRIVER_DEFINITIONS);
  assert.throws(() => registry.get('no-such-driver'), /unknown driver type "no-such-driver"/);
  assert.throws(() => registry.register(sunspec), /registered twice/);
  const broken = { ...skeleton, type: 'broken', kinds: { pvInverter: { fields: { solarPower: { point: 'inverter.nope' } } } } };
  assert.throws(() => new DriverRegistry([broken]), /unknown point inverter\.nope/);
  assert.throws(() => registry.definitionFor({ type: 'modbus-registers', host: 'h', kind: 'meter', points: { p: { register: -1, type: 'int16' } }, fields: {} }), /points\.p\.register/);
  new DriverRegistry([skeleton]); // the skeleton stays a valid definition
});

test('loading the drivers makes FRONIUS, SMA and HUAWEI available home-power vendors, and no other maker', () => {
  const catalog = new VendorCatalog();
  new DriverRegistry(DRIVER_DEFINITIONS).registerVendors(catalog);
  assert.deepEqual(catalog.availableVendors('http://hub').homePower.map((v) => v.id), ['FRONIUS', 'HUAWEI', 'SMA']);
});

test('commands are an optional capability: a definition that has one writes it in the device encoding', async (t) => {
  const site = new SiteModel({ now: () => NOON });
  const sim = await ModbusSimServer.tcp(new Map<number, SimUnit>([[1, huaweiSun2000(site)], [2, sunspecBattery(site)]]));
  const pool = new LinePool(silentLogger());
  t.after(async () => {
    await pool.closeAll();
    await sim.close();
  });
  const registry = new DriverRegistry(DRIVER_DEFINITIONS);
  const line = pool.get({ kind: 'tcp', host: '127.0.0.1', port: sim.port });
  for (const [type, unitId] of [['huawei-sun2000', 1], ['sunspec', 2]] as const) {
    const binding = { type, host: '127.0.0.1', port: sim.port, unitId };
    const reader = new DeviceReader(registry.get(type), binding, 'battery', line);
    await reader.execute('setChargeLimitMin', 20);
    assert.equal((await reader.readState())['chargeLimitMin'], 20, type);
  }
  assert.equal(registry.get('modbus-registers').commands, undefined);
});
