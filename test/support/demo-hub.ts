// The demo household of `npm start` in a test: its own broker and MQTT bridges (aedes), the
// Zaptec-like OCPP charger connected, and a whole hub on the demo's records, all of them parts of one
// household (src/sim/demo-household.ts). With `simulators`, also the Modbus and HTTP simulators and
// the demo's 48 hours of past, as npm start has them. Undefined when aedes (a development
// dependency) is not installed.
import type { TestContext } from 'node:test';
import { startDemoMqtt, type DemoMqtt } from '../../src/sim/demo-mqtt.ts';
import { demoOcpp } from '../../src/sim/demo-ocpp.ts';
import { startDemoSimulators, type DemoSimulators } from '../../src/sim/demo-sims.ts';
import { createDemoHousehold, demoPast } from '../../src/sim/demo-household.ts';
import type { HouseholdModel } from '../../src/sim/household-model.ts';
import { demoRecords } from '../../src/demo/site.ts';
import { writeDemoHistory } from '../../src/demo/history.ts';
import { silentLogger } from '../../src/log.ts';
import { startMqttHub, type MqttHub } from './mqtt-hub.ts';
import type { TestBroker } from './broker.ts';

export interface DemoHub {
  demo: DemoMqtt;
  hub: MqttHub;
  ocpp: ReturnType<typeof demoOcpp>;
  household: HouseholdModel;
  records: { id: string; kind: string }[];
}

/** `now`: the household's clock (a test holds it still to read every device at one instant). */
export async function startDemoHub(t: TestContext, config: Record<string, unknown> = {}, options: { simulators?: boolean; now?: () => number } = {}): Promise<DemoHub | undefined> {
  const now = options.now ?? Date.now;
  const household = createDemoHousehold(now);
  // As npm start: the past is run before anything reads the household live.
  const past = options.simulators ? demoPast(household, now()) : undefined;
  let simulators: DemoSimulators | undefined;
  if (options.simulators) {
    simulators = await startDemoSimulators('127.0.0.1', household);
    t.after(() => simulators?.stop());
  }
  const demo = await startDemoMqtt(undefined, household);
  if (!demo) return undefined;
  const broker: TestBroker = {
    kind: 'aedes', port: Number(new URL(demo.url).port), url: demo.url, supportsMqtt5: false,
    stop: async () => {}, restart: async () => { throw new Error('the demo broker is not restarted here'); },
  };
  const ocpp = demoOcpp(household);
  const records = demoRecords(Date.now(), { ...simulators?.bindings, ...demo.bindings, zaptec: ocpp.binding }) as DemoHub['records'];
  let hub: MqttHub;
  try {
    hub = await startMqttHub(t, { broker, records, config, beforeListen: past && ((store) => void writeDemoHistory(store, past, Date.now(), silentLogger())) });
  } finally {
    t.after(() => demo.stop()); // after the hub's own teardown, registered first
  }
  t.after(() => ocpp.stop());
  await ocpp.connect(hub.daemon.url);
  return { demo, hub, ocpp, household, records };
}
