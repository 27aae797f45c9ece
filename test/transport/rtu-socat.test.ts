// Modbus RTU over a real serial line: socat joins two pseudo-terminals, the simulator serves one
// end (modbus-serial's ServerSerial) and the hub's line talks to the other.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModbusSimServer } from '../../src/sim/modbus-sim-server.ts';
import { SiteModel } from '../../src/sim/site-model.ts';
import { sunspecInverter, sunspecMeter } from '../../src/sim/sunspec-sims.ts';
import { ModbusLine, DEFAULT_LINE_OPTIONS } from '../../src/transport/modbus-line.ts';
import { ModbusExceptionError, ModbusTimeoutError } from '../../src/transport/modbus-errors.ts';
import { DeviceReader } from '../../src/runtime/modbus/modbus-reader.ts';
import { silentLogger } from '../../src/log.ts';
import sunspec from '../../drivers/modbus/sunspec.ts';
import { skippedWithout } from '../support/peers.ts';

/** Starts socat and resolves once it reports its data loop (both links exist then). */
async function ptyPair(t: TestContext): Promise<[string, string]> {
  const dir = mkdtempSync(join(tmpdir(), 'hub-rtu-'));
  const [a, b] = [join(dir, 'hub'), join(dir, 'device')];
  const socat = spawn('socat', ['-d', '-d', `pty,raw,echo=0,link=${a}`, `pty,raw,echo=0,link=${b}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  t.after(() => {
    socat.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('socat did not start')), 5000);
    let text = '';
    socat.stderr.on('data', (d: Buffer) => {
      text += d.toString();
      if (text.includes('starting data transfer loop')) {
        clearTimeout(timer);
        resolve();
      }
    });
    socat.once('exit', (code) => reject(new Error(`socat exited ${code}: ${text}`)));
  });
  return [a, b];
}

test('SunSpec over Modbus RTU on a serial line, with exceptions, silence and garbage frames', async (t) => {
  if (skippedWithout(t, 'socat')) return;
  const [hubEnd, deviceEnd] = await ptyPair(t);
  const site = new SiteModel({ now: () => Date.parse('2026-06-21T12:00:00Z') });
  const sim = await ModbusSimServer.serial(new Map([[1, sunspecInverter(site)], [2, sunspecMeter(site)]]), deviceEnd, 19200);
  const line = new ModbusLine({ kind: 'rtu', path: hubEnd, baudRate: 19200, parity: 'none', stopBits: 1, dataBits: 8 },
    { ...DEFAULT_LINE_OPTIONS, timeoutMs: 300, pauseBetweenMs: 40, maxConsecutiveTimeouts: 5 }, silentLogger());
  t.after(async () => {
    await line.close();
    await sim.close();
  });
  const binding = { type: 'sunspec', serialPort: hubEnd, baudRate: 19200, parity: 'none', stopBits: 1 };
  const inverter = new DeviceReader(sunspec, { ...binding, unitId: 1 }, 'pvInverter', line);
  const meter = new DeviceReader(sunspec, { ...binding, unitId: 2 }, 'meter', line);

  assert.deepEqual(await inverter.readState(), { solarPower: site.read().pvW / 1000, state: 'PRODUCING' });
  assert.equal((await meter.readState())['power'], site.read().gridW / 1000, 'two units share the bus');

  sim.setFault(1, { kind: 'exception', code: 4 });
  await assert.rejects(line.readRegisters(1, 3, 40000, 2), (e: unknown) => e instanceof ModbusExceptionError && e.code === 4);
  sim.setFault(1, { kind: 'silence' });
  await assert.rejects(line.readRegisters(1, 3, 40000, 2), ModbusTimeoutError);
  assert.equal((await meter.readState())['frequency'], 49.98, 'a silent unit does not block its neighbour');
  sim.setFault(1, { kind: 'garbage' });
  await assert.rejects(line.readRegisters(1, 3, 40000, 2));
  sim.setFault(1, { kind: 'none' });
  assert.equal((await inverter.readState())['state'], 'PRODUCING', 'the line recovers after a bad frame');
});
