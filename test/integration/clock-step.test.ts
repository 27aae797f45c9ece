// The hub as src/main.ts runs it, its wall clock moved from outside with libfaketime (issue 33): a
// fresh image boots in 1970 and NTP later sets the clock. A charger booting meanwhile is held Pending
// (it is not handed 1970), then Accepted with the right time once the clock is set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHubProcess, until } from '../support/process.ts';
import { Store } from '../../src/store/store.ts';
import { prepareImport } from '../../src/domain/import.ts';
import { ChargePointSim } from '../../src/sim/ocpp/charge-point-sim.ts';
import { ocppCharger, PASSWORD } from '../support/ocpp-hub.ts';
import { skipWithout } from '../support/peers.ts';
import { fakedClock } from '../support/faketime.ts';

const KEY = 'clock-step-test-key-0123456789abcdef';
const CHARGER = '0c000000-0000-4000-8000-0000000c10c1';

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('a hub booted in 1970: a charger is held Pending, then Accepted with the right time once NTP sets the clock', { skip: skipWithout('libfaketime') }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-clock-step-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const seed = Store.open(join(dir, 'hub.db'));
  const prepared = prepareImport([ocppCharger(CHARGER, 'CP-1970')], Date.now(), () => undefined);
  seed.importDevices(prepared.devices, prepared.images, Date.now(), prepared.ocppCredentials);
  seed.close();

  const clock = fakedClock(t, '1970-01-01T00:00:02Z');
  const port = String(await freePort());
  const hub = await startHubProcess({ HUB_DATA_DIR: dir, HUB_API_KEY: KEY, HUB_HTTP_PORT: port, ...clock.env });
  t.after(() => hub.kill());
  const sim = new ChargePointSim({ endpoint: `ws://127.0.0.1:${port}/ocpp`, identity: 'CP-1970', password: PASSWORD, pendingRetryMs: 200 });
  t.after(() => sim.close());
  const connected = sim.connect();
  connected.catch(() => {});
  await until('the charger\'s first boot to be answered', () => (sim.boots.length > 0 ? true : undefined));
  assert.equal(sim.boots[0]!.status, 'Pending', `answered ${JSON.stringify(sim.boots[0])}`);
  assert.ok(sim.boots[0]!.interval > 0);

  clock.set(new Date().toISOString()); // NTP sets the clock
  await connected;
  const accepted = sim.boots.at(-1)!;
  assert.equal(accepted.status, 'Accepted');
  assert.ok(Math.abs(Date.parse(accepted.currentTime) - Date.now()) < 10_000, `currentTime ${accepted.currentTime} is the right time`);
  assert.ok(sim.boots.every((boot) => boot.status !== 'Accepted' || !boot.currentTime.startsWith('1970')), 'never handed 1970 with an Accepted');
});
