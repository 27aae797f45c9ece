// The cloud family in a whole hub: built from its entry in DRIVER_FAMILIES with the configuration's
// endpoints (cloud.bmwCardata, its caFile), a BMW car imported with its login read through the
// stream and shown by the API, and BMW not offered in available-vendors while no page connects it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { CardataAuthSim, cardataMessage } from '../../../src/sim/cloud/cardata-auth-sim.ts';
import { startBroker } from '../../support/broker.ts';
import { startMqttHub } from '../../support/mqtt-hub.ts';
import { makeCertificates } from '../../support/tls.ts';
import { skippedWithout } from '../../support/peers.ts';

const GCID = 'gcid-family-1';
const VIN = 'WBY11HH0000000002';
const CAR = '0b5c4a2e-6a43-4b8e-9d43-9b2f6f4c1a03';

test('a BMW car in a whole hub: configured endpoints and CA, its stream read into GET /vehicles/{id}; BMW, MINI and VOLVO the connectable vehicle vendors; a refresh reads the stream\'s latest; a refused login named under /health warnings and refreshes answered 503', async (t) => {
  if (skippedWithout(t, 'mosquitto')) return;
  const certs = makeCertificates(mkdtempSync(join(tmpdir(), 'hub-cloud-')));
  // Tokens of 601 s, renewed 10 min before they run out: a renewal every second.
  const sim = new CardataAuthSim({ clientId: 'client-1', gcid: GCID, idTokens: ['id-token-1'], expiresInSeconds: 601 });
  await sim.start({ tls: { cert: readFileSync(certs.serverCertFile), key: readFileSync(certs.serverKeyFile) } });
  t.after(() => sim.stop());
  const bmwBroker = await startBroker({ tls: certs, users: { [GCID]: 'id-token-1', bystander: 'other' } });
  t.after(() => bmwBroker.stop());
  const hub = await startMqttHub(t, {
    config: { cloud: { bmwCardata: { authUrl: `https://localhost:${sim.port}`, apiUrl: `https://localhost:${sim.port}`, streamUrl: `mqtts://localhost:${bmwBroker.port}`, caFile: certs.caFile } } },
    records: [{
      kind: 'vehicle', id: CAR, userId: 'household-1', isOnline: false, staticData: { vendor: 'BMW', name: 'iX1' },
      driver: { type: 'bmw-cardata', clientId: 'client-1', vin: VIN, gcid: GCID, refreshToken: sim.validRefreshToken },
    }],
  });
  const read = hub.event((e) => e.type === 'update' && e.device.id === CAR && e.device.state?.['stateOfCharge'] === 81);
  // Retained, so that the hub hears it whenever its session subscribes.
  const car = await mqtt.connectAsync(`mqtts://localhost:${bmwBroker.port}`, { username: 'bystander', password: 'other', ca: readFileSync(certs.caFile), protocolVersion: 5 });
  t.after(() => car.endAsync(true));
  await car.publishAsync(`${GCID}/${VIN}`, cardataMessage(GCID, VIN, { 'vehicle.drivetrain.batteryManagement.header': '81' }), { qos: 1, retain: true });
  await read;
  const body = (await (await hub.api(`/vehicles/${CAR}`)).json()) as Record<string, any>;
  assert.equal(body.chargeState.stateOfCharge, 81);
  assert.equal(body.staticData.vendor, 'BMW');
  assert.doesNotMatch(JSON.stringify(body), /refresh-/);
  const refreshed = await hub.api(`/vehicles/${CAR}/refresh`);
  assert.equal(refreshed.status, 200);
  assert.equal(((await refreshed.json()) as Record<string, any>).chargeState.stateOfCharge, 81);
  const vendors = (await (await hub.api('/connections/available-vendors')).json()) as { vehicles: { id: string }[] };
  // The makers the connect page logs in to; Mercedes has no way open to private owners.
  assert.deepEqual(vendors.vehicles.map((v) => v.id), ['BMW', 'MINI', 'VOLVO']);

  // The owner unsubscribes the client id: at the next renewal BMW refuses, and /health says which car needs a new login.
  const offline = hub.event((e) => e.type === 'offline' && e.device.id === CAR);
  sim.revoked = true;
  await offline;
  const health = (await (await fetch(`${hub.daemon.url}/health`)).json()) as { status?: string; warnings?: string[] };
  assert.deepEqual(health.warnings, [`vehicle ${CAR}: BMW refused the login (invalid_grant: refresh token invalid or expired); connect the car again`]);
  // The household page says the same beside the car.
  assert.match(hub.daemon.runtime.offlineReason?.(hub.daemon.db.devices.get(CAR)!) ?? '', /^BMW refused the login .*; connect the car again$/);
  // A refresh now answers that the car cannot be reached (the API's DEVICE_IS_DISCONNECTED), not stale values.
  const unread = await hub.api(`/vehicles/${CAR}/refresh`);
  assert.equal(unread.status, 503);
  assert.match(await unread.text(), /DEVICE_IS_DISCONNECTED/);
});
