// The hub killed (SIGKILL) in the middle of an OCPP transaction and of a command to the charger,
// then started again: the command that may have reached the charger fails with a reason and is not
// sent again; the StopTransaction the charger queued while the hub was away is taken exactly once.
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

const KEY = 'ocpp-crash-test-key-0123456789abcdef';
const CHARGER = '0c000000-0000-4000-8000-00000000c0c1';
const VEHICLE = '0c000000-0000-4000-8000-00000000e0c1';

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('SIGKILL during a transaction: the in-flight stop fails, is never resent; the queued StopTransaction is taken once', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-ocpp-crash-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const seed = Store.open(join(dir, 'hub.db'));
  const records = [
    ocppCharger(CHARGER, 'ZAP-KILL', { freeCharging: true }),
    { kind: 'vehicle', id: VEHICLE, userId: 'household-1', driver: { type: 'charger', chargerId: CHARGER }, staticData: { vendor: 'BMW', model: 'i4' } },
  ];
  const prepared = prepareImport(records, Date.now(), () => undefined);
  seed.importDevices(prepared.devices, prepared.images, Date.now(), prepared.ocppCredentials);
  seed.close();

  const port = String(await freePort());
  const env = { HUB_DATA_DIR: dir, HUB_API_KEY: KEY, HUB_HTTP_PORT: port };
  const first = await startHubProcess(env);
  t.after(() => first.kill());
  const sim = new ChargePointSim({ endpoint: `ws://127.0.0.1:${port}/ocpp`, identity: 'ZAP-KILL', password: PASSWORD });
  t.after(() => sim.close());
  await sim.connect();
  await sim.startTransaction('card-1');
  const transactionId = sim.transactionId!;
  sim.faults.silent = true; // it accepts the stop and then hangs: the command is in flight when the hub dies

  const res = await fetch(`${first.url}/v1.0.0/vehicles/${VEHICLE}/commands/charging-stop`, { method: 'POST', headers: { 'x-api-key': KEY } });
  assert.equal(res.status, 200);
  const commandId = ((await res.json()) as { id: string }).id;
  await until('the stop to reach the charger', () => (sim.received.some((r) => r.action === 'RemoteStopTransaction') ? true : undefined));
  const closed = once(sim.client, 'close');
  await first.kill('SIGKILL');
  await closed;

  // While the hub is away the car is unplugged: the charger ends the transaction and queues it.
  sim.faults.silent = false;
  await sim.stopTransaction('EVDisconnected');
  assert.equal(sim.queue.length, 1);

  const second = await startHubProcess(env);
  t.after(() => second.kill());
  await sim.reconnect();
  assert.equal(sim.queue.length, 0, 'the queued StopTransaction was answered');
  // Sent again (as after a lost answer): acknowledged, nothing changes.
  await sim.client.call('StopTransaction', { transactionId, meterStop: 1, timestamp: new Date().toISOString(), reason: 'Other' });

  const command = await until('the command to finish', async () => {
    const list = await fetch(`${second.url}/v1.0.0/users/household-1/vehicles/${VEHICLE}/commands?state=ALL`, { headers: { 'x-api-key': KEY } });
    const [only] = (await list.json()) as { id: string; state: string; failedReason?: string }[];
    return only && only.state !== 'PENDING' ? only : undefined;
  });
  assert.equal(command.id, commandId);
  assert.equal(command.state, 'FAILED');
  assert.match(command.failedReason ?? '', /restarted while this command was being sent; it is not sent again/);
  assert.equal(sim.received.filter((r) => r.action === 'RemoteStopTransaction').length, 1, 'never sent twice');

  const store = Store.open(join(dir, 'hub.db'));
  t.after(() => store.close());
  const stored = store.ocpp.transaction(transactionId)!;
  assert.equal(stored.stopReason, 'EVDisconnected', 'the queued stop, taken once; the repeat changed nothing');
  assert.equal(stored.meterStopWh, stored.meterStartWh + 1234);
  assert.deepEqual(store.ocpp.running('ZAP-KILL'), []);
});
