// Records the hub stamps while its clock is not set (a fresh image boots in 1970) are re-dated once
// it is: its key, and a command submitted meanwhile, read the time they really happened (issue 33).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ocppCharger, startOcppHub } from '../support/ocpp-hub.ts';

const CHARGER = '0f5e8d43-0000-4000-8000-00000000c2c2';

test('a key and a command stamped in 1970 are re-dated when the clock is set, the command keeping its time to live', async (t) => {
  let offsetMs = 2_000 - Date.now(); // 1970-01-01T00:00:02Z
  const clock = { now: () => Date.now() + offsetMs, monotonicMs: () => performance.now() };
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'CP-RESTAMP')], { clock });
  const db = hub.daemon.db.db;
  const keyCreated = () => (db.prepare("SELECT created_at AS at FROM api_keys WHERE name = 'HUB_API_KEY'").get() as { at: number }).at;
  assert.ok(keyCreated() < 60_000, 'stamped in 1970');
  const command = hub.submit(CHARGER, 'SET_CHARGING_PHASES', { phases: 1 });
  const stamps = () => db.prepare('SELECT created_at AS createdAt, expires_at AS expiresAt FROM commands WHERE id = ?').get(command.id) as { createdAt: number; expiresAt: number };
  const ttlMs = stamps().expiresAt - stamps().createdAt;

  offsetMs = 0; // NTP sets the clock
  hub.daemon.clockWatch!.check();
  const now = Date.now();
  assert.ok(Math.abs(keyCreated() - now) < 60_000, `the key's creation is now: ${new Date(keyCreated()).toISOString()}`);
  assert.ok(Math.abs(stamps().createdAt - now) < 60_000, 'the command\'s creation is now');
  // Kept to the millisecond: the step and the re-dating each read the two clocks a moment apart.
  assert.ok(Math.abs(stamps().expiresAt - stamps().createdAt - ttlMs) <= 1, `its time to live is kept: ${stamps().expiresAt - stamps().createdAt} ms`);
});
