// The docs count the demo household's devices (README, docs/home-assistant.md): the counts must be
// those of the household `npm start` seeds, simulators' devices included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { demoRecords } from '../../src/demo/site.ts';
import { startDemoSimulators } from '../../src/sim/demo-sims.ts';
import { DEMO_MQTT_BINDINGS } from '../../src/sim/demo-mqtt.ts';
import { demoOcpp } from '../../src/sim/demo-ocpp.ts';

const NUMBERS: Record<string, number> = { a: 1, an: 1, the: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6 };
const KINDS: [RegExp, string][] = [
  [/^batter(y|ies)$/, 'battery'], [/^PV inverters?$/, 'pvInverter'], [/^meters?$/, 'meter'], [/^HVAC units?$/, 'hvac'],
  [/^chargers?$/, 'charger'], [/^(cars?|vehicles?)( with pictures)?$/, 'vehicle'], [/^tariffs?$/, 'tariff'],
];

/** "two batteries, three PV inverters, the meter, …" as counts by kind. */
function countsIn(list: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of list.split(/,\s*/)) {
    const [, number, noun] = item.trim().match(/^(\w+)\s+(.+)$/) ?? [];
    const kind = KINDS.find(([pattern]) => pattern.test(noun ?? ''))?.[1];
    assert.ok(number && NUMBERS[number] !== undefined && kind, `cannot read "${item}"`);
    counts[kind] = NUMBERS[number]!;
  }
  return counts;
}

test('the README and docs/home-assistant.md count the demo household as npm start seeds it', async (t) => {
  const simulators = await startDemoSimulators();
  t.after(() => simulators.stop());
  const records = demoRecords(Date.now(), { ...simulators.bindings, ...DEMO_MQTT_BINDINGS, zaptec: demoOcpp().binding }) as { kind: string }[];
  const seeded: Record<string, number> = {};
  for (const { kind } of records) seeded[kind] = (seeded[kind] ?? 0) + 1;

  const flat = (file: string) => readFileSync(file, 'utf8').replace(/\s+/g, ' ');
  const readme = flat('README.md').match(/The demo household \(([^)]+)\)/);
  assert.ok(readme, 'README.md counts the demo household');
  assert.deepEqual(countsIn(readme[1]!), seeded, 'README.md');
  const homeAssistant = flat('docs/home-assistant.md').match(/All the demo's devices appear: ([^.]+)\./);
  assert.ok(homeAssistant, 'docs/home-assistant.md counts the demo household');
  assert.deepEqual(countsIn(homeAssistant[1]!), seeded, 'docs/home-assistant.md');
});
