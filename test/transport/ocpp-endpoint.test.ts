// The OCPP endpoint's handshake and framing, against charge point simulators built on ocpp-rpc's
// client in strict mode, over real WebSockets to a whole hub: subprotocol ocpp1.6 only, Basic auth
// (profile 1 over ws, profile 2 over wss), failures counted per address like bad API keys, one live
// connection per charge point, malformed frames and unknown actions answered with CALLERRORs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ocppCharger, startOcppHub } from '../support/ocpp-hub.ts';
import { makeCertificates } from '../support/tls.ts';
import { identityOf } from '../../src/transport/ocpp-endpoint.ts';

const CHARGER = '0c000000-0000-4000-8000-00000000c001';

/** The HTTP status a refused handshake got. */
async function refusedWith(connect: Promise<unknown>): Promise<number> {
  try {
    await connect;
  } catch (err) {
    return (err as { code?: number }).code ?? -1;
  }
  throw new Error('the handshake was accepted');
}

test('a charger with its id and password connects over ocpp1.6 and shows online; the wrong password or an unknown id is refused with 401', async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP-001')]);
  assert.equal(await refusedWith(hub.sim('ZAP-001', { password: 'not-the-right-password' }).client.connect()), 401);
  assert.equal(await refusedWith(hub.sim('ZAP-999').client.connect()), 401);
  assert.equal(await refusedWith(hub.sim('ZAP-001', { password: undefined }).client.connect()), 401);
  assert.equal(hub.daemon.db.devices.get(CHARGER)!.isOnline, false);

  const sim = hub.sim('ZAP-001');
  await sim.connect();
  assert.equal(sim.client.protocol, 'ocpp1.6');
  await hub.online(CHARGER, true);
  await sim.close();
  await hub.online(CHARGER, false);
});

test('a handshake without subprotocol ocpp1.6, or on another path, is refused', async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP-001')]);
  assert.equal(await refusedWith(hub.sim('ZAP-001', { protocols: ['ocpp2.0.1'] }).client.connect()), 400);
  const { RPCClient } = await import('ocpp-rpc');
  const elsewhere = new RPCClient({ endpoint: `${hub.daemon.url.replace('http', 'ws')}/v1.0.0`, identity: 'ZAP-001', password: 'x', protocols: ['ocpp1.6'], reconnect: false } as never);
  assert.equal(await refusedWith(elsewhere.connect()), 404);
  const badId = new RPCClient({ endpoint: hub.endpoint, identity: 'has a space', password: 'x', protocols: ['ocpp1.6'], reconnect: false } as never);
  assert.equal(await refusedWith(badId.connect()), 404);
  // The API on the same port is untouched.
  assert.equal((await hub.api('/chargers/' + CHARGER)).status, 200);
});

test('identityOf takes only /ocpp/{id} with an acceptable id, decoded', () => {
  assert.equal(identityOf('/ocpp/ZAP-001'), 'ZAP-001');
  assert.equal(identityOf('/ocpp/ZAP%2D001?x=1'), 'ZAP-001');
  assert.equal(identityOf('/v1.0.0/chargers'), null);
  assert.equal(identityOf('/ocpp/a/b'), undefined);
  assert.equal(identityOf('/ocpp/%E0%A4%A'), undefined); // a malformed escape is refused, not thrown
  assert.equal(identityOf('/ocpp/'), undefined);
  assert.equal(identityOf(`/ocpp/${'x'.repeat(49)}`), undefined);
});

test('wrong passwords count against the address like bad API keys: past the limit the handshake gets 429, and so does the API', async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP-001')], { config: { http: { port: 0, authFailuresPerMinute: 3 } } });
  for (let i = 0; i < 3; i++) assert.equal(await refusedWith(hub.sim('ZAP-001', { password: `wrong-password-${i}-xxxxxx` }).client.connect()), 401);
  assert.equal(await refusedWith(hub.sim('ZAP-001').client.connect()), 429, 'even the right password waits for the minute to pass');
  assert.equal((await hub.api('/chargers/' + CHARGER)).status, 429);
});

test('a second connection of the same charger replaces the first, which is closed; the charger stays online', async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP-001')]);
  const first = hub.sim('ZAP-001');
  await first.connect();
  await hub.online(CHARGER, true);
  const firstClosed = new Promise((resolve) => first.client.once('close', resolve));
  const second = hub.sim('ZAP-001');
  await second.connect();
  await firstClosed;
  assert.equal(hub.daemon.db.devices.get(CHARGER)!.isOnline, true);
  assert.equal(hub.daemon.ocpp!.isReachable(hub.daemon.db.devices.get(CHARGER)!), true);
  // The live one is the second: a status it sends is what the API shows.
  const updated = hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.state?.['chargingState'] === 'FAULT');
  await second.sendStatus('Faulted', 'GroundFailure');
  await updated;
});

