// Makers' quirks from their own documentation (drivers/ocpp/): Zaptec's 24-hour heartbeat and
// missing Faulted status, its hex-decoded AuthorizationKey; Easee's smart-charging deviations and
// flash wear. A charger of another maker runs with the generic definition (ocpp-charger.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ocppCharger, startOcppHub, PASSWORD } from '../../support/ocpp-hub.ts';
import type { ChargePointSim } from '../../../src/sim/ocpp/charge-point-sim.ts';
import { generatePassword, hashPassword } from '../../../src/domain/ocpp-password.ts';

const CHARGER = '0c000000-0000-4000-8000-00000000c001';

/** Resolves once the charger has taken `count` configuration keys (waits on its ChangeConfiguration calls). */
function configured(sim: ChargePointSim, count: number): Promise<void> {
  return new Promise((resolve) => {
    sim.client.on('call', ({ outbound, payload }: { outbound: boolean; payload: unknown[] }) => {
      // The call event comes before the handler takes the key: look once it has.
      if (!outbound && payload[2] === 'ChangeConfiguration') setImmediate(() => sim.configuration.size >= count && resolve());
    });
  });
}

test('Zaptec: the hub shortens its 24-hour heartbeat and turns on meter values; an errorCode without Faulted is a fault', async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP000123')]);
  const sim = hub.sim('ZAP000123', { vendor: 'Zaptec', model: 'ZAPTEC GO', meter: 'zaptec' });
  const done = configured(sim, 2);
  await sim.connect();
  await done;
  assert.equal(sim.configuration.get('HeartbeatInterval'), '300');
  assert.equal(sim.configuration.get('MeterValueSampleInterval'), '30');
  await hub.online(CHARGER, true);
  // Its meter as Zaptec documents it: power in W, energy in kWh, currents per phase L1-N…, no Current.Offered.
  const charging = hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.state?.['chargeRate'] !== undefined && e.device.state['chargeRate'] !== 0);
  await sim.sendStatus('Charging');
  await sim.sendMeterValues('Sample.Periodic');
  const state = (await charging as { device: { state: Record<string, unknown> } }).device.state;
  assert.equal(state['chargeRate'], 10.83, '3 × 230 V × 15.7 A, in kW');
  assert.equal(state['activePhases'], 3);
  assert.equal(state['chargeCurrentMax'], undefined, 'Zaptec reports no offered current');
  const fault = hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.state?.['chargingState'] === 'FAULT');
  await sim.sendStatus('Charging', 'GroundFailure');
  await fault;
});

test('a charger that sends its password as the bytes of a hexadecimal AuthorizationKey (Zaptec\'s default) is let in', async (t) => {
  const password = generatePassword();
  const record = ocppCharger(CHARGER, 'ZAP000123');
  (record['driver'] as Record<string, unknown>)['password'] = password;
  const hub = await startOcppHub(t, [record]);
  const sim = hub.sim('ZAP000123', { vendor: 'Zaptec', password: Buffer.from(password, 'hex') });
  await sim.connect();
  await hub.online(CHARGER, true);
  // The bytes of another key are still refused.
  const wrong = hub.sim('ZAP000123', { password: Buffer.from(generatePassword(), 'hex') });
  await assert.rejects(wrong.client.connect(), (err: { code?: number }) => err.code === 401);
});

test('Easee: a limit goes as an Absolute TxDefaultProfile (no TxProfile, no Relative), and one already in force is not written again', async (t) => {
  const record = ocppCharger(CHARGER, 'EH123456', { freeCharging: true }, 'EASEE');
  const hub = await startOcppHub(t, [record]);
  const sim = hub.sim('EH123456', { vendor: 'Easee', model: 'Charge', maxCurrentA: 32, profiles: { purposes: ['TxDefaultProfile', 'ChargePointMaxProfile'], kinds: ['Absolute'] } });
  await sim.connect();
  await hub.online(CHARGER, true);
  await sim.startTransaction('card-1');
  const first = await hub.commandDone(hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 11 }).id);
  assert.equal(first.state, 'EXECUTED', first.failedReason ?? '');
  const written = sim.received.filter((r) => r.action === 'SetChargingProfile');
  assert.equal(written.length, 1);
  const profile = (written[0]!.payload as { connectorId: number; csChargingProfiles: Record<string, unknown> });
  assert.equal(profile.connectorId, 0);
  assert.equal(profile.csChargingProfiles['chargingProfilePurpose'], 'TxDefaultProfile');
  assert.equal(profile.csChargingProfiles['chargingProfileKind'], 'Absolute');
  assert.match(String((profile.csChargingProfiles['chargingSchedule'] as Record<string, unknown>)['startSchedule']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const again = await hub.commandDone(hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 11 }).id);
  assert.equal(again.state, 'EXECUTED', again.failedReason ?? '');
  assert.equal(sim.received.filter((r) => r.action === 'SetChargingProfile').length, 1, 'the same limit is not written to flash again');
});

