// A refresh of an MQTT-driven device is a live read: through a real broker, a device the hub has not
// heard from (never published, declared itself offline, or no driver of this hub reaches its binding)
// is 503 DEVICE_IS_DISCONNECTED and stored offline, whatever its imported state says; a device that
// speaks refreshes fine, also when it was imported into the running hub a moment before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GoESim } from '../../../src/sim/mqtt/go-e-sim.ts';
import { prepareImport } from '../../../src/domain/import.ts';
import { startBroker } from '../../support/broker.ts';
import { drivenRecord, startMqttHub, type MqttHub } from '../../support/mqtt-hub.ts';
import { createTestHub } from '../../support/hub.ts';
import { HubRuntime } from '../../../src/runtime/hub-runtime.ts';
import { ModbusRuntime } from '../../../src/runtime/modbus/modbus-runtime.ts';
import { DeviceUnreachableError } from '../../../src/runtime/devices/live.ts';
import type { CommandWorker } from '../../../src/runtime/commands/command-worker.ts';
import type { DeviceWatcher } from '../../../src/runtime/events/device-watcher.ts';
import { builtInDrivers } from '../../../drivers/modbus/index.ts';
import { builtInMqttDrivers } from '../../../drivers/mqtt/index.ts';
import { silentLogger } from '../../../src/log.ts';
import { systemClock } from '../../../src/domain/time.ts';
import { MqttSession } from '../../../src/runtime/mqtt/mqtt-session.ts';
import goE from '../../../drivers/mqtt/go-e.ts';
import type { DeviceRecord } from '../../../src/domain/device.ts';

const SILENT = '6f1c2a4e-0000-4000-8000-00000000c901';
const LIVE = '6f1c2a4e-0000-4000-8000-00000000c902';
const REFRESH_TIMEOUT_MS = 600;

/** An imported go-e charger, months old and stored online, as `hub import` leaves it. */
function importedCharger(id: string, serial: string): Record<string, unknown> {
  return drivenRecord('charger', id, 'GO_E', { type: 'go-e', serial }, {
    isOnline: true, lastUpdated: '2026-01-10T08:00:00Z',
    chargeState: { lastUpdated: '2026-01-10T08:00:00Z', chargeRate: 7.2, chargeCurrentMax: 16, isPlugged: true, activePhases: 3, chargingState: 'CHARGING' },
  });
}

/** What `npm run hub -- import FILE` does to a running hub: rows written behind its back. */
function importBehindTheHub(hub: MqttHub, records: unknown[]): void {
  const store = hub.daemon.db;
  const prepared = prepareImport(records, Date.now(), (id) => store.devices.get(id)?.kind);
  store.importDevices(prepared.devices, prepared.images, Date.now());
}

async function expectDisconnected(hub: MqttHub, id: string): Promise<void> {
  const started = Date.now();
  const response = await hub.api(`/chargers/${id}/refresh`);
  const body = (await response.json()) as { errorCode?: string; isOnline?: boolean };
  assert.equal(response.status, 503, `refresh answered ${response.status}: ${JSON.stringify(body)}`);
  assert.equal(body.errorCode, 'DEVICE_IS_DISCONNECTED');
  assert.ok(Date.now() - started < REFRESH_TIMEOUT_MS + 2000, `refresh took ${Date.now() - started} ms`);
  assert.equal(hub.device(id)?.isOnline, false, 'a device known unreachable is stored offline');
}

test('refresh of a go-e charger that never published, imported before the hub started: 503, and stored offline', async (t) => {
  const hub = await startMqttHub(t, { records: [importedCharger(SILENT, '999999')], mqttSettings: { refreshTimeoutMs: REFRESH_TIMEOUT_MS } });
  assert.equal(hub.device(SILENT)?.isOnline, true);
  await expectDisconnected(hub, SILENT);
  // The detail says so too, and its commands wait for it instead of being sent into the void.
  const detail = (await (await hub.api(`/chargers/${SILENT}`)).json()) as { isOnline: boolean };
  assert.equal(detail.isOnline, false);
  assert.equal(hub.daemon.mqtt!.isReachable(hub.device(SILENT)!), false);

  // Once it speaks, it is back.
  const sim = new GoESim(hub.broker.url, '999999');
  t.after(() => sim.stop());
  const back = hub.event((e) => e.type === 'update' && e.device.id === SILENT && e.device.isOnline);
  await sim.start();
  await back;
  assert.equal(hub.daemon.mqtt!.isReachable(hub.device(SILENT)!), true);
  assert.equal((await hub.api(`/chargers/${SILENT}/refresh`)).status, 200);
});

