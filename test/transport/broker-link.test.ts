// The household broker connection: TLS with a client certificate, username and password, the
// fall-back to MQTT 3.1.1, and a broker that is down at start (the hub keeps trying in the background).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createTlsServer } from 'node:tls';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrokerLink } from '../../src/transport/broker-link.ts';
import { connectMqtt } from '../../src/transport/mqtt-connection.ts';
import { createLogger, silentLogger } from '../../src/log.ts';
import { freePort, startBroker } from '../support/broker.ts';
import { makeCertificates } from '../support/tls.ts';
import { skipWithout } from '../support/peers.ts';

const needsMosquitto = { skip: skipWithout('mosquitto') };

test('TLS with a client certificate: connects; without the certificate it keeps failing, and says so', needsMosquitto, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-link-tls-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const certs = makeCertificates(dir);
  const broker = await startBroker({ tls: certs, requireClientCertificate: true });
  t.after(() => broker.stop());
  const url = `mqtts://127.0.0.1:${broker.port}`;

  const good = new BrokerLink({ url, caFile: certs.caFile, certFile: certs.clientCertFile, keyFile: certs.clientKeyFile }, silentLogger());
  t.after(() => good.stop());
  good.start();
  const client = await good.whenConnected(AbortSignal.timeout(10_000));
  assert.equal(client.options.protocolVersion, 5);

  const bad = new BrokerLink({ url, caFile: certs.caFile }, silentLogger(), { initialMs: 50, maxMs: 100 });
  t.after(() => bad.stop());
  const failed = once(bad, 'connectFailed');
  bad.start();
  await failed;
  assert.equal(bad.connected, false);
});

test('username and password: the right ones connect, wrong ones are refused', needsMosquitto, async (t) => {
  const broker = await startBroker({ users: { hub: 's3cret-pass' } });
  t.after(() => broker.stop());
  const good = new BrokerLink({ url: broker.url, username: 'hub', password: 's3cret-pass' }, silentLogger());
  t.after(() => good.stop());
  good.start();
  await good.whenConnected(AbortSignal.timeout(10_000));

  const bad = new BrokerLink({ url: broker.url, username: 'hub', password: 'wrong' }, silentLogger(), { initialMs: 50, maxMs: 100 });
  t.after(() => bad.stop());
  const failed = once(bad, 'connectFailed');
  bad.start();
  const [err] = (await failed) as [Error];
  assert.match(err.message, /Not authorized|Bad username or password|refused/i);
  assert.doesNotMatch(err.message, /s3cret|wrong/, 'no password in the error');
});

test('a broker that speaks only MQTT 3.1.1 gets 3.1.1', async (t) => {
  const { Aedes } = await import('aedes');
  const aedes = await Aedes.createBroker();
  const server = createServer((socket) => aedes.handle(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const link = new BrokerLink({ url: `mqtt://127.0.0.1:${(server.address() as { port: number }).port}` }, silentLogger());
  // After-hooks run in the order they were added: the client first, then the broker, then its socket.
  t.after(() => link.stop());
  t.after(() => aedes.close());
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  link.start();
  const client = await link.whenConnected(AbortSignal.timeout(10_000));
  assert.equal(client.options.protocolVersion, 4);
});

test('a broker that is down at start: the link keeps trying in the background and connects when it is up', needsMosquitto, async (t) => {
  const port = await freePort();
  const link = new BrokerLink({ url: `mqtt://127.0.0.1:${port}` }, silentLogger(), { initialMs: 50, maxMs: 200 });
  t.after(() => link.stop());
  const failed = once(link, 'connectFailed');
  link.start();
  await failed;
  assert.equal(link.connected, false);
  const broker = await startBroker({ port });
  t.after(() => broker.stop());
  await link.whenConnected(AbortSignal.timeout(10_000));
});

test('a broker that offers only TLS 1.2 is refused when TLS 1.3 is required (BMW CarData\'s stream), as a TLS refusal and no MQTT fallback; taken otherwise', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-tls12-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const certs = makeCertificates(dir);
  // A TLS server that stops at 1.2: the handshake is what is tested, so it answers no MQTT; a
  // client that gets through the handshake sends its CONNECT, which tells the test it got through.
  const connects: string[] = [];
  const server = createTlsServer({ cert: readFileSync(certs.serverCertFile), key: readFileSync(certs.serverKeyFile), maxVersion: 'TLSv1.2' }, (socket) => {
    connects.push(socket.getProtocol() ?? '?');
    socket.destroy();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => server.close());
  const url = `mqtts://localhost:${(server.address() as { port: number }).port}`;
  const ca = readFileSync(certs.caFile, 'utf8');
  const said: string[] = [];
  const log = createLogger('info', { write: (line: string) => void said.push(String(JSON.parse(line).msg)) });
  await assert.rejects(connectMqtt({ url, ca, reconnect: false, minTlsVersion: 'TLSv1.3' }, log),
    /cannot connect to MQTT broker mqtts:\/\/localhost:\d+\/?: the TLS handshake failed \(tlsv1 alert protocol version\)$/);
  assert.deepEqual(connects, [], 'no TLS session was made');
  assert.deepEqual(said.filter((line) => /3\.1\.1|MQTT 5/.test(line)), [], 'no word of an MQTT protocol fallback: no MQTT was spoken');
  await assert.rejects(connectMqtt({ url, ca, reconnect: false, protocolVersion: 4 }, silentLogger()), /cannot connect/);
  assert.deepEqual(connects, ['TLSv1.2'], 'without the requirement the handshake succeeds (and the server hangs up)');
});
