// The time math of hub-run schedules: a UTC weekly program kept as local times, the skipped hour of
// spring applied when the clock jumps, the repeated hour of autumn applied once, and what `end` does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { occurrencesAround, programActions, programProblem, wallToInstant } from '../../src/runtime/commands/hub-program.ts';
import type { HubProgram } from '../../src/store/hub-schedules.ts';

const BERLIN = 'Europe/Berlin';
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const wall = (text: string) => Date.parse(`${text}Z`);

test('a local time maps to its instant; the skipped hour to the jump, the repeated hour to its first time', () => {
  assert.equal(iso(wallToInstant(wall('2027-03-27T02:30:00'), BERLIN)), '2027-03-27T01:30:00Z', 'winter: UTC+1');
  assert.equal(iso(wallToInstant(wall('2027-03-29T02:30:00'), BERLIN)), '2027-03-29T00:30:00Z', 'summer: UTC+2');
  // 2027-03-28: at 01:00 UTC the clocks go from 02:00 to 03:00; 02:30 does not exist.
  assert.equal(iso(wallToInstant(wall('2027-03-28T02:30:00'), BERLIN)), '2027-03-28T01:00:00Z');
  assert.equal(iso(wallToInstant(wall('2027-03-28T03:00:00'), BERLIN)), '2027-03-28T01:00:00Z');
  // 2026-10-25: at 01:00 UTC the clocks go from 03:00 back to 02:00; 02:30 happens twice.
  assert.equal(iso(wallToInstant(wall('2026-10-25T02:30:00'), BERLIN)), '2026-10-25T00:30:00Z');
  assert.equal(iso(wallToInstant(wall('2026-10-25T03:00:00'), BERLIN)), '2026-10-25T02:00:00Z');
  assert.equal(iso(wallToInstant(wall('2026-10-25T02:30:00'), 'UTC')), '2026-10-25T02:30:00Z');
});

test('the program\'s UTC times become local times with the offset of the day it was stored', () => {
  // Stored in winter (UTC+1): 05:00 UTC is 06:00 local, and stays 06:00 local in summer.
  const program: HubProgram = { timeZone: BERLIN, offsetMinutes: 60, events: [{ mode: 'HEAT', temperature: 21, start: { day: 'MONDAY', time: '05:00' } }] };
  const actions = programActions(program);
  assert.deepEqual(actions.map((a) => a.localMinute), [6 * 60]);
  const winter = occurrencesAround(actions, BERLIN, Date.parse('2027-03-24T12:00:00Z'));
  assert.equal(iso(winter.current.atMs), '2027-03-22T05:00:00Z');
  assert.equal(iso(winter.next.atMs), '2027-03-29T04:00:00Z', 'after the change: 06:00 summer time');
  // An event late on Sunday UTC that is Monday local wraps into the next week.
  const late: HubProgram = { timeZone: BERLIN, offsetMinutes: 120, events: [{ mode: 'OFF', start: { day: 'SUNDAY', time: '23:30' } }] };
  assert.deepEqual(programActions(late).map((a) => a.localMinute), [90], 'Monday 01:30 local');
});

test('an end switches OFF, unless the next event starts first; the later of two events at one minute wins', () => {
  const program: HubProgram = {
    timeZone: 'UTC', offsetMinutes: 0,
    events: [
      { mode: 'HEAT', temperature: 21, start: { day: 'MONDAY', time: '06:00' }, end: { day: 'MONDAY', time: '08:00' } },
      { mode: 'COOL', temperature: 24, start: { day: 'MONDAY', time: '12:00' }, end: { day: 'MONDAY', time: '18:00' } },
      { mode: 'AUTO', start: { day: 'MONDAY', time: '17:00' } },
      { mode: 'DRY', start: { day: 'TUESDAY', time: '09:00' } },
      { mode: 'REDUCED', temperature: 17, start: { day: 'TUESDAY', time: '09:00' } },
    ],
  };
  const actions = programActions(program).map((a) => [a.localMinute, a.mode, a.temperature ?? null, a.isEnd]);
  assert.deepEqual(actions, [
    [360, 'HEAT', 21, false],
    [480, 'OFF', null, true],
    [720, 'COOL', 24, false], // its end (18:00) is after AUTO starts (17:00): AUTO takes over
    [1020, 'AUTO', null, false],
    [1440 + 540, 'REDUCED', 17, false],
  ]);
  // One event with an end: on from its start to its end, off the rest of the week.
  const once: HubProgram = { timeZone: 'UTC', offsetMinutes: 0, events: [{ mode: 'HEAT', start: { day: 'SUNDAY', time: '22:00' }, end: { day: 'MONDAY', time: '02:00' } }] };
  assert.deepEqual(programActions(once).map((a) => [a.localMinute, a.mode]), [[120, 'OFF'], [6 * 1440 + 1320, 'HEAT']]);
  const around = occurrencesAround(programActions(once), 'UTC', Date.parse('2026-11-23T01:00:00Z'));
  assert.equal(around.current.action.mode, 'HEAT');
  assert.equal(iso(around.current.atMs), '2026-11-22T22:00:00Z');
  assert.equal(iso(around.next.atMs), '2026-11-23T02:00:00Z');
});

test('two events in the skipped hour fall on the same instant: the later one is in force', () => {
  const program: HubProgram = {
    timeZone: BERLIN, offsetMinutes: 60,
    events: [
      { mode: 'HEAT', temperature: 20, start: { day: 'SUNDAY', time: '01:10' } }, // 02:10 local
      { mode: 'HEAT', temperature: 22, start: { day: 'SUNDAY', time: '01:40' } }, // 02:40 local
      { mode: 'REDUCED', temperature: 17, start: { day: 'SUNDAY', time: '20:00' } },
    ],
  };
  const actions = programActions(program);
  const before = occurrencesAround(actions, BERLIN, Date.parse('2027-03-28T00:59:00Z'));
  assert.equal(iso(before.next.atMs), '2027-03-28T01:00:00Z');
  const after = occurrencesAround(actions, BERLIN, Date.parse('2027-03-28T01:00:00Z'));
  assert.equal(after.current.action.temperature, 22);
  assert.equal(iso(after.current.atMs), '2027-03-28T01:00:00Z');
  assert.equal(iso(after.next.atMs), '2027-03-28T19:00:00Z', '21:00 local, summer time');
});

test('what a device that lacks SET_MODE or SET_TEMPERATURE can run', () => {
  const heat = { mode: 'HEAT', start: { day: 'MONDAY', time: '06:00' } } as const;
  assert.equal(programProblem([{ ...heat, temperature: 21 }], true, true), undefined);
  assert.equal(programProblem([heat], false, true)?.includes('needs a temperature'), true);
  assert.equal(programProblem([{ ...heat, temperature: 21, end: { day: 'MONDAY', time: '08:00' } }], false, true)?.includes('without ends'), true);
  assert.equal(programProblem([{ ...heat, temperature: 21 }], true, false)?.includes('not a temperature'), true);
  assert.equal(programProblem([{ ...heat, temperature: 21 }], false, true), undefined);
});
