// Pairing a real (simulated) go-e charger end to end: the partner asks for a session, the user gives
// the serial on the hub's page, the hub listens on the broker for that charger, adds it for the
// user, drives it, and sends the browser back with the outcome.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GoESim } from '../../src/sim/mqtt/go-e-sim.ts';
import { startMqttHub } from '../support/mqtt-hub.ts';
import { startBroker } from '../support/broker.ts';
import { skipWithout } from '../support/peers.ts';

async function session(hub: Awaited<ReturnType<typeof startMqttHub>>, userId: string): Promise<string> {
  const res = await hub.api('/connections/chargers?language=GERMAN&theme=DARK', {
    method: 'POST', json: { redirectUrl: 'https://partner.example/done?x=1', vendor: 'GO_E', userId },
  });
  assert.equal(res.status, 201);
  return ((await res.json()) as { url: string }).url.replace(/^https?:\/\/[^/]+/, hub.daemon.url);
}

const submit = (url: string, fields: Record<string, string>) => fetch(url, {
  method: 'POST', redirect: 'manual',
  headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(),
});

// On mosquitto: on aedes, the in-process stand-in when mosquitto is missing, this whole run does not
// complete (not investigated further); pairing over aedes is the MQTT 3.1.1 test below.
test('a go-e charger is probed over the broker, added for the user, driven, and the browser goes back', { skip: skipWithout('mosquitto') }, async (t) => {
  // The broker runs on the gateway (loopback for the hub); the household knows the gateway as hub.home.example.
  const hub = await startMqttHub(t, { mqttSettings: { probeTimeoutMs: 1500 }, config: { http: { port: 0, publicUrl: 'http://hub.home.example:8080' } } });
  const sim = new GoESim(hub.broker.url, '246810');
  t.after(() => sim.stop());
  await sim.start();

  const vendors = (await (await hub.api('/connections/available-vendors')).json()) as { chargers: { id: string }[] };
  // With a public address chargers can reach, the OCPP makers are offered too.
  assert.deepEqual(vendors.chargers.map((v) => v.id), ['EASEE', 'GO_E', 'ZAPTEC']);

  const url = await session(hub, 'household-7');
  const page = await fetch(url);
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /lang="de"/);
  assert.match(html, /name="serial"/);
  assert.match(html, new RegExp(`mqtt://hub\\.home\\.example:${hub.broker.port}`), 'the page names the broker as the charger reaches it');
  assert.doesNotMatch(html, /127\.0\.0\.1/, 'never a loopback address: on the charger that is the charger');

  // A serial nobody publishes: nothing is heard, the form comes back, nothing is added.
  const wrong = await submit(url, { action: 'pair', serial: '999999' });
  assert.equal(wrong.status, 422);
  assert.match(await wrong.text(), /Die Ladestation hat nicht geantwortet/);
  assert.equal(hub.daemon.db.devices.all().length, 0);

  const connected = hub.event((e) => e.type === 'connect' && e.device.kind === 'charger');
  const paired = await submit(url, { action: 'pair', serial: '246810' });
  assert.equal(paired.status, 303);
  const location = new URL(paired.headers.get('location')!);
  assert.equal(location.origin + location.pathname, 'https://partner.example/done');
  assert.equal(location.searchParams.get('x'), '1');
  assert.equal(location.searchParams.get('status'), 'SUCCESS');
  const chargerId = location.searchParams.get('chargerId')!;
  const event = await connected;
  assert.equal(event.type !== 'command' && event.device.id, chargerId);

  const charger = hub.device(chargerId)!;
  assert.equal(charger.userId, 'household-7');
  assert.equal(charger.vendor, 'GO_E');
  assert.deepEqual(charger.driver, { type: 'go-e', serial: '246810' });
  assert.equal(charger.model, 'go-eCharger');
  assert.equal(charger.name, 'Garage');
  assert.equal(charger.state?.['chargeCurrentMax'], 16);

  // From now on the hub drives it: plugging in shows up through the API.
  const charging = hub.event((e) => e.type === 'update' && e.device.id === chargerId && e.device.state?.['chargingState'] === 'CHARGING');
  await sim.plugIn();
  await charging;
  const detail = (await (await hub.api(`/chargers/${chargerId}`)).json()) as { chargeState: { chargingState: string } };
  assert.equal(detail.chargeState.chargingState, 'CHARGING');

  // The link is single-use.
  assert.equal((await fetch(url)).status, 410);

  // The same charger from another household's link is refused; its own household gets the same device.
  const other = await submit(await session(hub, 'household-8'), { action: 'pair', serial: '246810' });
  assert.equal(other.status, 422);
  assert.match(await other.text(), /bereits mit dem Konto eines anderen Benutzers verbunden/, 'the page says the charger is taken, not that it refused');
  // The driver's default prefix written out reaches the same charger (issue 34): refused alike.
  const spelledOut = await submit(await session(hub, 'household-8'), { action: 'pair', serial: '246810', topicPrefix: 'go-eCharger' });
  assert.equal(spelledOut.status, 422);
  assert.match(await spelledOut.text(), /bereits mit dem Konto eines anderen Benutzers verbunden/);
  const again = await submit(await session(hub, 'household-7'), { action: 'pair', serial: '246810' });
  assert.equal(again.status, 303);
  assert.equal(new URL(again.headers.get('location')!).searchParams.get('chargerId'), chargerId);
  assert.equal(hub.daemon.db.devices.all().length, 1);
});

