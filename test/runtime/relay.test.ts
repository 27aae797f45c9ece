// The cloud relay through a real broker (mosquitto, TLS with a client certificate): partner calls
// arrive as MQTT 5 requests and get the API's answers, keys and limits included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Daemon } from '../../src/daemon.ts';
import { ConfigSchema } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { seedDemo, DEMO_USER } from '../../src/demo/site.ts';
import { startBroker, type TestBroker } from '../support/broker.ts';
import { makeCertificates } from '../support/tls.ts';
import { ids } from '../support/hub.ts';
import { RelayClient, RELAY_KEY as KEY } from '../support/relay-hub.ts';
import { skipWithout } from '../support/peers.ts';

test('partner calls reach the API through the relay broker, and still need a key', { skip: skipWithout('mosquitto') }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-relay-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const certs = makeCertificates(dir);
  const broker: TestBroker = await startBroker({ tls: certs, requireClientCertificate: true });
  t.after(() => broker.stop());

  const daemon = new Daemon({
    config: ConfigSchema.parse({
      dataDir: join(dir, 'data'), http: { port: 0, bodyLimitBytes: 4096 }, apiKey: KEY,
      relay: { url: broker.url, hubId: 'hub-42', caFile: certs.caFile, certFile: certs.clientCertFile, keyFile: certs.clientKeyFile, requestTimeoutMs: 5000 },
    }),
    log: silentLogger(),
    beforeListen: (store) => seedDemo(store, Date.now()),
  });
  await daemon.start();
  t.after(() => daemon.stop());
  await daemon.relayLink!.ready;

  const relay = await RelayClient.connect(broker.url, 'hub-42', { ca: [require_(certs.caFile)], cert: require_(certs.clientCertFile), key: require_(certs.clientKeyFile) });
  t.after(() => relay.end());

  const ok = await relay.call({ method: 'GET', path: '/v1.0.0/batteries?size=1', headers: { 'x-api-key': KEY } });
  assert.equal(ok.status, 200);
  const page = JSON.parse(ok.body);
  assert.equal(page.totalElements, 2);
  assert.equal(page.content.length, 1);

  const noKey = await relay.call({ method: 'GET', path: '/v1.0.0/batteries' });
  assert.equal(noKey.status, 401);
  assert.equal(JSON.parse(noKey.body).errorCode, 'UNAUTHORIZED');

  const image = await relay.call({ method: 'GET', path: `/v1.0.0/users/${DEMO_USER}/vehicles/${ids.vehicle}/image.png`, headers: { 'x-api-key': KEY } });
  assert.equal(image.status, 200);
  assert.equal(image.bodyEncoding, 'base64');
  assert.equal(Buffer.from(image.body, 'base64').subarray(1, 4).toString(), 'PNG');
  assert.ok(image.headers['etag']);

  const tooBig = await relay.call({ method: 'POST', path: `/v1.0.0/hvacs/${ids.hvac}/commands/schedule`, headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ pad: 'x'.repeat(8000) }) });
  assert.equal(tooBig.status, 413);

  const outside = await relay.call({ method: 'GET', path: '/metrics', headers: { 'x-api-key': KEY } });
  assert.equal(outside.status, 404, 'only the /v1.0.0 API is relayed');
  const garbage = await relay.call(Buffer.from('{not json'));
  assert.equal(garbage.status, 400);

  // A redelivered request (same correlation data, same request) is answered again, not executed twice.
  const correlation = randomBytes(16);
  const stop = { method: 'POST', path: `/v1.0.0/vehicles/${ids.vehicle}/commands/charging-stop`, headers: { 'x-api-key': KEY } };
  const before = daemon.db.commands.ofDeviceId(ids.vehicle, 'ALL').length;
  const first = await relay.call(stop, { correlation });
  const again = await relay.call(stop, { correlation });
  assert.equal(first.status, 200);
  assert.deepEqual(again, first);
  assert.equal(daemon.db.commands.ofDeviceId(ids.vehicle, 'ALL').length, before + 1);

  // The relay forwards the key the partner presents, and its scope with it (decisions.md §6).
  const neighbour = daemon.db.apiKeys.create('neighbour-tablet', Date.now(), { userId: 'neighbour', readOnly: true }).key;
  const theirs = await relay.call({ method: 'GET', path: '/v1.0.0/batteries', headers: { 'x-api-key': neighbour } });
  assert.deepEqual([theirs.status, JSON.parse(theirs.body).totalElements], [200, 0], 'the demo household is not the neighbour\'s');
  const hidden = await relay.call({ method: 'GET', path: `/v1.0.0/batteries/${ids.battery}`, headers: { 'x-api-key': neighbour } });
  assert.equal(JSON.parse(hidden.body).errorCode, 'BATTERY_NOT_FOUND');
  const refused = await relay.call({ method: 'POST', path: `/v1.0.0/vehicles/${ids.vehicle}/commands/charging-stop`, headers: { 'x-api-key': neighbour } });
  assert.deepEqual([refused.status, JSON.parse(refused.body).errorCode], [403, 'FORBIDDEN']);
  assert.equal(daemon.db.commands.ofDeviceId(ids.vehicle, 'ALL').length, before + 1);
});

test('without a valid client certificate the relay is refused, and the hub still serves', { skip: skipWithout('mosquitto') }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-relay-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const certs = makeCertificates(dir);
  const broker = await startBroker({ tls: certs, requireClientCertificate: true });
  t.after(() => broker.stop());
  const daemon = new Daemon({
    config: ConfigSchema.parse({ dataDir: join(dir, 'data'), http: { port: 0 }, relay: { url: broker.url, hubId: 'hub-1', caFile: certs.caFile } }),
    log: silentLogger(),
  });
  await daemon.start();
  t.after(() => daemon.stop());
  const [err] = (await once(daemon.relayLink!.events, 'connectFailed')) as [Error];
  assert.match(err.message, /cannot connect to MQTT broker mqtts:\/\/localhost/);
  // The hub itself serves the house regardless.
  assert.deepEqual(await (await fetch(`${daemon.url}/health`)).json(), { status: 'up' });
});

function require_(file: string): Buffer {
  return readFileSync(file);
}
