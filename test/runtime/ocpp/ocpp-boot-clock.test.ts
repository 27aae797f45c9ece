// A charger booting against a hub whose clock is not set (a fresh image boots in 1970): it is held
// Pending with a retry interval instead of being handed the hub's wrong time, and Accepted with the
// right time once the clock is set (issue 33, item 8). The hub's clock here is a fake wall clock over
// the real monotonic one; test/integration/clock-step.test.ts does the same with libfaketime.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ocppCharger, startOcppHub } from '../../support/ocpp-hub.ts';
import { until } from '../../support/process.ts';

const CHARGER = '0f5e8d43-0000-4000-8000-00000000c1c1';

test('BootNotification at 1970 is answered Pending with an interval; Accepted with the right time once the clock is set', async (t) => {
  let offsetMs = 2_000 - Date.now(); // 1970-01-01T00:00:02Z
  const clock = { now: () => Date.now() + offsetMs, monotonicMs: () => performance.now() };
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'CP-CLOCK')], { clock });
  assert.equal(hub.daemon.clockWatch?.trusted, false);
  const sim = hub.sim('CP-CLOCK', { pendingRetryMs: 50 });
  const connected = sim.connect();
  connected.catch(() => {});
  await until('a first boot answered', () => (sim.boots.length > 0 ? true : undefined));
  const first = sim.boots[0]!;
  assert.equal(first.status, 'Pending');
  assert.ok(first.interval > 0, 'a retry interval');
  assert.equal(hub.daemon.db.devices.get(CHARGER)?.model, 'unknown', 'nothing stored from a Pending boot');

  offsetMs = 0; // NTP sets the clock
  hub.daemon.clockWatch!.check();
  await connected;
  const last = sim.boots.at(-1)!;
  assert.equal(last.status, 'Accepted');
  assert.ok(Math.abs(Date.parse(last.currentTime) - Date.now()) < 10_000, `currentTime ${last.currentTime} is now`);
});
