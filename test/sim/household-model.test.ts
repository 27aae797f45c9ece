// The demo's household obeys physics: at every instant PV + grid import = house + battery charge + car
// charging + grid export, whatever time does and whatever the go-e is told over MQTT (a property over
// the real broker door), and each simulator's view is its part of that one household.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import mqtt from 'mqtt';
import { HouseholdModel, type HouseholdReading } from '../../src/sim/household-model.ts';
import { CARPORT, createDemoHousehold, DRIVEWAY } from '../../src/sim/demo-household.ts';
import { GoESim } from '../../src/sim/mqtt/go-e-sim.ts';
import { startBroker } from '../support/broker.ts';
import { TopicWatch } from '../support/topic-watch.ts';

const sum = (values: Record<string, number>) => Object.values(values).reduce((a, b) => a + b, 0);

function assertBalanced(r: HouseholdReading, household?: HouseholdModel): void {
  const supply = sum(r.pvW) + Math.max(r.gridW, 0);
  const use = r.houseW + sum(r.batteryW) + sum(r.chargerW) + Math.max(-r.gridW, 0);
  assert.equal(supply, use, `PV + import = house + battery + car + export at ${r.atMs}: ${JSON.stringify(r)}`);
  assert.ok(r.houseW >= 0);
  for (const [name, soc] of Object.entries(r.socPct)) assert.ok(soc >= 0 && soc <= 100, `${name} at ${soc} %`);
  // Each simulator sees its own part of the same household (now: a past reading has no views).
  if (!household) return;
  assert.equal(household.view({ grid: 'household' }).read().gridW, r.gridW);
  assert.equal(household.view({ pv: 'roof' }).read().pvW, r.pvW['roof']);
  assert.equal(household.view({ battery: 'cellar' }).read().batteryW, r.batteryW['cellar']);
}

test('the household balances at every instant, over time and go-e commands through the broker; the go-e\'s power is its term', { timeout: 120_000 }, async (t) => {
  const broker = await startBroker({ engine: 'aedes' });
  t.after(() => broker.stop());
  const goe = new GoESim(broker.url, '100001', 'go-eCharger', { rbtIntervalMs: 0 });
  await goe.start();
  t.after(() => goe.stop());
  const watch = await TopicWatch.start(t, broker.url, ['go-eCharger/100001/+/result', 'go-eCharger/100001/nrg']);
  const app = await mqtt.connectAsync(broker.url);
  t.after(() => app.endAsync(true));

  let nowMs = Date.UTC(2026, 5, 21, 8);
  const household = createDemoHousehold(() => nowMs);
  let carport = 0;
  household.addCharger(DRIVEWAY, () => (goe.client?.connected ? goe.state.powerW : 0));
  household.addCharger(CARPORT, () => carport);
  await goe.plugIn();

  const command = fc.oneof(
    fc.record({ advanceMs: fc.integer({ min: 1, max: 3_600_000 }) }),
    fc.record({ key: fc.constantFrom('frc'), value: fc.constantFrom(0, 1, 2) }),
    fc.record({ key: fc.constantFrom('amp'), value: fc.integer({ min: 6, max: 32 }) }),
    fc.record({ carportW: fc.constantFrom(0, 10_833) }),
    fc.record({ plug: fc.boolean() }),
  );
  let last = household.read();
  await fc.assert(
    fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 10 }), async (commands) => {
      for (const c of commands) {
        if ('advanceMs' in c) nowMs += c.advanceMs;
        else if ('carportW' in c) carport = c.carportW;
        else if ('plug' in c) await (c.plug ? goe.plugIn() : goe.unplug());
        else {
          const answer = watch.next((m) => m.topic === `go-eCharger/100001/${c.key}/result`, 5000, `the go-e's answer to ${c.key}`);
          // After a force state, the charger tells its car state and power (nrg) once it applied it.
          const applied = c.key === 'frc' ? watch.next((m) => m.topic === 'go-eCharger/100001/nrg', 5000, 'the go-e\'s power') : undefined;
          await app.publishAsync(`go-eCharger/100001/${c.key}/set`, JSON.stringify(c.value), { qos: 1 });
          assert.equal((await answer).payload, 'success');
          await applied;
        }
        nowMs += 1000;
        const r = household.read();
        assertBalanced(r, household);
        assert.equal(r.chargerW[DRIVEWAY], goe.state.powerW, 'the go-e\'s power is the driveway\'s term');
        assert.equal(r.chargerW[DRIVEWAY], goe.state.car === 2 ? goe.state.amp * 690 : 0, 'it draws its current on three phases while charging, else nothing');
        assert.equal(r.chargerW[CARPORT], carport);
        assert.ok(r.gridImportWh >= last.gridImportWh && r.gridExportWh >= last.gridExportWh, 'the meter\'s counters never go back');
        last = r;
      }
    }),
    { numRuns: 60, interruptAfterTimeLimit: 60_000 },
  );
});

test('a charger that is not connected draws nothing; the garden house\'s CTs see only its PV going out', async () => {
  let nowMs = Date.UTC(2026, 5, 21, 10);
  const household = createDemoHousehold(() => nowMs);
  let connected = true;
  household.addCharger(DRIVEWAY, () => (connected ? 11_040 : 0));
  nowMs += 1000;
  assert.equal(household.read().chargerW[DRIVEWAY], 11_040);
  connected = false;
  nowMs += 1000;
  const r = household.read();
  assert.equal(r.chargerW[DRIVEWAY], 0);
  assertBalanced(r, household);
  const garden = household.view({ pv: 'garden', grid: 'feeder' }).read();
  assert.equal(garden.pvW, r.pvW['garden']);
  assert.equal(garden.gridW, -garden.pvW);
});

test('the past leads up to now: its readings balance, and the live household goes on from its counters', () => {
  const nowMs = Date.UTC(2026, 10, 27, 17);
  let clock = nowMs;
  const household = createDemoHousehold(() => clock);
  const past = household.runPast(nowMs - 6 * 3_600_000, nowMs, 60_000, (charger, at) => (charger === DRIVEWAY && at > nowMs - 3_600_000 ? 11_040 : 0));
  assert.equal(past.length, 360);
  for (const r of past) assertBalanced(r);
  assert.ok(past.some((r) => r.chargerW[DRIVEWAY] === 11_040), 'the car charged in the last hour');
  clock = nowMs + 5000;
  const live = household.read();
  assert.ok(live.gridImportWh >= past.at(-1)!.gridImportWh);
  assert.equal(live.chargerW[DRIVEWAY], 0, 'live, a charger draws what its simulator says (none registered here)');
});
