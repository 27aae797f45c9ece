// The cheapest hours ahead the household page names: whole hours, priced by the time-weighted mean
// of the prices in force within them, whether the source publishes hourly or by the quarter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hoursAhead } from '../../src/runtime/household/household-today.ts';

const HOUR = 3_600_000;
const at = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

// Hours are the hub's local hours: these figures hold where they fall on UTC hours (every whole-hour offset).
const wholeHourZone = new Date('2026-11-27T12:00:00Z').getTimezoneOffset() % 60 === 0;

test('quarter-hour prices make hours, each the mean of its quarters; an hour under way and prices before now are not ahead', { skip: !wholeHourZone }, () => {
  const hour = new Date('2026-11-27T12:00:00Z').getTime();
  const now = hour + 20 * 60_000; // 12:20
  const quarters = [0.30, 0.28, 0.26, 0.24, 0.10, 0.20, 0.30, 0.40, 0.35, 0.35, 0.35, 0.35];
  const prices = quarters.map((price, i) => ({ startDate: at(hour + i * 15 * 60_000), totalPrice: price }));
  const ahead = hoursAhead(prices, now);
  // 13:00 and 14:00 are ahead; 12:00 began before now (its 12:30 and 12:45 quarters are not an hour).
  assert.deepEqual(ahead.map((h) => Date.parse(h.startDate) - hour), [HOUR, 2 * HOUR]);
  assert.deepEqual(ahead.map((h) => h.totalPrice), [0.25, 0.35]);
});

test('hourly prices are their own hours; a price published for a later part of an hour is weighted by the time it is in force', { skip: !wholeHourZone }, () => {
  const hour = new Date('2026-11-27T12:00:00Z').getTime();
  const hourly = [0.3, 0.2, 0.25].map((price, i) => ({ startDate: at(hour + i * HOUR), totalPrice: price }));
  assert.deepEqual(hoursAhead(hourly, hour), [
    { startDate: at(hour + HOUR), totalPrice: 0.2 },
    { startDate: at(hour + 2 * HOUR), totalPrice: 0.25 },
  ]);
  // 13:00 at 0.40, from 13:45 at 0.20: (45 × 0.40 + 15 × 0.20) / 60 = 0.35.
  const mixed = [{ startDate: at(hour + HOUR), totalPrice: 0.4 }, { startDate: at(hour + HOUR + 45 * 60_000), totalPrice: 0.2 }, { startDate: at(hour + 2 * HOUR), totalPrice: 0.3 }];
  assert.deepEqual(hoursAhead(mixed, hour).map((h) => h.totalPrice), [0.35, 0.3]);
  assert.deepEqual(hoursAhead([], hour), []);
});
