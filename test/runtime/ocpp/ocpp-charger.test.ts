// An OCPP charger driven by the hub, end to end: a charge point simulator (ocpp-rpc's client in
// strict mode: every frame both ways checked against the official OCPP 1.6 schemas) connects to a
// whole hub over a real WebSocket; the API shows what it reports, and commands go through it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ocppCharger, startOcppHub, type OcppHub } from '../../support/ocpp-hub.ts';
import type { ChargePointSim } from '../../../src/sim/ocpp/charge-point-sim.ts';
import { HUB_ID_TAG } from '../../../src/runtime/ocpp/ocpp-handlers.ts';
import { json } from '../../support/hub.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '../../../src/log.ts';
import { Store } from '../../../src/store/store.ts';

const CHARGER = '0c000000-0000-4000-8000-00000000c001';
const VEHICLE = '0c000000-0000-4000-8000-00000000e001';

const vehicleAtCharger = {
  kind: 'vehicle', id: VEHICLE, userId: 'household-1', driver: { type: 'charger', chargerId: CHARGER },
  staticData: { vendor: 'BMW', name: 'i4', model: 'i4 eDrive40' },
};

/** Resolves once the charger's stored chargeState matches. */
async function stateIs(hub: OcppHub, match: (state: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  const waiting = hub.event((e) => e.type !== 'command' && e.device.id === CHARGER && match(e.device.state ?? {}));
  waiting.catch(() => {});
  const now = hub.daemon.db.devices.get(CHARGER)?.state;
  if (now && match(now)) return now;
  const event = await waiting;
  return (event as { device: { state: Record<string, unknown> } }).device.state;
}

async function connected(hub: OcppHub, options: Parameters<OcppHub['sim']>[1] = {}): Promise<ChargePointSim> {
  const sim = hub.sim('ZAP-001', options);
  await sim.connect();
  await hub.online(CHARGER, true);
  return sim;
}

test('BootNotification is accepted with the hub\'s heartbeat interval and fills the model; the hub sets the sample interval', async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP-001')]);
  const sim = hub.sim('ZAP-001', { vendor: 'Generic', model: 'Wallbox Pro 22' });
  const configured = new Promise<void>((resolve) => sim.client.on('call', ({ outbound, payload }: { outbound: boolean; payload: unknown[] }) => {
    if (!outbound && payload[2] === 'ChangeConfiguration') setImmediate(resolve);
  }));
  await sim.connect();
  assert.equal(sim.heartbeatIntervalS, 300);
  await configured;
  assert.equal(sim.configuration.get('MeterValueSampleInterval'), '30');
  const detail = await json(await hub.api(`/chargers/${CHARGER}`));
  assert.equal(detail.staticData.model, 'Wallbox Pro 22');
  assert.equal(detail.staticData.vendor, 'ZAPTEC');
  assert.equal(detail.isOnline, true);
});

test('status and meter values become the API\'s chargeState, in kW and A, whatever units the charger uses', async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP-001', { freeCharging: true })]);
  const sim = await connected(hub);
  assert.deepEqual(await stateIs(hub, (s) => s['chargingState'] === 'UNPLUGGED'), { ...hub.daemon.db.devices.get(CHARGER)!.state });
  await sim.plugIn();
  await stateIs(hub, (s) => s['chargingState'] === 'PREPARING' && s['isPlugged'] === true);
  await sim.startTransaction('any-card');
  const charging = await stateIs(hub, (s) => s['chargingState'] === 'CHARGING' && s['chargeRate'] === 7.36);
  assert.equal(charging['chargeCurrentMax'], 16);
  assert.equal(charging['activePhases'], 3);
  // Watts instead of kilowatts: the same API value.
  await sim.sendMeterValues('Sample.Periodic', { value: '11040', unit: 'W' });
  await stateIs(hub, (s) => s['chargeRate'] === 11.04);
  await sim.sendStatus('SuspendedEV');
  const full = await stateIs(hub, (s) => s['chargingState'] === 'FINISHED');
  assert.equal(full['chargeRate'], 0, 'power is that of a charge in progress');
  await sim.sendStatus('Faulted', 'GroundFailure');
  await stateIs(hub, (s) => s['chargingState'] === 'FAULT');
  const detail = await json(await hub.api(`/chargers/${CHARGER}`));
  assert.equal(detail.chargeState.chargingState, 'FAULT');
});

