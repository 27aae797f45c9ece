// The failed-authentication limiter shared by the API keys and the OCPP endpoint: windows on a
// monotonic clock (given here), memory bounded by forgetting the least recently failed clients under
// the limit, never a locked-out one; IPv6 counted per /64, IPv4-mapped IPv6 as IPv4.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthFailures, clientKey } from '../../src/runtime/auth-failures.ts';

function limiter(perMinute = 3, maxCounting = 100) {
  const clock = { ms: 1_000_000 };
  const failures = new AuthFailures(() => perMinute, { now: () => clock.ms, maxCounting });
  return { clock, failures };
}

test('past the limit a client waits until its minute is over, then may try again', () => {
  const { clock, failures } = limiter();
  for (let i = 0; i < 3; i++) failures.count('192.0.2.1');
  assert.equal(failures.retryAfterSeconds('192.0.2.1'), 60);
  assert.equal(failures.retryAfterSeconds('192.0.2.2'), 0, 'another client is not concerned');
  clock.ms += 59_500;
  assert.equal(failures.retryAfterSeconds('192.0.2.1'), 1);
  clock.ms += 500;
  assert.equal(failures.retryAfterSeconds('192.0.2.1'), 0);
});

test('a locked-out client is never freed because many others failed after it', () => {
  const { failures } = limiter(3, 100);
  for (let i = 0; i < 3; i++) failures.count('192.0.2.1');
  // 10,000 bad keys from other loopback addresses once emptied the whole table.
  for (let i = 0; i < 10_000; i++) failures.count(`127.0.${(i >> 8) & 0xff}.${i & 0xff}`);
  assert.ok(failures.retryAfterSeconds('192.0.2.1') > 0);
  assert.ok(failures.tracked <= 101, `memory stays bounded: ${failures.tracked} clients tracked`);
});

test('the least recently failed clients under the limit are forgotten first', () => {
  const { failures } = limiter(3, 2);
  failures.count('192.0.2.1');
  failures.count('192.0.2.1');
  failures.count('192.0.2.2');
  failures.count('192.0.2.1'); // its third: locked out
  assert.ok(failures.retryAfterSeconds('192.0.2.1') > 0);
  failures.count('192.0.2.3');
  failures.count('192.0.2.3');
  failures.count('192.0.2.4'); // the counting table holds 2: 192.0.2.2 (least recent) goes
  failures.count('192.0.2.2');
  failures.count('192.0.2.2');
  assert.equal(failures.retryAfterSeconds('192.0.2.2'), 0, 'its earlier failure was forgotten');
  assert.ok(failures.retryAfterSeconds('192.0.2.1') > 0, 'the locked-out client is kept');
});

test('a wall clock stepped back does not change a lock-out: windows are on the monotonic clock', (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-11-27T12:00:00Z') });
  const failures = new AuthFailures(() => 3); // performance.now() by default
  for (let i = 0; i < 3; i++) failures.count('192.0.2.1');
  const before = failures.retryAfterSeconds('192.0.2.1');
  t.mock.timers.setTime(Date.parse('2026-11-27T10:00:00Z') - 55_000); // NTP steps the clock back 7,255 s
  const after = failures.retryAfterSeconds('192.0.2.1');
  assert.ok(before > 0 && after > 0 && after <= before, `still the same minute: ${before} s then ${after} s`);
});

test('IPv6 clients count per /64; an IPv4-mapped IPv6 address counts as its IPv4 address', () => {
  assert.equal(clientKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(clientKey('2001:db8:1:2:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64');
  assert.equal(clientKey('2001:DB8:0001:0002::9'), '2001:db8:1:2::/64');
  assert.equal(clientKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(clientKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(clientKey('::1'), '0:0:0:0::/64');
  assert.equal(clientKey('::ffff:192.0.2.7'), '192.0.2.7');
  assert.equal(clientKey('::ffff:c000:207'), '192.0.2.7');
  assert.equal(clientKey('192.0.2.7'), '192.0.2.7');
  assert.equal(clientKey('relay'), 'relay');

  const { failures } = limiter(3);
  failures.count('2001:db8:1:2::1');
  failures.count('2001:db8:1:2::2');
  failures.count('2001:db8:1:2:ffff:ffff:ffff:ffff');
  assert.ok(failures.retryAfterSeconds('2001:db8:1:2::4242') > 0, 'a new address in the same /64 is locked out too');
  assert.equal(failures.retryAfterSeconds('2001:db8:1:3::1'), 0);
  failures.count('::ffff:192.0.2.9');
  failures.count('::ffff:192.0.2.9');
  failures.count('192.0.2.9');
  assert.ok(failures.retryAfterSeconds('192.0.2.9') > 0);
});
