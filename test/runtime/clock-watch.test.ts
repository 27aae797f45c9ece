import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClockWatch, type ClockStep } from '../../src/runtime/clock/clock-watch.ts';
import { monotonicMs, systemClock } from '../../src/domain/time.ts';

function steppingClock(wallMs: number) {
  const clock = { wall: wallMs, mono: 1_000, now: () => clock.wall, monotonicMs: () => clock.mono };
  return clock;
}

test('time passing on both clocks is no step; a wall clock moved against the monotonic one is', () => {
  const clock = steppingClock(Date.parse('2026-11-20T08:00:00Z'));
  const watch = new ClockWatch(clock, { thresholdMs: 5_000 });
  const steps: ClockStep[] = [];
  watch.on('step', (step) => steps.push(step));
  clock.wall += 60_000; clock.mono += 60_000;
  assert.equal(watch.check(), undefined);
  clock.wall += 4_000; // NTP's small corrections are slewed, not steps
  assert.equal(watch.check(), undefined);
  clock.wall -= 2 * 3600_000;
  const back = watch.check();
  assert.equal(back?.stepMs, -2 * 3600_000 + 4_000);
  assert.equal(watch.check(), undefined, 'a step is told once');
  clock.wall += 26 * 3600_000;
  assert.equal(watch.check()?.stepMs, 26 * 3600_000);
  assert.equal(steps.length, 2);
  assert.equal(watch.stepsTotal, 2);
  assert.deepEqual(watch.lastStep, steps[1]);
});

test('a clock before the floor is not trusted until it reaches it, and says so once', () => {
  const clock = steppingClock(2_000); // 1970, a fresh image without a battery clock
  const watch = new ClockWatch(clock, { floorMs: Date.parse('2026-11-01T00:00:00Z') });
  let told = 0;
  watch.on('trusted', () => told++);
  assert.equal(watch.trusted, false);
  clock.wall = Date.parse('2026-11-27T10:00:00Z');
  watch.check();
  assert.equal(watch.trusted, true);
  watch.check();
  assert.equal(told, 1);
  watch.raiseFloor(Date.parse('2026-11-28T00:00:00Z')); // the store holds a later time
  assert.equal(watch.trusted, false);
});

test('wallAt dates a monotonic instant by the clock as it reads now', () => {
  const clock = steppingClock(Date.parse('2026-11-20T08:00:00Z'));
  const watch = new ClockWatch(clock);
  const sampledAt = clock.mono;
  clock.mono += 10_000;
  clock.wall += 3 * 86_400_000 + 10_000; // the boot's clock, set right by NTP later
  assert.equal(watch.wallAt(sampledAt), Date.parse('2026-11-23T08:00:00Z'));
});

test('the system clock has a monotonic reading, and a fake clock of dates alone serves both', () => {
  const a = monotonicMs(systemClock);
  assert.ok(monotonicMs(systemClock) >= a);
  assert.equal(monotonicMs({ now: () => 42 }), 42);
});