test('malformed frames, off-schema payloads and unknown actions get CALLERRORs in OCPP-J 1.6 codes only; the connection stays up however many come', async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP-001')]);
  const sim = hub.sim('ZAP-001');
  await sim.connect();
  sim.client.on('badMessage', () => {}); // the CALLERROR for message id -1 matches no call of the simulator's
  const closed = new Promise((resolve) => sim.client.once('close', resolve));
  const answers: unknown[][] = [];
  sim.client.on('message', ({ message, outbound }: { message: string; outbound: boolean }) => {
    if (!outbound) answers.push(JSON.parse(message) as unknown[]);
  });
  /** Sends a raw frame and resolves with the CALLERROR code answered to message id `id`. */
  const answer = (id: string, frame: string) => new Promise<string>((resolve, reject) => {
    const late = setTimeout(() => reject(new Error(`no CALLERROR for ${frame}`)), 5000);
    const look = ({ message, outbound }: { message: string; outbound: boolean }) => {
      if (outbound) return;
      const parsed = JSON.parse(message) as unknown[];
      if (parsed[1] === id) {
        sim.client.off('message', look);
        clearTimeout(late);
        assert.equal(parsed[0], 4);
        resolve(parsed[2] as string);
      }
    };
    sim.client.on('message', look);
    sim.client.sendRaw(frame);
  });

  // OCPP-J 1.6 §4.2.3 names ten codes; ocpp-rpc's own are OCPP 2.0.1's (RpcFrameworkError,
  // MessageTypeNotSupported, OccurrenceConstraintViolation), which a 1.6 charger does not know.
  assert.equal(await answer('-1', 'this is not JSON'), 'FormationViolation');
  assert.equal(await answer('-1', '{"not": "an array"}'), 'ProtocolError');
  assert.equal(await answer('-1', '[2, 17, "Heartbeat", {}]'), 'ProtocolError', 'a message id that is not a string');
  assert.equal(await answer('-1', '[7, "type-7", "Heartbeat", {}]'), 'PropertyConstraintViolation'); // refused before its id is read
  assert.equal(await answer('unknown-1', JSON.stringify([2, 'unknown-1', 'OpenThePodBayDoors', {}])), 'NotImplemented');
  // Known actions whose payload breaks the official schema: the hub's strict validation refuses them.
  assert.equal(await answer('bad-status-1', JSON.stringify([2, 'bad-status-1', 'StatusNotification', { connectorId: 1, errorCode: 'NoError', status: 'Dancing' }])),
    'FormationViolation'); // OCPP 1.6J errata §5 spelling
  assert.equal(await answer('no-status-1', JSON.stringify([2, 'no-status-1', 'StatusNotification', { connectorId: 1, errorCode: 'NoError' }])),
    'OccurenceConstraintViolation'); // a required field missing, in 1.6's spelling
  assert.equal(await answer('type-1', JSON.stringify([2, 'type-1', 'StatusNotification', { connectorId: 'one', errorCode: 'NoError', status: 'Available' }])),
    'TypeConstraintViolation');

  // Thirty malformed frames in a row (ocpp-rpc closed after ten): each answered, the charger stays.
  for (let i = 0; i < 30; i++) assert.equal(await answer('-1', `garbage ${i}`), 'FormationViolation');
  const OCPP16 = ['NotImplemented', 'NotSupported', 'InternalError', 'ProtocolError', 'SecurityError', 'FormationViolation',
    'PropertyConstraintViolation', 'OccurenceConstraintViolation', 'TypeConstraintViolation', 'GenericError'];
  for (const frame of answers.filter((a) => a[0] === 4)) assert.ok(OCPP16.includes(frame[2] as string), `${String(frame[2])} is an OCPP 1.6 code`);

  // Still connected, and still understood.
  await sim.sendStatus('Preparing');
  assert.equal(sim.isOpen, true);
  assert.equal(hub.daemon.db.devices.get(CHARGER)!.isOnline, true);
  assert.equal(await Promise.race([closed.then(() => 'closed'), Promise.resolve('open')]), 'open');
});

test('security profile 2: the same Basic auth over TLS with the hub\'s certificate (wss)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-ocpp-tls-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const certs = makeCertificates(dir);
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP-001')], {
    config: { http: { port: 0, tls: { certFile: certs.serverCertFile, keyFile: certs.serverKeyFile } } },
  });
  assert.match(hub.endpoint, /^wss:\/\//);
  const ca = readFileSync(certs.caFile);
  assert.equal(await refusedWith(hub.sim('ZAP-001', { password: 'not-the-right-password', wsOpts: { ca } }).client.connect()), 401);
  const sim = hub.sim('ZAP-001', { wsOpts: { ca } });
  await sim.connect();
  await hub.online(CHARGER, true);
});

test('the hub stops promptly even when a charger no longer answers the closing handshake', async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP-001')]);
  const sim = hub.sim('ZAP-001');
  await sim.connect();
  await hub.online(CHARGER, true);
  // The charger's side stops reading: the hub's close frame is never answered.
  (sim.client as unknown as { _ws: { _socket: { pause(): void } } })._ws._socket.pause();
  const started = performance.now();
  await hub.daemon.stop(); // the hub alone: the simulator is closed only by the test's teardown
  assert.ok(performance.now() - started < 5000, `stopped in ${Math.round(performance.now() - started)} ms`);
});