test('the generic definition sends a TxProfile, which a charger like Easee refuses: the command fails with its answer', async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'CP-1', { passwordHash: hashPassword(PASSWORD), password: undefined, freeCharging: true })]);
  const sim = hub.sim('CP-1', { vendor: 'Somebody', profiles: { purposes: ['TxDefaultProfile'], kinds: ['Absolute'] } });
  await sim.connect();
  await hub.online(CHARGER, true);
  await sim.startTransaction('card-1');
  const done = await hub.commandDone(hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 11 }).id);
  assert.equal(done.failedReason, 'The charger answered SetChargingProfile with Rejected.');
});

test('Zaptec: the phases switch over OCPP through the API (charging-phases), read back from its schedule and its meter values', async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP000123', { freeCharging: true }, 'ZAPTEC')]);
  const sim = hub.sim('ZAP000123', { vendor: 'Zaptec', model: 'ZAPTEC GO', meter: 'zaptec', maxCurrentA: 32 });
  await sim.connect();
  await hub.online(CHARGER, true);
  await sim.startTransaction('card-1');
  const user = 'household-1';
  const post = (path: string, body: unknown) => hub.api(`/users/${user}/chargers/${CHARGER}/commands/${path}`, {
    method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' },
  });
  const answer = await post('charging-phases', { phases: 1 });
  assert.equal(answer.status, 200);
  const command = (await answer.json()) as { id: string; type: string; state: string };
  assert.deepEqual([command.type, command.state], ['SET_CHARGING_PHASES', 'PENDING']);
  const done = await hub.commandDone(command.id);
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
  const profile = sim.received.filter((r) => r.action === 'SetChargingProfile').at(-1)!.payload as { csChargingProfiles: { chargingSchedule: { chargingSchedulePeriod: Record<string, number>[] } } };
  assert.equal(profile.csChargingProfiles.chargingSchedule.chargingSchedulePeriod[0]!['numberPhases'], 1);
  assert.equal(sim.phases, 1);

  // Its next meter values carry current on one phase only, which the charger's detail shows.
  const onePhase = hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.state?.['activePhases'] === 1);
  await sim.sendStatus('Charging');
  await sim.sendMeterValues('Sample.Periodic');
  await onePhase;
  const detail = (await (await hub.api(`/users/${user}/chargers/${CHARGER}`)).json()) as { chargeState: Record<string, unknown> };
  assert.equal(detail.chargeState['activePhases'], 1);
  const listed = (await (await hub.api(`/users/${user}/chargers/${CHARGER}/commands?state=ALL`)).json()) as { type: string; state: string }[];
  assert.deepEqual(listed.map((c) => `${c.type} ${c.state}`), ['SET_CHARGING_PHASES EXECUTED']);

  // What the charger cannot take is refused at the door, and nothing is stored.
  const tooMany = await post('charging-phases', { phases: 4 });
  assert.equal(tooMany.status, 400);
  const tooHigh = await post('charging-current', { amps: 40 });
  assert.equal(tooHigh.status, 400);
  assert.deepEqual(((await tooHigh.json()) as { validationErrors: { field: string }[] }).validationErrors.map((e) => e.field), ['amps']);
  const after = (await (await hub.api(`/users/${user}/chargers/${CHARGER}/commands?state=ALL`)).json()) as unknown[];
  assert.equal(after.length, 1);
});
