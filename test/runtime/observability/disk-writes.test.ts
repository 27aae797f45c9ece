// The meter behind /metrics' bytes written to storage: bytes since start and their rate per hour,
// from /proc/<pid>/io's write_bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DiskWriteMeter, writtenBytes } from '../../../src/runtime/observability/disk-writes.ts';

test('DiskWriteMeter: bytes since start and per hour (nothing claimed in the first minute)', () => {
  let now = 1_000_000;
  let bytes = 5_000;
  const meter = new DiskWriteMeter(() => now, () => bytes);
  assert.equal(meter.available, true);
  bytes += 1_000;
  now += 30_000;
  assert.equal(meter.written(), 1_000);
  assert.equal(meter.perHour(), 0, 'half a minute says nothing yet');
  bytes += 1_000;
  now += 90_000; // two minutes, 2000 bytes: 60,000 an hour
  assert.equal(meter.perHour(), 60_000);
  assert.equal(new DiskWriteMeter(() => now, () => undefined).available, false);
});

test('writtenBytes reads write_bytes of a process from /proc; a process that does not exist gives nothing', () => {
  const mine = writtenBytes();
  if (mine !== undefined) assert.ok(Number.isInteger(mine) && mine >= 0);
  assert.equal(writtenBytes(2 ** 30), undefined);
});