// The demo's embedded broker (aedes) and mosquitto spoken to in MQTT 3.1.1: the probe subscribes to
// a go-e's topics, one of which both carries state and confirms a command. Named twice in one
// SUBSCRIBE, aedes granted one code for two filters, mqtt.js called that a protocol error and
// dropped the broker link, and the page said the charger did not answer.
for (const engine of ['aedes', 'mosquitto'] as const) {
  test(`pairing over MQTT 3.1.1 (${engine}) adds the charger and keeps the broker link`, { skip: engine === 'mosquitto' && skipWithout('mosquitto') }, async (t) => {
    const broker = await startBroker(engine === 'aedes' ? { engine } : {});
    t.after(() => broker.stop());
    const hub = await startMqttHub(t, { broker, config: { mqtt: { url: broker.url, protocolVersion: 4 } }, mqttSettings: { probeTimeoutMs: 3000 } });
    const sim = new GoESim(broker.url, '135790');
    t.after(() => sim.stop());
    await sim.start();
    let dropped = 0;
    hub.daemon.broker!.client!.on('close', () => dropped++);
    const paired = await submit(await session(hub, 'household-3'), { action: 'pair', serial: '135790' });
    assert.equal(paired.status, 303, await paired.text());
    assert.equal(new URL(paired.headers.get('location')!).searchParams.get('status'), 'SUCCESS');
    assert.equal(dropped, 0, 'the broker link stayed up');
    assert.equal(hub.daemon.broker!.connected, true);
  });
}

test('with the hub\'s broker down, the page says the hub cannot listen, not that the charger is silent', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const hub = await startMqttHub(t, { broker, mqttSettings: { probeTimeoutMs: 500 } });
  const url = await session(hub, 'household-4');
  const closed = new Promise<void>((resolve) => hub.daemon.broker!.client!.once('close', () => resolve()));
  await broker.stop();
  await closed;
  const res = await submit(url, { action: 'pair', serial: '135790' });
  assert.equal(res.status, 422);
  assert.match(await res.text(), /Sein MQTT-Broker ist gerade nicht erreichbar/);
});

test('a broker on loopback with no known gateway address: the page names no broker rather than 127.0.0.1', async (t) => {
  const hub = await startMqttHub(t);
  const page = await (await fetch(await session(hub, 'household-5'))).text();
  assert.match(page, /MQTT-API/);
  assert.doesNotMatch(page, /127\.0\.0\.1|localhost/);
});

test('mqtt.deviceUrl is what the page names', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const hub = await startMqttHub(t, { broker, config: { mqtt: { url: broker.url, protocolVersion: broker.supportsMqtt5 ? 5 : 4, deviceUrl: 'mqtts://broker.home.example:8883' } } });
  const page = await (await fetch(await session(hub, 'household-6'))).text();
  assert.match(page, /mqtts:\/\/broker\.home\.example:8883/);
});
