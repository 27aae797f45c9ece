// A step of the wall clock, told by /health and /metrics without making the hub unhealthy: a real
// daemon on a clock whose wall reading the test steps (its monotonic one goes on), noticed by the
// hub's ClockWatch as its timer would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon } from '../../src/daemon.ts';
import { ConfigSchema } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';

const KEY = 'ops-clock-test-key-0123456789abcd';

test('/health shows the last step of the wall clock and stays up; /metrics counts the steps', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-ops-clock-'));
  const clock = { offsetMs: 0, now: () => Date.now() + clock.offsetMs, monotonicMs: () => performance.now() };
  const daemon = new Daemon({ config: ConfigSchema.parse({ dataDir, http: { port: 0 }, apiKey: KEY }), log: silentLogger(), clock });
  await daemon.start();
  t.after(async () => {
    await daemon.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  assert.deepEqual(await (await fetch(`${daemon.url}/health`)).json(), { status: 'up' }, 'no step, nothing told');
  const metrics = async () => (await fetch(`${daemon.url}/metrics`, { headers: { 'x-api-key': KEY } })).text();
  assert.match(await metrics(), /^hub_clock_steps_total 0$/m);

  clock.offsetMs = 3 * 24 * 3_600_000; // NTP, after a boot without a battery clock
  const step = daemon.clockWatch!.check();
  assert.ok(step);
  const res = await fetch(`${daemon.url}/health`);
  assert.equal(res.status, 200);
  const body = (await res.json()) as { status: string; clock?: { steps: number; lastStep: { at: string; stepS: number } } };
  assert.equal(body.status, 'up', 'a step is no fault: durations are on the monotonic clock');
  assert.equal(body.clock?.steps, 1);
  assert.equal(body.clock?.lastStep.stepS, 3 * 24 * 3600);
  assert.ok(Math.abs(Date.parse(body.clock?.lastStep.at ?? '') - step.wallMs) <= 1_000, `told when it happened: ${body.clock?.lastStep.at}`);
  assert.match(await metrics(), /^hub_clock_steps_total 1$/m);
});