test('a transaction started and stopped by commands: RemoteStartTransaction, then the vehicle\'s CHARGING_STOP as RemoteStopTransaction, each EXECUTED once confirmed', async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP-001'), vehicleAtCharger]);
  const sim = await connected(hub);
  await sim.plugIn();

  const start = hub.submit(CHARGER, 'CHARGING_START');
  const started = await hub.commandDone(start.id);
  assert.equal(started.state, 'EXECUTED', started.failedReason ?? '');
  assert.deepEqual(sim.received.find((r) => r.action === 'RemoteStartTransaction')?.payload, { connectorId: 1, idTag: HUB_ID_TAG });
  const running = hub.daemon.db.ocpp.running('ZAP-001');
  assert.equal(running.length, 1);
  assert.equal(running[0]!.idTag, HUB_ID_TAG);

  const res = await hub.api(`/vehicles/${VEHICLE}/commands/charging-stop`, { method: 'POST' });
  assert.equal(res.status, 200);
  const stop = await hub.commandDone((await json(res)).id);
  assert.equal(stop.state, 'EXECUTED', stop.failedReason ?? '');
  assert.deepEqual(sim.received.find((r) => r.action === 'RemoteStopTransaction')?.payload, { transactionId: running[0]!.id });
  const stored = hub.daemon.db.ocpp.transaction(running[0]!.id)!;
  assert.equal(stored.stopReason, 'Remote');
  assert.equal(stored.meterStopWh, stored.meterStartWh + 1234);
  assert.equal(hub.daemon.db.ocpp.running('ZAP-001').length, 0);
  await stateIs(hub, (s) => s['chargingState'] === 'STOPPED');
});

test('a charger that refuses: Rejected and NotImplemented answers fail the command with the charger\'s words', async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP-001', { freeCharging: true })]);
  const sim = await connected(hub, { answers: { RemoteStopTransaction: 'Rejected' }, notImplemented: ['SetChargingProfile'] });
  await sim.startTransaction('card-1');
  const stop = await hub.commandDone(hub.submit(CHARGER, 'CHARGING_STOP').id);
  assert.equal(stop.state, 'FAILED');
  assert.equal(stop.failedReason, 'The charger answered RemoteStopTransaction with Rejected.');
  const limit = await hub.commandDone(hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 10 }).id);
  assert.equal(limit.state, 'FAILED');
  assert.match(limit.failedReason!, /^The charger answered SetChargingProfile with NotImplemented/);
  assert.equal(hub.daemon.db.ocpp.running('ZAP-001').length, 1, 'the transaction still runs');
});

test('SET_CHARGING_CURRENT: a TxProfile in A for the running transaction, confirmed by the composite schedule, else by the offered current', async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP-001', { freeCharging: true })]);
  const sim = await connected(hub, { maxCurrentA: 32 });
  await sim.startTransaction('card-1');
  const done = await hub.commandDone(hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 10 }).id);
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
  const profile = sim.received.find((r) => r.action === 'SetChargingProfile')!.payload as { csChargingProfiles: Record<string, unknown> };
  assert.equal(profile.csChargingProfiles['chargingProfilePurpose'], 'TxProfile');
  assert.equal(profile.csChargingProfiles['transactionId'], sim.transactionId);
  assert.deepEqual(profile.csChargingProfiles['chargingSchedule'], { chargingRateUnit: 'A', chargingSchedulePeriod: [{ startPeriod: 0, limit: 10 }] });
  assert.equal(hub.daemon.db.devices.get(CHARGER)!.state!['chargeCurrentMax'], 10);
  assert.equal((await hub.commandDone(hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 50 }).id)).failedReason,
    'SET_CHARGING_CURRENT: current 50 is outside what the charger accepts (6 to 32 A).');
});

test('a charger without GetCompositeSchedule confirms a limit by the offered current it reports next', async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP-001', { freeCharging: true })]);
  const sim = await connected(hub, { maxCurrentA: 32, notImplemented: ['GetCompositeSchedule'] });
  await sim.startTransaction('card-1');
  const done = await hub.commandDone(hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 12 }).id);
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
  assert.ok(sim.received.some((r) => r.action === 'TriggerMessage' && r.payload['requestedMessage'] === 'MeterValues'));
});

