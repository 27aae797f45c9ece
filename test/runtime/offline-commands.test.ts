// A charger that falls silent: the hub logs once that it is shown offline, and a command for it says
// on itself, in the API, that it waits for the device (a hub addition marked in the OpenAPI), until
// the charger speaks again and the command runs. The hub's clock is moved on instead of waiting the
// go-e definition's 60 s of silence. And the demo's go-e simulator speaks every second, as go-e does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import mqtt from 'mqtt';
import { GoESim } from '../../src/sim/mqtt/go-e-sim.ts';
import { createLogger } from '../../src/log.ts';
import { drivenRecord, startMqttHub } from '../support/mqtt-hub.ts';
import { startBroker } from '../support/broker.ts';

const CHARGER = '6f1c2a4e-0000-4000-8000-00000000c0f1';
const VEHICLE = '6f1c2a4e-0000-4000-8000-00000000e0f1';

/** A logger whose lines are kept, with a wait for the first line that matches. */
function capturedLog() {
  const lines: Record<string, unknown>[] = [];
  const waiters: { match: (line: Record<string, unknown>) => boolean; resolve: () => void }[] = [];
  const log = createLogger('info', {
    write(text: string) {
      const line = JSON.parse(text) as Record<string, unknown>;
      lines.push(line);
      for (const waiter of waiters.filter((w) => w.match(line))) waiter.resolve();
    },
  });
  const next = (match: (line: Record<string, unknown>) => boolean, timeoutMs = 10_000) => new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no such log line')), timeoutMs);
    waiters.push({ match, resolve: () => { clearTimeout(timer); resolve(); } });
  });
  return { log, lines, next };
}

test('a silent charger is logged offline once; its command waits, says so on itself, and runs when the charger is back', async (t) => {
  let offsetMs = 0;
  const clock = { now: () => Date.now() + offsetMs };
  const { log, lines, next } = capturedLog();
  const broker = await startBroker();
  t.after(() => broker.stop());
  const hub = await startMqttHub(t, {
    broker, clock, log,
    records: [
      drivenRecord('charger', CHARGER, 'GO_E', { type: 'go-e', serial: '777777' }),
      // The README's Tesla: no bridge commands it, its charging stop goes to the charger it is bound to.
      drivenRecord('vehicle', VEHICLE, 'TESLA', { type: 'charger', chargerId: CHARGER }),
    ],
    // The silence check then runs every 1.25 s.
    config: { mqtt: { url: broker.url, protocolVersion: broker.supportsMqtt5 ? 5 : 4, staleAfterSeconds: 5 } },
  });
  // The captured firmware registers no last will: only silence tells that it went.
  const sim = new GoESim(hub.broker.url, '777777', 'go-eCharger', { firmware: 'captured', rbtIntervalMs: 0 });
  t.after(() => sim.stop());
  const online = hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.isOnline);
  await sim.start();
  await online;

  const offline = hub.event((e) => e.type === 'offline' && e.device.id === CHARGER);
  offsetMs = 61_000; // past go-e's 60 s of silence
  await offline;
  const checkSilence = (hub.daemon.mqtt as unknown as { checkSilence(): void }).checkSilence.bind(hub.daemon.mqtt);
  checkSilence();
  checkSilence();
  const told = lines.filter((l) => l['msg'] === 'mqtt: device silent, shown offline');
  assert.equal(told.length, 1, 'the change is logged once, not at every check');
  assert.equal(told[0]!['device'], CHARGER);
  assert.ok(Number(told[0]!['silentForS']) >= 61, 'the silence told is the one seen');

  const waits = next((l) => l['msg'] === 'device offline; the command waits for it');
  // Submitted on the system's clock: five minutes outlast the hub's clock moved on by 61 s.
  const command = hub.submit(VEHICLE, 'CHARGING_STOP', undefined, 300_000);
  await waits;
  const listed = (await (await hub.api(`/users/household-1/vehicles/${VEHICLE}/commands`)).json()) as Record<string, unknown>[];
  assert.equal(listed.length, 1);
  assert.equal(listed[0]!['state'], 'PENDING');
  assert.match(String(listed[0]!['waitingReason']), new RegExp(`^Waiting: Charger ${CHARGER}, which carries it out, is offline; the command is sent when it is reachable again, and fails if it is not by \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\.$`));

  const document = (await (await hub.api('/openapi.json')).json()) as { components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> } };
  const field = document.components.schemas['Command']!.properties['waitingReason']!;
  assert.equal(field['x-hub-addition'], true, 'a field the contract does not have is marked as the hub\'s');
  assert.equal(field['type'], 'string');

  offsetMs = 0;
  await sim.tick(); // rbt: the charger speaks again
  const done = await hub.commandDone(command.id);
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
  const after = (await (await hub.api(`/users/household-1/vehicles/${VEHICLE}/commands?state=ALL`)).json()) as Record<string, unknown>[];
  assert.equal(after[0]!['waitingReason'], undefined, 'a command no longer waiting says nothing of it');
});

test('the go-e simulator publishes rbt every second by default, as go-e\'s MQTT documentation shows', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const sim = new GoESim(broker.url, '888888');
  t.after(() => sim.stop());
  const client = await mqtt.connectAsync(broker.url);
  t.after(() => client.endAsync());
  const seen: number[] = [];
  const threeBeats = new Promise<void>((resolve) => client.on('message', (_topic, payload) => {
    seen.push(Number(payload.toString()));
    if (seen.length === 3) resolve();
  }));
  await client.subscribeAsync('go-eCharger/888888/rbt');
  await sim.start();
  await Promise.race([threeBeats, new Promise((_, reject) => setTimeout(() => reject(new Error(`rbt seen ${seen.length} times in 5 s`)), 5000).unref())]);
  assert.ok(seen[2]! > seen[0]!, 'time since boot goes on');
});
