// The hub-run schedule across steps of the wall clock (issue 33): a clock set back past the occurrence
// applied last does not hold the event in force back, neither in the running hub (ClockWatch's 'step')
// nor after a restart; and nothing is applied while the clock is known to be wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClockWatch } from '../../src/runtime/clock/clock-watch.ts';
import { AC, iso, setUp, WINTER_PROGRAM } from '../support/hub-schedules.ts';

/** The wall clock is Date (mocked); the monotonic one runs with it and does not follow its steps. */
function watchedClock(t: { mock: { timers: { setTime(ms: number): void } } }, floorMs = 0) {
  let shiftMs = 0;
  const clock = { now: () => Date.now(), monotonicMs: () => Date.now() - shiftMs };
  const watch = new ClockWatch(clock, { floorMs });
  const step = (toMs: number) => {
    shiftMs += toMs - Date.now();
    t.mock.timers.setTime(toMs);
    watch.check();
  };
  return { watch, step };
}

test('a clock set back past the occurrence applied last: the event in force is applied at once, and after a restart', async (t) => {
  const { store, ac, newHub, runUntil, setProgram } = setUp(t, '2027-03-24T12:00:00Z'); // a Wednesday, UTC+1
  const hub = newHub();
  await setProgram(hub, WINTER_PROGRAM);
  await runUntil('2027-03-29T04:30:00Z');
  ac.take();
  assert.equal(iso(store.hubSchedules.get(AC)!.appliedOccurrenceMs!), '2027-03-29T04:00:00Z');

  // A restart at a clock set back 3 hours (a bad time source): Sunday 22:00's REDUCED is in force.
  await hub.stop();
  t.mock.timers.setTime(Date.parse('2027-03-29T01:30:00Z'));
  newHub();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(ac.take(), ['2027-03-29T01:30:00Z SET_MODE REDUCED', '2027-03-29T01:30:00Z SET_TEMPERATURE 17']);
});

test('the running hub applies the event in force when ClockWatch tells of a step back, once', async (t) => {
  let watched: ReturnType<typeof watchedClock> | undefined;
  const { ac, newHub, runUntil, setProgram } = setUp(t, '2027-03-24T12:00:00Z', {
    get clockWatch() { return watched!.watch; },
  });
  watched = watchedClock(t);
  const hub = newHub();
  await setProgram(hub, WINTER_PROGRAM);
  await runUntil('2027-03-29T04:30:00Z');
  ac.take();
  watched.step(Date.parse('2027-03-29T01:30:00Z'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(ac.take(), ['2027-03-29T01:30:00Z SET_MODE REDUCED', '2027-03-29T01:30:00Z SET_TEMPERATURE 17'],
    'applied on the step, not at the next event');
  await runUntil('2027-03-29T03:30:00Z');
  assert.deepEqual(ac.take(), [], 'applied once');
  await runUntil('2027-03-29T04:30:00Z');
  assert.deepEqual(ac.take(), ['2027-03-29T04:00:00Z SET_MODE HEAT', '2027-03-29T04:00:00Z SET_TEMPERATURE 22'], 'and the next event at its time');
});

test('a clock known to be wrong applies nothing; once it is set, the event in force is applied', async (t) => {
  let watched: ReturnType<typeof watchedClock> | undefined;
  const { store, ac, newHub, runUntil, setProgram } = setUp(t, '2027-03-24T12:00:00Z', {
    get clockWatch() { return watched!.watch; },
  });
  watched = watchedClock(t);
  const first = newHub();
  await setProgram(first, WINTER_PROGRAM);
  await runUntil('2027-03-25T12:00:00Z');
  ac.take();
  await first.stop();

  // A boot at 1970 with the floor at the newest stored time.
  t.mock.timers.setTime(2_000);
  watched = watchedClock(t, store.hubSchedules.get(AC)!.storedAtMs);
  newHub();
  await runUntil('1970-01-01T00:10:00Z');
  assert.deepEqual(ac.take(), [], 'nothing applied at 1970');
  watched.step(Date.parse('2027-03-29T04:30:00Z'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(ac.take(), ['2027-03-29T04:30:00Z SET_MODE HEAT', '2027-03-29T04:30:00Z SET_TEMPERATURE 22']);
});