test('refresh reads the live charger through TriggerMessage; a charger that is not connected is 503', async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP-001')]);
  assert.equal((await hub.api(`/chargers/${CHARGER}/refresh`)).status, 503);
  const sim = await connected(hub);
  sim.status = 'Preparing'; // changed without telling: only a live read shows it
  const res = await hub.api(`/chargers/${CHARGER}/refresh`);
  assert.equal(res.status, 200);
  const body = await json(res);
  assert.equal(body.chargeState.chargingState, 'PREPARING');
  assert.deepEqual(sim.received.filter((r) => r.action === 'TriggerMessage').map((r) => r.payload['requestedMessage']), ['StatusNotification', 'MeterValues']);
  await sim.close();
  await hub.online(CHARGER, false);
  const gone = await hub.api(`/chargers/${CHARGER}/refresh`);
  assert.equal(gone.status, 503);
  assert.equal((await json(gone)).errorCode, 'DEVICE_IS_DISCONNECTED');
});

test('idTags: the hub accepts those it knows (and its own), refuses others; free charging accepts any; DataTransfer is answered', async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP-001', { idTags: ['family-card'] })]);
  const sim = await connected(hub);
  assert.deepEqual(await sim.client.call('Authorize', { idTag: 'family-card' }), { idTagInfo: { status: 'Accepted' } });
  assert.deepEqual(await sim.client.call('Authorize', { idTag: 'strangers-card' }), { idTagInfo: { status: 'Invalid' } });
  assert.deepEqual(await sim.client.call('Authorize', { idTag: HUB_ID_TAG }), { idTagInfo: { status: 'Accepted' } });
  assert.deepEqual(await sim.client.call('DataTransfer', { vendorId: 'com.zaptec', messageId: 'x', data: '{}' }), { status: 'UnknownVendorId' });
  // A transaction with an unknown card is recorded, answered Invalid, and the charger ends it.
  await sim.startTransaction('strangers-card');
  assert.equal(hub.daemon.db.ocpp.running('ZAP-001').length, 0);
  assert.equal(sim.transactionId, undefined);
});

test('a charger that drops mid-transaction shows offline, its command waits; back with its queued StopTransaction, which is taken exactly once', async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP-001', { freeCharging: true })]);
  const sim = await connected(hub);
  await sim.startTransaction('card-1');
  const [transaction] = hub.daemon.db.ocpp.running('ZAP-001');
  assert.ok(transaction);

  sim.drop();
  await hub.online(CHARGER, false);
  const limit = hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 8 });
  // The car is unplugged while the charger is offline: its StopTransaction waits in its queue.
  await sim.stopTransaction('EVDisconnected');
  assert.equal(sim.queue.length, 1);
  assert.equal(hub.daemon.db.commands.get(limit.id)!.state, 'PENDING', 'a command for an unreachable charger waits');

  await sim.reconnect();
  await hub.online(CHARGER, true);
  assert.equal(sim.queue.length, 0);
  const stopped = hub.daemon.db.ocpp.transaction(transaction.id)!;
  assert.equal(stopped.stopReason, 'EVDisconnected');
  // The same StopTransaction again (its answer lost): acknowledged, and nothing changes.
  const again = await sim.client.call('StopTransaction', { transactionId: transaction.id, meterStop: stopped.meterStopWh! + 999, timestamp: new Date().toISOString(), reason: 'Local' });
  assert.deepEqual(again, {});
  assert.deepEqual(hub.daemon.db.ocpp.transaction(transaction.id), stopped);
  // The waiting limit is carried out now that the charger is back.
  const done = await hub.commandDone(limit.id);
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
  // With no transaction running, a limit is the charger's default for the next one.
  const next = await hub.commandDone(hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 9 }).id);
  assert.equal(next.state, 'EXECUTED', next.failedReason ?? '');
  const profiles = sim.received.filter((r) => r.action === 'SetChargingProfile').map((r) => (r.payload as { connectorId: number; csChargingProfiles: Record<string, unknown> }));
  assert.equal(profiles.at(-1)!.connectorId, 0);
  assert.equal(profiles.at(-1)!.csChargingProfiles['chargingProfilePurpose'], 'TxDefaultProfile');
});

