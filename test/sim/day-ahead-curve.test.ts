// The demo tariff's day-ahead curve (src/sim/demo-household.ts), as the simulated evcc republishes
// it: hourly slots of today in Berlin, and tomorrow's once it is past 13:00 there (EPEX's day-ahead
// results), contiguous, each at dayAheadPrice of its hour; computed from the date alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dayAheadCurve, dayAheadPrice } from '../../src/sim/demo-household.ts';

const H = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

test('day-ahead curve: today from Berlin midnight before 13:00, tomorrow too from 13:00', () => {
  const morning = dayAheadCurve(Date.parse('2026-11-27T11:59:00Z')); // 12:59 in Berlin (CET)
  assert.equal(morning.length, 24);
  assert.equal(iso(morning[0]!.startMs), '2026-11-26T23:00:00.000Z');
  assert.equal(iso(morning.at(-1)!.endMs), '2026-11-27T23:00:00.000Z');
  const afternoon = dayAheadCurve(Date.parse('2026-11-27T12:00:00Z')); // 13:00 in Berlin
  assert.equal(afternoon.length, 48);
  assert.deepEqual(afternoon.slice(0, 24), morning);
  assert.equal(iso(afternoon.at(-1)!.endMs), '2026-11-28T23:00:00.000Z');
  for (const [i, slot] of afternoon.entries()) {
    assert.equal(slot.endMs - slot.startMs, H);
    if (i > 0) assert.equal(slot.startMs, afternoon[i - 1]!.endMs, 'contiguous');
    assert.equal(slot.price, dayAheadPrice(slot.startMs));
  }
  assert.deepEqual(dayAheadCurve(Date.parse('2026-11-27T12:00:00Z')), afternoon, 'the same date gives the same curve');
});

test('day-ahead curve: the days the clocks change have 23 and 25 hours; the shape is a dynamic tariff\'s', () => {
  assert.equal(dayAheadCurve(Date.parse('2026-03-29T08:00:00Z')).length, 23);
  assert.equal(dayAheadCurve(Date.parse('2026-10-25T08:00:00Z')).length, 25);
  const day = dayAheadCurve(Date.parse('2026-11-27T08:00:00Z'));
  const at = (hour: number) => day[hour]!.price; // Berlin hours (CET: no clock change that day)
  assert.ok(at(19) > at(13) && at(19) > at(3), 'the evening peak is dearest');
  assert.ok(at(13) < at(8) && at(3) < at(8), 'cheap at night and at midday');
});
