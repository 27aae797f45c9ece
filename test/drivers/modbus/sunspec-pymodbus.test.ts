// The independent check of the SunSpec driver: pymodbus (another implementation, another language)
// serves registers laid out from the SunSpec model definitions, and the driver must read the values
// set there by point name. An offset or scale mistake in drivers/modbus/sunspec-models.ts fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import sunspec from '../../../drivers/modbus/sunspec.ts';
import { DeviceReader } from '../../../src/runtime/modbus/modbus-reader.ts';
import { LinePool } from '../../../src/transport/line-pool.ts';
import { silentLogger } from '../../../src/log.ts';
import { skippedWithout } from '../../support/peers.ts';

const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./pymodbus_sunspec_server.py', import.meta.url));
const LAYOUT = fileURLToPath(new URL('../../../src/sim/sunspec-models.json', import.meta.url));

const DEVICES = {
  1: [[1, { Mn: 'Fronius', Md: 'Symo 8.2-3-M', SN: '3141592' }], [103, { W: 4321, W_SF: 0, Hz: 5002, Hz_SF: -2, WH: 98765, WH_SF: 1, St: 4 }],
    [120, { WRtg: 820, WRtg_SF: 1 }]],
  2: [[1, { Mn: 'Fronius', Md: 'Smart Meter 63A' }], [203, { W: -1520, W_SF: 0, Hz: 4999, Hz_SF: -2, TotWhImp: 123456, TotWhExp: 65432, TotWh_SF: 0 }]],
  3: [[1, { Mn: 'BYD', Md: 'HVS 7.7' }], [120, { WHRtg: 768, WHRtg_SF: 1, MaxChaRte: 5120, MaxChaRte_SF: 0, MaxDisChaRte: 5120, MaxDisChaRte_SF: 0 }],
    [124, { WChaMax: 5120, WChaMax_SF: 0, MinRsvPct: 150, MinRsvPct_SF: -1, ChaState: 735, ChaState_SF: -1, ChaSt: 3 }],
    [802, { WHRtg: 7680, WHRtg_SF: 0, SoC: 736, SoC_SF: -1, SoCRsvMin: 150, ChaSt: 3, State: 3, W: 1875, W_SF: 0, WChaRteMax: 5120, WDisChaRteMax: 5120, WChaDisChaMax_SF: 0 }]],
  4: [[1, { Mn: 'Acme', Md: 'Float' }], [113, { W: 2500.5, Hz: 50, WH: 1000, St: 7 }]],
  // A hybrid inverter: model 160 with two PV modules and two battery modules (charge, discharge).
  5: [[1, { Mn: 'Fronius', Md: 'Symo GEN24 10.0 Plus' }], [103, { W: 3570, W_SF: 0, St: 4 }],
    [160, { DCW_SF: 1, modules: [{ ID: 1, IDStr: 'PV1', DCW: 312 }, { ID: 2, IDStr: 'PV2', DCW: 205 }, { ID: 3, IDStr: 'StCha', DCW: 0 }, { ID: 4, IDStr: 'StDisCha', DCW: 150 }] }]],
  // The same with DCW_SF "not implemented" (0x8000): no module value can be scaled.
  6: [[1, { Mn: 'Fronius', Md: 'Symo GEN24 10.0 Plus' }], [103, { W: 3570, W_SF: 0, St: 4 }],
    [160, { modules: [{ DCW: 312 }, { DCW: 205 }, { DCW: 0 }, { DCW: 150 }] }]],
};

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

test('the SunSpec driver reads a pymodbus server laid out from the SunSpec model definitions', async (t) => {
  if (skippedWithout(t, 'pymodbus')) return;
  const port = await freePort();
  const server = spawn(PYTHON, [SCRIPT, String(port), LAYOUT, JSON.stringify(DEVICES)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const pool = new LinePool(silentLogger());
  t.after(async () => {
    await pool.closeAll();
    server.kill();
  });
  let stderr = '';
  server.stderr.on('data', (d: Buffer) => (stderr += d));
  const ready = new Promise<void>((resolve, reject) => {
    server.stdout.on('data', (d: Buffer) => d.toString().includes('READY') && resolve());
    server.once('exit', (code) => reject(new Error(`pymodbus server exited ${code}: ${stderr}`)));
  });
  await Promise.race([ready, once(AbortSignal.timeout(10_000), 'abort').then(() => Promise.reject(new Error('pymodbus did not start')))]);

  const line = pool.get({ kind: 'tcp', host: '127.0.0.1', port });
  const read = (kind: 'pvInverter' | 'meter' | 'battery', unitId: number, settings: Record<string, unknown> = {}) =>
    new DeviceReader(sunspec, { type: 'sunspec', host: '127.0.0.1', port, unitId, ...settings }, kind, line);

  const pv = read('pvInverter', 1);
  assert.deepEqual(await pv.readState(), { solarPower: 4.321, state: 'PRODUCING' });
  assert.deepEqual(await pv.readStatic(), { model: 'Symo 8.2-3-M', manufacturer: 'Fronius' });
  assert.deepEqual(await read('meter', 2).readState(), { power: -1.52, energyImported: 123.456, energyExported: 65.432, frequency: 49.99 });
  const battery = read('battery', 3);
  assert.deepEqual(await battery.readState(), {
    chargeRate: -1.875, stateOfCharge: 73.6, chargeLimitMin: 15, maxChargeRate: 5.12, maxDischargeRate: 5.12, chargingState: 'DISCHARGING',
  });
  assert.deepEqual(await battery.readStatic(), { model: 'HVS 7.7', manufacturer: 'BYD', batteryCapacity: 7.68 });
  assert.deepEqual(await read('pvInverter', 4).readState(), { solarPower: 2.501, state: 'FAULT' });

  // Model 160: DCW_SF at offset 4, N at 8, module i (from 0) at 10 + 20i with DCW at +11.
  const split = { batteryMppt: { charge: [3], discharge: [4] } };
  assert.deepEqual(await read('battery', 5, split).readState(), { chargeRate: -1.5, chargingState: 'DISCHARGING' });
  assert.deepEqual(await read('battery', 5, { batteryMppt: [4] }).readState(), { chargeRate: -1.5, chargingState: 'DISCHARGING' });
  assert.deepEqual(await read('pvInverter', 5, { solarPowerFrom: 'mppt', ...split }).readState(), { solarPower: 5.17, state: 'PRODUCING' });
  assert.deepEqual(await read('pvInverter', 5, split).readState(), { solarPower: 3.57, state: 'PRODUCING' });
  assert.deepEqual(await read('battery', 6, split).readState(), {});
  assert.deepEqual(await read('pvInverter', 6, { solarPowerFrom: 'mppt' }).readState(), { state: 'PRODUCING' });
});