test('a StartTransaction sent again gets the same transaction id', async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP-001', { freeCharging: true })]);
  const sim = await connected(hub);
  const start = { connectorId: 1, idTag: 'card-1', meterStart: 500, timestamp: '2026-11-24T18:00:00Z' };
  const first = await sim.client.call('StartTransaction', start) as { transactionId: number };
  const second = await sim.client.call('StartTransaction', start) as { transactionId: number };
  assert.equal(second.transactionId, first.transactionId);
  assert.equal(hub.daemon.db.ocpp.running('ZAP-001').length, 1);
});

test('20 chargers connected at once each show their own state', async (t) => {
  const ids = Array.from({ length: 20 }, (_, i) => `0c000000-0000-4000-8000-0000000010${String(i).padStart(2, '0')}`);
  const hub = await startOcppHub(t, ids.map((id, i) => ocppCharger(id, `CP-${i}`)));
  const sims = ids.map((_, i) => hub.sim(`CP-${i}`));
  await Promise.all(sims.map((s) => s.connect()));
  await Promise.all(ids.map((id) => hub.online(id, true)));
  await Promise.all(sims.map((s, i) => (i % 2 === 0 ? s.plugIn() : Promise.resolve())));
  hub.daemon.ocpp!.writer.flush();
  for (const [i, id] of ids.entries()) {
    const device = hub.daemon.db.devices.get(id)!;
    assert.equal(device.isOnline, true);
    assert.equal(device.state!['chargingState'], i % 2 === 0 ? 'PREPARING' : 'UNPLUGGED', `charger ${i}`);
  }
});

test('after a restart a charger is offline until it connects to this hub, and a status outside CHARGING ends the power the store remembers', async (t) => {
  // What the store holds after a crash in the middle of a charge: online, charging at 7.4 kW on 2 phases.
  const remembered = { ...ocppCharger(CHARGER, 'ZAP-001'), isOnline: true,
    chargeState: { chargingState: 'CHARGING', isPlugged: true, chargeRate: 7.4, activePhases: 2, chargeCurrentMax: 16 } };
  const hub = await startOcppHub(t, [remembered]);
  const atStart = await json(await hub.api(`/chargers/${CHARGER}`));
  assert.equal(atStart.isOnline, false, 'the first answer after start already knows the charger has not connected');

  // The car finished while the hub was away: the charger comes back with Finishing.
  const sim = hub.sim('ZAP-001');
  sim.status = 'Finishing';
  await sim.connect();
  await hub.online(CHARGER, true);
  const stopped = await stateIs(hub, (s) => s['chargingState'] === 'STOPPED');
  assert.equal(stopped['chargeRate'], 0, 'docs/drivers-ocpp.md: outside CHARGING the power reads 0');
  assert.equal(stopped['activePhases'], 0);
  await sim.sendStatus('Available');
  const unplugged = await stateIs(hub, (s) => s['chargingState'] === 'UNPLUGGED');
  assert.equal(unplugged['chargeRate'], 0);
});

test('stopping the hub while a command waits for a charger that is not connected ends the wait at once; the command stays PENDING and runs after the next start', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-ocpp-stop-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  let heard: (() => void) | undefined;
  const waiting = new Promise<void>((resolve) => { heard = resolve; });
  const sink = new Writable({ write(chunk, _enc, done) {
    if (String(chunk).includes('command waits for it')) heard?.();
    done();
  } });
  const first = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP-001')], { dataDir, log: createLogger('info', sink) });
  const command = first.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 10 });
  await waiting; // the worker has taken the command and waits for the charger to connect
  const started = performance.now();
  await first.stop();
  const stopMs = performance.now() - started;
  // The worker gave a command being sent 5 s (stopGraceMs) to be confirmed; one that waits for an
  // unreachable device has sent nothing, so there is nothing to wait for.
  assert.ok(stopMs < 2500, `stopped in ${Math.round(stopMs)} ms`);
  const store = Store.open(join(dataDir, 'hub.db'));
  const stored = store.commands.get(command.id)!;
  store.close();
  assert.equal(stored.state, 'PENDING', stored.failedReason ?? '');
  assert.equal(stored.startedAtMs, null);

  const second = await startOcppHub(t, [], { dataDir });
  const sim = second.sim('ZAP-001');
  await sim.connect();
  const done = await second.commandDone(command.id);
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
});
