// The hub-run schedule on mocked time (node:test mock.timers): events applied at their instants in
// Europe/Berlin across both daylight-saving changes, a restart in the middle of the week that neither
// skips the event due nor applies one twice, a refusing device tried again with back-off until the
// next event, and a deleted device's program dropped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AC, iso, setUp, WINTER_PROGRAM } from '../support/hub-schedules.ts';

test('spring forward: the event in the skipped hour is applied when the clock jumps, later ones at their local times', async (t) => {
  const { ac, newHub, runUntil, setProgram } = setUp(t, '2027-03-24T12:00:00Z'); // a Wednesday, UTC+1
  const hub = newHub();
  await setProgram(hub, WINTER_PROGRAM);
  // In force on Wednesday: Monday's end (OFF), applied at once; the command's EXECUTED follows this.
  assert.deepEqual(ac.take(), ['2027-03-24T12:00:00Z SET_MODE OFF']);
  await runUntil('2027-03-29T12:00:00Z');
  assert.deepEqual(ac.take(), [
    // 02:30 does not exist on 2027-03-28: applied at 03:00 summer time, when the clock jumps.
    '2027-03-28T01:00:00Z SET_MODE HEAT', '2027-03-28T01:00:00Z SET_TEMPERATURE 21',
    // 22:00 local, now UTC+2.
    '2027-03-28T20:00:00Z SET_MODE REDUCED', '2027-03-28T20:00:00Z SET_TEMPERATURE 17',
    '2027-03-29T04:00:00Z SET_MODE HEAT', '2027-03-29T04:00:00Z SET_TEMPERATURE 22',
    '2027-03-29T06:00:00Z SET_MODE OFF',
  ]);
});

test('fall back: the event in the repeated hour is applied once, at its first time', async (t) => {
  const { ac, newHub, runUntil, setProgram } = setUp(t, '2026-10-21T12:00:00Z'); // a Wednesday, UTC+2
  const hub = newHub();
  // Sent in summer for: Sunday 02:30 set back to 16 °C, Sunday 07:00 heat to 21 °C.
  await setProgram(hub, [
    { mode: 'REDUCED', temperature: 16, start: { day: 'SUNDAY', time: '00:30' } },
    { mode: 'HEAT', temperature: 21, start: { day: 'SUNDAY', time: '05:00' } },
  ]);
  assert.deepEqual(ac.take(), ['2026-10-21T12:00:00Z SET_MODE HEAT', '2026-10-21T12:00:00Z SET_TEMPERATURE 21']);
  await runUntil('2026-10-26T00:00:00Z');
  assert.deepEqual(ac.take(), [
    // 02:30 happens at 00:30 UTC (summer time) and again at 01:30 UTC (winter time): once.
    '2026-10-25T00:30:00Z SET_MODE REDUCED', '2026-10-25T00:30:00Z SET_TEMPERATURE 16',
    '2026-10-25T06:00:00Z SET_MODE HEAT', '2026-10-25T06:00:00Z SET_TEMPERATURE 21', // 07:00 winter time
  ]);
});

test('a restart in the middle of the week: the event due next is applied once, missed ones are not replayed', async (t) => {
  const { store, ac, newHub, runUntil, setProgram } = setUp(t, '2027-03-24T12:00:00Z');
  const first = newHub();
  await setProgram(first, WINTER_PROGRAM);
  await runUntil('2027-03-28T01:00:00Z');
  assert.equal(ac.take().length, 3, 'OFF at once, then the skipped-hour event');

  // Restarted before the next event: the current one is not applied again, the next one once.
  await first.stop();
  const second = newHub();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(ac.take(), [], 'the event in force was applied before the restart');
  await runUntil('2027-03-28T20:00:00Z');
  assert.deepEqual(ac.take(), ['2027-03-28T20:00:00Z SET_MODE REDUCED', '2027-03-28T20:00:00Z SET_TEMPERATURE 17']);

  // Down over two events (Monday 06:00 and its end at 08:00): only the one in force is applied.
  await second.stop();
  t.mock.timers.setTime(Date.parse('2027-03-29T07:30:00Z'));
  newHub();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(ac.take(), ['2027-03-29T07:30:00Z SET_MODE OFF']);
  assert.equal(iso(store.hubSchedules.get(AC)!.appliedOccurrenceMs!), '2027-03-29T06:00:00Z');
  await runUntil('2027-03-29T12:00:00Z');
  assert.deepEqual(ac.take(), []);
});

