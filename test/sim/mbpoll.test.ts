// The independent check of the SunSpec simulator: Debian's mbpoll reads it, and the registers must
// sit where the SunSpec reference puts them (addresses computed here from the reference's model
// lengths, not from the simulator's layout).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ModbusSimServer } from '../../src/sim/modbus-sim-server.ts';
import { SiteModel } from '../../src/sim/site-model.ts';
import { sunspecInverter } from '../../src/sim/sunspec-sims.ts';
import { skippedWithout } from '../support/peers.ts';

const run = promisify(execFile);

/** `mbpoll -t 4:hex` prints lines like "[40000]: 	0x5375". */
async function mbpoll(port: number, unitId: number, address: number, count: number): Promise<number[]> {
  const { stdout } = await run('mbpoll', ['-m', 'tcp', '-p', String(port), '-a', String(unitId), '-0', '-r', String(address),
    '-c', String(count), '-t', '4:hex', '-1', '-o', '2', '127.0.0.1'], { timeout: 10_000 });
  const values = [...stdout.matchAll(/^\[(\d+)\]:\s+0x([0-9A-F]{4})/gim)].map((m) => [Number(m[1]), parseInt(m[2]!, 16)] as const);
  assert.deepEqual(values.map(([a]) => a), Array.from({ length: count }, (_, i) => address + i), stdout);
  return values.map(([, v]) => v);
}

test('mbpoll finds the SunSpec marker, model 1 and model 103 where the reference puts them', async (t) => {
  if (skippedWithout(t, 'mbpoll')) return;
  const site = new SiteModel({ now: () => Date.parse('2026-06-21T12:00:00Z'), pvPeakW: 2000 });
  const sim = await ModbusSimServer.tcp(new Map([[1, sunspecInverter(site)]]));
  t.after(() => sim.close());

  // "SunS", then model 1 with L = 66.
  assert.deepEqual(await mbpoll(sim.port, 1, 40000, 4), [0x5375, 0x6e53, 1, 66]);
  // Model 1 Mn (offset 2) is the string "Fronius".
  const mn = await mbpoll(sim.port, 1, 40004, 4);
  assert.equal(Buffer.from(mn.flatMap((w) => [w >> 8, w & 0xff])).toString('latin1'), 'Fronius\0');
  // Model 103 follows at 40002 + 2 + 66 = 40070 with L = 50; W at offset 14, W_SF at 15, St at 38.
  const header = await mbpoll(sim.port, 1, 40070, 2);
  assert.deepEqual(header, [103, 50]);
  const [w, wSf] = await mbpoll(sim.port, 1, 40084, 2);
  const sf = wSf! >= 0x8000 ? wSf! - 0x10000 : wSf!;
  assert.equal(Math.round(w! * 10 ** sf), site.read().pvW);
  assert.deepEqual(await mbpoll(sim.port, 1, 40108, 1), [4], 'St = MPPT at noon');
  // Model 120 follows model 103 at 40070 + 52 = 40122.
  assert.deepEqual(await mbpoll(sim.port, 1, 40122, 2), [120, 26]);
});
