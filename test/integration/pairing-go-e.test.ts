// Pairing a real (simulated) go-e charger end to end: the partner asks for a session, the user gives
// the serial on the hub's page, the hub listens on the broker for that charger, adds it for the
// user, drives it, and sends the browser back with the outcome.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GoESim } from '../../src/sim/mqtt/go-e-sim.ts';
import { startMqttHub } from '../support/mqtt-hub.ts';

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

test('a go-e charger is probed over the broker, added for the user, driven, and the browser goes back', async (t) => {
  const hub = await startMqttHub(t, { mqttSettings: { probeTimeoutMs: 1500 } });
  const sim = new GoESim(hub.broker.url, '246810');
  t.after(() => sim.stop());
  await sim.start();

  const vendors = (await (await hub.api('/connections/available-vendors')).json()) as { chargers: { id: string }[] };
  assert.deepEqual(vendors.chargers.map((v) => v.id), ['GO_E']);

  const url = await session(hub, 'household-7');
  const page = await fetch(url);
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /lang="de"/);
  assert.match(html, /name="serial"/);
  assert.match(html, new RegExp(hub.broker.url.replace(/[/.]/g, '\\$&')), 'the page names the broker to point the charger at');

  // A serial nobody publishes: nothing is heard, the form comes back, nothing is added.
  const wrong = await submit(url, { action: 'pair', serial: '999999' });
  assert.equal(wrong.status, 422);
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
  const again = await submit(await session(hub, 'household-7'), { action: 'pair', serial: '246810' });
  assert.equal(again.status, 303);
  assert.equal(new URL(again.headers.get('location')!).searchParams.get('chargerId'), chargerId);
  assert.equal(hub.daemon.db.devices.all().length, 1);
});
