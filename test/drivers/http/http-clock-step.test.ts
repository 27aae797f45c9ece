// HTTP polling across a step of the wall clock: pacing and back-off are measured on the monotonic
// clock, so a step back (a bad time source), or a wrong step forward corrected, does not stop the
// polls for the length of the step. A Daikin adapter simulator on loopback, and a hub clock whose
// wall reading the test steps while its monotonic one goes on; waits are on the adapter's requests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DaikinSim } from '../../../src/sim/http/daikin-sim.ts';
import { httpRecord, started, startHttpHub } from '../../support/http-hub.ts';

const AC = '3a1b2c3d-0000-4000-8000-00000000acc7';
const HOUR = 3_600_000;

for (const [name, offsets] of [['back 2 h', [-2 * HOUR]], ['forward 26 h, then corrected', [26 * HOUR, 0]]] as const) {
  test(`HTTP: a wall clock stepped ${name}: the adapter keeps being polled, and a refresh answers`, async (t) => {
    const sim = await started(t, new DaikinSim());
    const clock = { offsetMs: 0, now: () => Date.now() + clock.offsetMs, monotonicMs: () => performance.now() };
    const hub = await startHttpHub(t, [httpRecord('hvac', AC, 'DAIKIN', { type: 'daikin-brp069', host: '127.0.0.1', port: sim.port, pollIntervalMs: 500 }, { type: 'AC' })], {}, clock);
    await hub.until(AC, (d) => d.isOnline);
    for (const offsetMs of offsets) {
      clock.offsetMs = offsetMs;
      // Two polls' worth (two requests each, the adapter's 500 ms apart).
      await sim.requestsReach(sim.requests.length + 4, 8_000);
    }
    const res = await hub.api(`/users/household-1/hvacs/${AC}/refresh`);
    assert.equal(res.status, 200, await res.text());
  });
}
