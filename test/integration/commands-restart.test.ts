// The hub killed (SIGKILL) with commands in flight and waiting, then started again: nothing is lost
// and nothing runs twice. The one that may already have reached the charger fails with a reason;
// the waiting ones are carried out after the restart; the charger saw each command at most once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHubProcess, until } from '../support/process.ts';
import { startBroker } from '../support/broker.ts';
import { Store } from '../../src/store/store.ts';
import { prepareImport } from '../../src/domain/import.ts';
import { GoESim } from '../../src/sim/mqtt/go-e-sim.ts';
import { drivenRecord } from '../support/mqtt-hub.ts';

const KEY = 'restart-test-key-0123456789abcdef';
const CHARGER = '6f1c2a4e-0000-4000-8000-00000000c010';
const VEHICLE = '6f1c2a4e-0000-4000-8000-00000000e010';

test('killed with pending commands and restarted: nothing lost, nothing twice', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-restart-'));
  const broker = await startBroker();
  t.after(async () => {
    await broker.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const dataDir = join(dir, 'data');
  const configFile = join(dir, 'hub.yaml');
  writeFileSync(configFile, `mqtt:\n  url: ${broker.url}\n  protocolVersion: ${broker.supportsMqtt5 ? 5 : 4}\ncommands:\n  confirmTimeoutSeconds: 20\n`);
  const seed = Store.open(join(dataDir, 'hub.db'));
  const records = [
    drivenRecord('charger', CHARGER, 'GO_E', { type: 'go-e', serial: '555555' }),
    drivenRecord('vehicle', VEHICLE, 'TESLA', null),
  ];
  const prepared = prepareImport(records, Date.now(), () => undefined);
  seed.importDevices(prepared.devices, prepared.images, Date.now());
  seed.close();

  const sim = new GoESim(broker.url, '555555');
  t.after(() => sim.stop());
  await sim.start();
  await sim.plugIn();
  sim.faults.silent = true; // the first command reaches the charger but is never confirmed

  const env = { HUB_DATA_DIR: dataDir, HUB_API_KEY: KEY, HUB_CONFIG: configFile };
  const first = await startHubProcess(env);
  t.after(() => first.kill());
  const submit = async (url: string) => {
    const res = await fetch(`${url}/v1.0.0/vehicles/${VEHICLE}/commands/charging-stop`, { method: 'POST', headers: { 'x-api-key': KEY } });
    assert.equal(res.status, 200);
    return ((await res.json()) as { id: string }).id;
  };
  // The charger must be known as plugged in before the vehicle's stop can be routed to it.
  await until('the charger to be seen plugged in', async () => {
    const res = await fetch(`${first.url}/v1.0.0/chargers/${CHARGER}`, { headers: { 'x-api-key': KEY } });
    const body = (await res.json()) as { chargeState?: { isPlugged?: boolean } };
    return body.chargeState?.isPlugged === true ? true : undefined;
  });
  const ids = [await submit(first.url), await submit(first.url), await submit(first.url)];
  await until('the first command to reach the charger', () => (sim.received.some((m) => m.topic.endsWith('frc/set')) ? true : undefined));
  await first.kill('SIGKILL');
  assert.equal(sim.received.filter((m) => m.topic.endsWith('frc/set')).length, 1);

  sim.faults.silent = false;
  const second = await startHubProcess(env);
  t.after(() => second.kill());
  const states = await until('every command to finish', async () => {
    const res = await fetch(`${second.url}/v1.0.0/users/household-1/vehicles/${VEHICLE}/commands?state=ALL`, { headers: { 'x-api-key': KEY } });
    const list = (await res.json()) as { id: string; state: string; failedReason?: string }[];
    return list.every((c) => c.state !== 'PENDING') ? list : undefined;
  }, 30_000);
  assert.deepEqual(states.map((c) => c.id), ids, 'nothing lost, in order');
  assert.equal(states[0]!.state, 'FAILED');
  assert.match(states[0]!.failedReason ?? '', /restarted while this command was being sent; it is not sent again/);
  assert.deepEqual(states.slice(1).map((c) => c.state), ['EXECUTED', 'EXECUTED']);
  assert.equal(sim.received.filter((m) => m.topic.endsWith('frc/set')).length, 3, 'one send per command, none twice');
});