test('refresh of a go-e charger imported into the running hub: 503 when it never published, 200 with live values when it speaks', async (t) => {
  const hub = await startMqttHub(t, { mqttSettings: { refreshTimeoutMs: REFRESH_TIMEOUT_MS } });
  const sim = new GoESim(hub.broker.url, '012345');
  t.after(() => sim.stop());
  await sim.start();
  await sim.plugIn();
  // Seconds after the import: the MQTT runtime has not picked the devices up yet (resync).
  importBehindTheHub(hub, [importedCharger(SILENT, '999999'), importedCharger(LIVE, '012345')]);
  await expectDisconnected(hub, SILENT);

  const response = await hub.api(`/chargers/${LIVE}/refresh`);
  assert.equal(response.status, 200);
  const body = (await response.json()) as { isOnline: boolean; chargeState: Record<string, unknown> };
  assert.equal(body.isOnline, true);
  assert.equal(body.chargeState['chargeRate'], 11.04, 'the simulator\'s value, not the imported 7.2');
  assert.notEqual(body.chargeState['lastUpdated'], '2026-01-10T08:00:00Z');

  // Heard recently: refreshed at once. Then its last will: unreachable.
  assert.equal((await hub.api(`/chargers/${LIVE}/refresh`)).status, 200);
  const offline = hub.event((e) => e.type === 'offline' && e.device.id === LIVE);
  sim.drop();
  await offline;
  await expectDisconnected(hub, LIVE);
});

test('refresh after a restart of the hub: a charger that never published is still 503', async (t) => {
  const broker = await startBroker();
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-mqtt-restart-'));
  t.after(async () => {
    await broker.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const first = await startMqttHub(t, { broker, dataDir, records: [importedCharger(SILENT, '999999')] });
  await first.stop();
  const second = await startMqttHub(t, { broker, dataDir, mqttSettings: { refreshTimeoutMs: REFRESH_TIMEOUT_MS } });
  await expectDisconnected(second, SILENT);
});

test('HubRuntime: a device whose binding no driver of this hub handles is unreachable; one without a binding, or bound only to its charger, answers as stored', async (t) => {
  const hub = createTestHub();
  const modbus = new ModbusRuntime({ store: hub.store, registry: builtInDrivers(), log: silentLogger(), clock: systemClock });
  t.after(async () => {
    await modbus.stop();
    hub.close();
  });
  // No broker configured: the MQTT runtime does not exist, so nothing reaches a go-e charger.
  const runtime = new HubRuntime({ families: [modbus], brokerConfigured: false, worker: {} as CommandWorker, watcher: {} as DeviceWatcher });
  hub.seed([importedCharger(SILENT, '999999'), { ...importedCharger(LIVE, '012345'), driver: undefined }]);
  await assert.rejects(runtime.refresh(hub.store.devices.get(SILENT)!), (err: Error) => err instanceof DeviceUnreachableError && /mqtt/i.test(err.message));
  const bare = hub.store.devices.get(LIVE)!;
  assert.equal(bare.driver, null);
  assert.equal(await runtime.refresh(bare), bare, 'no binding: the stored data, as documented');
  // A vehicle bound only to the charger it charges at has nothing of its own to read, like one without a binding.
  const car = '6f1c2a4e-0000-4000-8000-00000000e901';
  hub.seed([drivenRecord('vehicle', car, 'MERCEDES', { type: 'charger', chargerId: LIVE })]);
  const bound = hub.store.devices.get(car)!;
  // No runtime opens it, so none warns about it as an unusable binding.
  assert.equal(modbus.handles(bound), false);
  assert.equal(builtInMqttDrivers().has('charger'), false);
  assert.equal(await runtime.refresh(bound), bound);
});

test('MqttSession: a device not heard since the hub began listening is never heard, but shown offline only after its silence allowance', () => {
  const device: DeviceRecord = {
    id: SILENT, kind: 'charger', userId: 'household-1', vendor: 'GO_E', name: null, model: null, isOnline: true, lastUpdatedMs: null,
    locationId: null, hvacType: null, staticData: {}, state: null, driver: { type: 'go-e', serial: '999999' }, createdAtMs: 0,
  };
  // go-e's own allowance (staleAfterSeconds, 60 s) replaces the hub's default.
  const stale = 60_000;
  const opened = Date.parse('2026-11-07T05:00:00Z');
  const session = new MqttSession(device, goE, silentLogger());
  session.listeningSinceMs = opened;
  // Seconds after it was imported (or the hub restarted), and just under five minutes later.
  for (const after of [1000, stale - 1000]) {
    assert.equal(session.isHeard(opened + after, stale), false, `heard ${after} ms after listening began`);
    assert.equal(session.isSilent(opened + after, stale), false, 'not shown offline before its allowance');
  }
  assert.equal(session.isSilent(opened + stale + 1, stale), true);

  const amp = session.routes().find(([topic]) => topic === 'go-eCharger/999999/amp')![1];
  assert.equal(amp.kind, 'state');
  session.onState((amp as Extract<typeof amp, { kind: 'state' }>).topic, Buffer.from('16'), opened + stale + 10);
  assert.equal(session.isHeard(opened + stale + 20, stale), true);
  assert.equal(session.isHeard(opened + 2 * stale + 11, stale), false, 'silent too long');
  session.onAvailability(Buffer.from('true'));
  assert.equal(session.isHeard(opened + 10 * stale, stale), false, 'mcc true does not hold a silent charger online: older firmware registers no last will');
  assert.equal(session.isHeard(opened + 10 * stale + 1, 300_000), false, 'the hub\'s default allowance does not replace the charger\'s own');
  session.onAvailability(Buffer.from('false'));
  assert.equal(session.isHeard(opened + 10 * stale, stale), false);
  assert.equal(session.isSilent(opened + 10 * stale, stale), true);
});
