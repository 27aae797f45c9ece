// Schedules arrive in UTC and devices keep local time: offsets with daylight saving, windows that
// cross local midnight or the end of the week, and events without an end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeSchedule, hhmm, localWindows, offsetMinutes } from '../../src/runtime/commands/schedules.ts';
import { CommandFailure } from '../../src/runtime/commands/executor.ts';

const WINTER = Date.parse('2026-11-22T12:00:00Z');
const SUMMER = Date.parse('2026-07-01T12:00:00Z');

test('the offset of a zone follows daylight saving', () => {
  assert.equal(offsetMinutes('Europe/Berlin', WINTER), 60);
  assert.equal(offsetMinutes('Europe/Berlin', SUMMER), 120);
  assert.equal(offsetMinutes('UTC', WINTER), 0);
  assert.equal(offsetMinutes('America/New_York', WINTER), -300);
  assert.throws(() => offsetMinutes('Mars/Olympus', WINTER), CommandFailure);
});

test('an event in UTC lands on the local day and time, split at local midnight', () => {
  // 22:30 UTC on Sunday is 23:30 in Berlin (winter); until 01:00 UTC Monday = 02:00 Monday local.
  const windows = localWindows([{ mode: 'HEAT', start: { day: 'SUNDAY', time: '22:30' }, end: { day: 'MONDAY', time: '01:00' }, temperature: 21 }], 'Europe/Berlin', WINTER);
  assert.deepEqual(windows.map((w) => [w.day, hhmm(w.fromMin), hhmm(w.toMin), w.temperature]), [
    ['MONDAY', '00:00', '02:00', 21],
    ['SUNDAY', '23:30', '24:00', 21],
  ]);
});

test('an event without an end lasts until the next one starts, across the end of the week', () => {
  const windows = localWindows([
    { mode: 'HEAT', start: { day: 'SATURDAY', time: '06:00' } },
    { mode: 'REDUCED', start: { day: 'SATURDAY', time: '22:00' } },
  ], 'UTC', WINTER);
  const heat = windows.filter((w) => w.mode === 'HEAT').map((w) => [w.day, hhmm(w.fromMin), hhmm(w.toMin)]);
  assert.deepEqual(heat, [['SATURDAY', '06:00', '22:00']]);
  const reduced = windows.filter((w) => w.mode === 'REDUCED');
  // 22:00 Saturday until 06:00 the next Saturday: a whole week but 16 hours.
  assert.equal(reduced.reduce((sum, w) => sum + (w.toMin - w.fromMin), 0), 7 * 1440 - 16 * 60);
});

test('json-local writes the windows in device time; an empty schedule is refused', () => {
  const [json] = encodeSchedule('json-local', { schedules: [{ mode: 'HEAT', start: { day: 'MONDAY', time: '05:00' }, end: { day: 'MONDAY', time: '07:00' } }] }, { timeZone: 'Europe/Berlin' }, SUMMER);
  assert.deepEqual(JSON.parse(json!), [{ day: 'MONDAY', from: '07:00', to: '09:00', mode: 'HEAT' }]);
  assert.throws(() => encodeSchedule('json-local', { schedules: [] }, {}, WINTER), /empty/);
  assert.throws(() => encodeSchedule('no-such-format', { schedules: [{ mode: 'HEAT', start: { day: 'MONDAY', time: '05:00' } }] }, {}, WINTER), /does not know/);
});

test('ebusd-vaillant-timer writes each local day as three from;to slots of the VRC700 (slot1-3), 10-minute steps', () => {
  const days = encodeSchedule('ebusd-vaillant-timer', { schedules: [
    { mode: 'HEAT', start: { day: 'SUNDAY', time: '22:30' }, end: { day: 'MONDAY', time: '01:00' } },
    { mode: 'REDUCED', start: { day: 'MONDAY', time: '01:00' } },
  ] }, { timeZone: 'Europe/Berlin' }, WINTER);
  assert.deepEqual(days, [
    '00:00;02:00;-:-;-:-;-:-;-:-', ...Array(5).fill('-:-;-:-;-:-;-:-;-:-;-:-'), '23:30;24:00;-:-;-:-;-:-;-:-',
  ]);
  const four = ['04:00', '08:00', '12:00', '16:00'].map((time) => ({ mode: 'HEAT', start: { day: 'MONDAY' as const, time }, end: { day: 'MONDAY' as const, time: time.replace(/^\d\d/, (h) => String(Number(h) + 1).padStart(2, '0')) } }));
  assert.throws(() => encodeSchedule('ebusd-vaillant-timer', { schedules: four }, { timeZone: 'UTC' }, WINTER), /at most 3 heating windows a day; MONDAY has 4/);
  assert.throws(() => encodeSchedule('ebusd-vaillant-timer', { schedules: [{ mode: 'HEAT', start: { day: 'MONDAY', time: '06:05' }, end: { day: 'MONDAY', time: '07:00' } }] }, { timeZone: 'UTC' }, WINTER), /10-minute steps; MONDAY 06:05-07:00/);
});
