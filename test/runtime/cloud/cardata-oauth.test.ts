// BMW CarData's device-code login and the mapping of its telematic keys, against the login simulator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CardataLoginRefused, CardataPending, pollDeviceCode, refreshTokens, startDeviceCode } from '../../../src/runtime/cloud/cardata-oauth.ts';
import { primaryVehicles } from '../../../src/runtime/cloud/cardata-rest.ts';
import { vehicleFields } from '../../../src/runtime/cloud/definition.ts';
import bmwCardata from '../../../drivers/cloud/bmw-cardata.ts';
import { cardataLoginService } from '../../support/cloud-sims.ts';

test('the device-code login: a code for the owner, pending until approved, then tokens with the GCID (PKCE checked by the sim)', async (t) => {
  const { sim, endpoints } = await cardataLoginService(t);
  const start = await startDeviceCode(endpoints, 'client-1', Date.now());
  assert.equal(start.userCode, 'ABCD-EFGH');
  assert.match(start.verificationUriComplete ?? '', /user_code=ABCD-EFGH/);
  await assert.rejects(pollDeviceCode(endpoints, 'client-1', start, Date.now()), CardataPending);
  sim.approved = true;
  const tokens = await pollDeviceCode(endpoints, 'client-1', start, Date.now());
  assert.equal(tokens.gcid, 'gcid-1');
  assert.equal(tokens.idToken, 'id-1');
  assert.equal(tokens.refreshToken, sim.validRefreshToken);
  // A verifier other than the one the challenge was made from is refused.
  const other = await startDeviceCode(endpoints, 'client-1', Date.now());
  await assert.rejects(pollDeviceCode(endpoints, 'client-1', { ...other, codeVerifier: 'x'.repeat(64) }, Date.now()), CardataLoginRefused);
});

test('the cars of the account: only those it is the primary user of, which are the ones CarData streams', async (t) => {
  const { sim, endpoints } = await cardataLoginService(t);
  sim.approved = true;
  const start = await startDeviceCode(endpoints, 'client-1', Date.now());
  const tokens = await pollDeviceCode(endpoints, 'client-1', start, Date.now());
  sim.vehicleMappings = [{ vin: 'WBY11CF080CH47012', mappingType: 'PRIMARY' }, { vin: 'WMW21GD020TZ00001', mappingType: 'SECONDARY' }, { vin: 'WMW11DJ060TY00002', mappingType: 'PRIMARY' }];
  assert.deepEqual(await primaryVehicles(endpoints, tokens.accessToken), ['WBY11CF080CH47012', 'WMW11DJ060TY00002']);
  assert.equal(sim.restCalls, 1);
  await assert.rejects(primaryVehicles(endpoints, 'not-a-token'), /BMW CarData refused the list of cars \(CU-101\)/);
});

test('a refresh token is good once: the rotated one works, the used one is refused', async (t) => {
  const { sim, endpoints } = await cardataLoginService(t);
  const first = sim.validRefreshToken;
  const next = await refreshTokens(endpoints, 'client-1', first, 'gcid-1', Date.now());
  assert.notEqual(next.refreshToken, first);
  await assert.rejects(refreshTokens(endpoints, 'client-1', first, 'gcid-1', Date.now()), /BMW refused the login \(invalid_grant/);
  await refreshTokens(endpoints, 'client-1', next.refreshToken, 'gcid-1', Date.now());
});

test('a login service whose certificate no trusted CA signed is refused before anything is sent', async (t) => {
  const { sim, endpoints } = await cardataLoginService(t);
  await assert.rejects(refreshTokens({ ...endpoints, ca: undefined }, 'client-1', sim.validRefreshToken, 'gcid-1', Date.now()), /certificate/i);
  assert.equal(sim.requests.length, 0);
});

test('telematic keys: string numbers, primary keys before fallbacks, the New Class plug boolean, words not listed are not available', () => {
  const fields = vehicleFields(bmwCardata, new Map<string, unknown>([
    ['vehicle.powertrain.electric.battery.stateOfCharge.displayed', '61'],
    ['vehicle.drivetrain.batteryManagement.header', '60'],
    ['vehicle.drivetrain.lastRemainingRange', '540'],
    ['vehicle.drivetrain.electricEngine.charging.status', 'NOCHARGING'],
    ['vehicle.drivetrain.electricEngine.charging.hvStatus', 'FINISHED_NOT_FULL'],
    ['vehicle.body.chargingPort.status', 'INVALID'],
    ['vehicle.powertrain.tractionBattery.charging.port.anyPosition.isPlugged', true],
  ]));
  assert.deepEqual(fields, { stateOfCharge: 60, rangeKm: 540, chargingState: 'FINISHED', isPlugged: true });
});
