// Modbus polling across a step of the wall clock: the poller paces itself on the monotonic clock,
// so a step back (a bad time source) or forward (NTP after a boot without a battery clock) neither
// stops polling for the length of the step nor makes a refresh wait.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SiteModel } from '../../../src/sim/site-model.ts';
import { sunspecInverter } from '../../../src/sim/sunspec-sims.ts';
import type { PollResult } from '../../../src/runtime/modbus/modbus-poller.ts';
import { device, hubWith, simOn, until } from '../support.ts';

const PV = '1e6d3b2f-8b5c-4a8f-8c4f-2b3c4d5e6f02';
const HOUR = 3_600_000;

// The wall clock's offsets in turn: back two hours; a wrong 26 h forward, then corrected.
for (const [name, offsets] of [['back 2 h', [-2 * HOUR]], ['forward 26 h, then corrected', [26 * HOUR, 0]]] as const) {
  test(`a wall clock stepped ${name}: polls go on at their interval, and a refresh answers`, async (t) => {
    const site = new SiteModel({ now: () => Date.parse('2026-06-21T12:00:00Z') });
    const sim = await simOn(t, { 1: sunspecInverter(site) });
    // Real time on both clocks, and a wall clock the test steps.
    const clock = { offsetMs: 0, now: () => Date.now() + clock.offsetMs, monotonicMs: () => performance.now() };
    const { store, runtime, scheduler } = hubWith(t, [device('pvInverter', PV, { type: 'fronius', host: '127.0.0.1', port: sim.port, unitId: 1, pauseBetweenMs: 20 })], undefined, clock);
    runtime.start();
    await until<PollResult>(scheduler, 'polled', (r) => r.ok);
    const before = scheduler.polls;

    for (const offsetMs of offsets) {
      clock.offsetMs = offsetMs;
      let polls = 0;
      await until<PollResult>(scheduler, 'polled', (r) => r.ok && ++polls >= 5, 3_000);
    }
    assert.ok(scheduler.polls >= before + 5 * offsets.length);
    const refreshed = await scheduler.refresh(store.devices.get(PV)!, 1_000);
    assert.equal(refreshed.ok, true, refreshed.error?.message);
    assert.equal(store.devices.get(PV)!.isOnline, true);
  });
}
