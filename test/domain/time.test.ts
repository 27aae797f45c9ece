// Timestamps in the API's style (decisions §2, "Units"): UTC, whole seconds, `2026-11-07T05:31:56Z`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatTimestamp, normalizeTimestamp, parseTimestamp, wholeSeconds } from '../../src/domain/time.ts';

test('formatTimestamp shows whole seconds, dropping any fraction rather than rounding it', () => {
  const at = Date.parse('2026-11-23T01:16:51Z');
  assert.equal(formatTimestamp(at), '2026-11-23T01:16:51Z');
  assert.equal(formatTimestamp(at + 121), '2026-11-23T01:16:51Z');
  assert.equal(formatTimestamp(at + 999), '2026-11-23T01:16:51Z', 'never later than it was');
  assert.equal(formatTimestamp(-1), '1969-12-31T23:59:59Z', 'floored before 1970 too');
  assert.equal(wholeSeconds(-1500), -2000);
  assert.equal(wholeSeconds(at + 500), at);
});

test('normalizeTimestamp turns any offset and fraction into the hub form; parseTimestamp keeps the milliseconds', () => {
  assert.equal(normalizeTimestamp('2026-11-07T07:31:56.789+02:00'), '2026-11-07T05:31:56Z');
  assert.equal(normalizeTimestamp('2026-11-07T05:31:56.9999999Z'), '2026-11-07T05:31:56Z');
  assert.equal(parseTimestamp('2026-11-07T05:31:56.789Z'), Date.parse('2026-11-07T05:31:56Z') + 789);
  assert.equal(parseTimestamp('2026-11-07T05:31:56'), undefined, 'an offset is needed');
  assert.throws(() => normalizeTimestamp('yesterday'), RangeError);
});