test('a device that refuses is tried again with back-off until the next event; a deleted one loses its program', async (t) => {
  const { store, ac, newHub, runUntil, setProgram, device } = setUp(t, '2026-11-23T10:00:00Z'); // a Monday, UTC+1
  const hub = newHub();
  await setProgram(hub, [
    { mode: 'HEAT', temperature: 21, start: { day: 'MONDAY', time: '11:00' } },
    { mode: 'REDUCED', temperature: 17, start: { day: 'MONDAY', time: '11:10' } },
    { mode: 'OFF', start: { day: 'MONDAY', time: '23:00' } },
  ]);
  ac.take();
  ac.refuse = 'The unit is in a mode that refuses this.';
  await runUntil('2026-11-23T11:08:00Z');
  ac.refuse = undefined;
  ac.reachable = false;
  await runUntil('2026-11-23T11:09:45Z');
  assert.deepEqual(ac.take(), []);
  // Tried at 11:00:00, 11:00:30, 11:01:30, 11:03:30, 11:05:30, 11:07:30 (refused; two minutes apart
  // at most) and 11:09:30 (unreachable). At 11:10 the next event is in force and replaces them.
  ac.reachable = true;
  await runUntil('2026-11-23T11:10:30Z');
  assert.deepEqual(ac.take(), ['2026-11-23T11:10:00Z SET_MODE REDUCED', '2026-11-23T11:10:00Z SET_TEMPERATURE 17']);

  // A refusal and a recovery: applied at the first try after the device takes it again.
  await hub.execute(device(), 'SET_SCHEDULE', { schedules: [{ mode: 'COOL', temperature: 24, start: { day: 'MONDAY', time: '12:00' } }, { mode: 'OFF', start: { day: 'MONDAY', time: '13:00' } }] }, new AbortController().signal);
  ac.take();
  ac.refuse = 'busy';
  await runUntil('2026-11-23T12:01:00Z');
  ac.refuse = undefined;
  await runUntil('2026-11-23T12:02:00Z');
  assert.deepEqual(ac.take(), ['2026-11-23T12:01:30Z SET_MODE COOL', '2026-11-23T12:01:30Z SET_TEMPERATURE 24']);

  store.deleteDevice(device(), Date.now());
  hub.deviceDeleted(AC);
  assert.equal(store.hubSchedules.get(AC), undefined);
  await runUntil('2026-11-23T14:00:00Z');
  assert.deepEqual(ac.take(), []);
});

test('a device\'s commands and its events never interleave; a program a crash left unconfirmed is dropped; a device with its own program gets none', async (t) => {
  const { store, ac, newHub, runUntil, setProgram, device } = setUp(t, '2026-11-23T10:00:00Z'); // a Monday
  const hub = newHub();
  await setProgram(hub, [
    { mode: 'OFF', start: { day: 'MONDAY', time: '09:00' } },
    { mode: 'HEAT', temperature: 21, start: { day: 'MONDAY', time: '11:00' } },
  ]);
  ac.take();
  // A slow SET_TEMPERATURE command is running when the event comes due: the event waits for it.
  let release!: () => void;
  ac.hold = new Promise((resolve) => { release = resolve; });
  const command = hub.execute(device(), 'SET_TEMPERATURE', { temperature: 25 }, new AbortController().signal);
  await runUntil('2026-11-23T11:00:00Z');
  assert.deepEqual(ac.writes, [], 'the event waits for the command');
  ac.hold = undefined;
  release();
  await command;
  await new Promise((resolve) => setImmediate(resolve)); // the event's writes, before time moves on
  await runUntil('2026-11-23T11:00:30Z');
  assert.deepEqual(ac.take().map((w) => w.slice(21)), ['SET_TEMPERATURE 25', 'SET_MODE HEAT', 'SET_TEMPERATURE 21']);
  await hub.stop();

  // The hub stopped between storing a program and marking its SET_SCHEDULE EXECUTED: the worker
  // failed that command at its start, and the program goes with it.
  const failed = store.commands.create({
    id: 'c0ffee00-0000-4000-8000-000000000001', deviceId: AC, deviceKind: 'hvac', userId: 'household-1', type: 'SET_SCHEDULE',
    payload: {}, createdAtMs: Date.now(), expiresAtMs: Date.now() + 60_000,
  });
  store.commands.complete(failed.id, 'FAILED', 'The hub restarted while this command was being sent.', Date.now());
  const kept = store.hubSchedules.get(AC)!;
  store.hubSchedules.save({ ...kept, commandId: failed.id });
  newHub();
  assert.equal(store.hubSchedules.get(AC), undefined);

  // A driver that keeps its own program: the worker's executor is its runtime, not the hub's.
  store.hubSchedules.save({ ...kept, appliedOccurrenceMs: null });
  ac.commands = ['SET_MODE', 'SET_TEMPERATURE', 'SET_SCHEDULE'];
  const third = newHub();
  assert.equal(third.handles(device()), false);
  await runUntil('2026-11-23T12:00:00Z');
  assert.deepEqual(ac.take(), [], 'its stored program is not run');
});
