// MQTT silence across a step of the wall clock: silence is a duration, measured on the monotonic
// clock, so a charger that spoke a moment ago stays online when NTP steps the clock forward by days
// (a boot without a battery clock), and no offline event is sent for it. A real broker, the go-e
// simulator, and a hub clock whose wall reading the test steps while its monotonic one goes on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GoESim } from '../../../src/sim/mqtt/go-e-sim.ts';
import { startBroker } from '../../support/broker.ts';
import { drivenRecord, startMqttHub } from '../../support/mqtt-hub.ts';
import type { HubEvent } from '../../../src/runtime/events/hub-events.ts';

const CHARGER = '6f1c2a4e-0000-4000-8000-00000000c0f7';
const DAY = 24 * 3_600_000;

for (const [name, stepMs] of [['forward 3 days', 3 * DAY], ['back 2 h', -DAY / 12]] as const) {
  test(`a wall clock stepped ${name}: a charger that speaks stays online, and no offline event is sent`, async (t) => {
    const clock = { offsetMs: 0, now: () => Date.now() + clock.offsetMs, monotonicMs: () => performance.now() };
    const broker = await startBroker();
    t.after(() => broker.stop());
    const hub = await startMqttHub(t, {
      broker, clock,
      records: [drivenRecord('charger', CHARGER, 'GO_E', { type: 'go-e', serial: '777707' })],
      config: { mqtt: { url: broker.url, protocolVersion: broker.supportsMqtt5 ? 5 : 4, staleAfterSeconds: 5 } },
    });
    const sim = new GoESim(hub.broker.url, '777707', 'go-eCharger', { firmware: 'captured', rbtIntervalMs: 0 });
    t.after(() => sim.stop());
    const online = hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.isOnline);
    await sim.start();
    await online;
    const offline: HubEvent[] = [];
    hub.daemon.events.on((e) => {
      if (e.type === 'offline' && e.device.id === CHARGER) offline.push(e);
    });

    clock.offsetMs = stepMs;
    // The silence check, as its timer runs it (every 1.25 s here), twice.
    const checkSilence = (hub.daemon.mqtt as unknown as { checkSilence(): void }).checkSilence.bind(hub.daemon.mqtt);
    checkSilence();
    checkSilence();
    assert.equal(hub.daemon.mqtt!.isReachable(hub.device(CHARGER)!), true, 'reachable: a command would be sent');
    assert.equal(hub.device(CHARGER)!.isOnline, true);
    assert.deepEqual(offline, []);
    // And it is heard after the step: a refresh answers.
    const res = await hub.api(`/chargers/${CHARGER}/refresh`);
    assert.equal(res.status, 200, await res.text());
  });
}
