// The demo household of `npm start` in a test: its own broker and MQTT bridges (aedes), the
// Zaptec-like OCPP charger connected, and a whole hub on the demo's records. Undefined when aedes
// (a development dependency) is not installed.
import type { TestContext } from 'node:test';
import { startDemoMqtt, type DemoMqtt } from '../../src/sim/demo-mqtt.ts';
import { demoOcpp } from '../../src/sim/demo-ocpp.ts';
import { demoRecords } from '../../src/demo/site.ts';
import { startMqttHub, type MqttHub } from './mqtt-hub.ts';
import type { TestBroker } from './broker.ts';

export interface DemoHub {
  demo: DemoMqtt;
  hub: MqttHub;
  ocpp: ReturnType<typeof demoOcpp>;
  records: { id: string; kind: string }[];
}

export async function startDemoHub(t: TestContext, config: Record<string, unknown> = {}): Promise<DemoHub | undefined> {
  const demo = await startDemoMqtt();
  if (!demo) return undefined;
  const broker: TestBroker = {
    kind: 'aedes', port: Number(new URL(demo.url).port), url: demo.url, supportsMqtt5: false,
    stop: async () => {}, restart: async () => { throw new Error('the demo broker is not restarted here'); },
  };
  const ocpp = demoOcpp();
  const records = demoRecords(Date.now(), { ...demo.bindings, zaptec: ocpp.binding }) as DemoHub['records'];
  let hub: MqttHub;
  try {
    hub = await startMqttHub(t, { broker, records, config });
  } finally {
    t.after(() => demo.stop()); // after the hub's own teardown, registered first
  }
  t.after(() => ocpp.stop());
  await ocpp.connect(hub.daemon.url);
  return { demo, hub, ocpp, records };
}
