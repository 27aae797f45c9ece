// Every MQTT driver definition the hub ships: registered, declaring makers the API knows, and
// played by a simulator that brings a device of it online in a whole hub. A new definition without
// an entry in SIMULATORS fails here, loudly. Its makers are available exactly when the hub has a
// broker: a hub without one lists none of the makers only MQTT reaches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MQTT_DRIVER_DEFINITIONS, builtInMqttDrivers } from '../../../drivers/mqtt/index.ts';
import { builtInHttpDrivers } from '../../../drivers/http/index.ts';
import { builtInDrivers } from '../../../drivers/modbus/index.ts';
import { ConfigSchema } from '../../../src/config.ts';
import { Daemon } from '../../../src/daemon.ts';
import { VENDOR_NAMES, VendorCatalog } from '../../../src/domain/vendors.ts';
import { DOMAIN_OF_KIND, VENDORS_BY_KIND, type DeviceKind, type VendorDomain } from '../../../src/domain/vocabulary.ts';
import { silentLogger } from '../../../src/log.ts';
import type { MqttDeviceSim } from '../../../src/sim/mqtt/mqtt-device-sim.ts';
import { CarConnectivitySim } from '../../../src/sim/mqtt/carconnectivity-sim.ts';
import { EbusdVaillantSim } from '../../../src/sim/mqtt/ebusd-vaillant-sim.ts';
import { EspAlthermaSim } from '../../../src/sim/mqtt/espaltherma-sim.ts';
import { GoESim } from '../../../src/sim/mqtt/go-e-sim.ts';
import { MqttGenericSim } from '../../../src/sim/mqtt/mqtt-generic-sim.ts';
import { Open3eSim } from '../../../src/sim/mqtt/open3e-sim.ts';
import { TariffTopicSim } from '../../../src/sim/mqtt/tariff-topic-sim.ts';
import { TeslaMateSim } from '../../../src/sim/mqtt/teslamate-sim.ts';
import { drivenRecord, HUB_KEY, startMqttHub } from '../../support/mqtt-hub.ts';
import { skippedWithout } from '../../support/peers.ts';

interface SimulatorEntry {
  /** The simulator class, built with the broker's URL and its own defaults. */
  simulator: new (url: string) => MqttDeviceSim;
  /** A device of the definition that the simulator's defaults answer for. */
  kind: DeviceKind;
  vendor: string;
  binding: Record<string, unknown>;
  /** More of the import record (an HVAC's `type`). */
  record?: Record<string, unknown>;
}

/** One simulator per definition type. */
const SIMULATORS: Record<string, SimulatorEntry> = {
  'go-e': { simulator: GoESim, kind: 'charger', vendor: 'GO_E', binding: { serial: '012345' } },
  teslamate: { simulator: TeslaMateSim, kind: 'vehicle', vendor: 'TESLA', binding: { carId: '1' } },
  carconnectivity: { simulator: CarConnectivitySim, kind: 'vehicle', vendor: 'CUPRA', binding: { vin: 'WVWZZZE1ZPP000001' } },
  'ebusd-vaillant-zone': { simulator: EbusdVaillantSim, kind: 'hvac', vendor: 'VAILLANT', binding: { timeZone: 'Europe/Berlin' }, record: { type: 'HEATING_CIRCUIT' } },
  'ebusd-vaillant-dhw': { simulator: EbusdVaillantSim, kind: 'hvac', vendor: 'VAILLANT', binding: { timeZone: 'Europe/Berlin' }, record: { type: 'DHW' } },
  espaltherma: { simulator: EspAlthermaSim, kind: 'hvac', vendor: 'DAIKIN', binding: {}, record: { type: 'HEATING_CIRCUIT' } },
  'open3e-viessmann-circuit': { simulator: Open3eSim, kind: 'hvac', vendor: 'VIESSMANN', binding: {}, record: { type: 'HEATING_CIRCUIT' } },
  'open3e-viessmann-dhw': { simulator: Open3eSim, kind: 'hvac', vendor: 'VIESSMANN', binding: {}, record: { type: 'DHW' } },
  'tariff-topic': {
    simulator: TariffTopicSim, kind: 'tariff', vendor: 'OCTOPUS_ENERGY', binding: {}, record: { staticData: { vendor: 'OCTOPUS_ENERGY', name: 'Agile' } },
  },
  'mqtt-generic': {
    simulator: MqttGenericSim, kind: 'charger', vendor: 'GO_E',
    binding: {
      state: [{ topic: 'home/wallbox-1/state', format: 'json', fields: { chargeCurrentMax: { path: 'limit_a', as: 'number' } } }],
      availability: { topic: 'home/wallbox-1/status', online: ['online'], offline: ['offline'] },
    },
  },
};

test('every MQTT definition is registered, declares known makers of its own kinds, and has a simulator', () => {
  const registry = builtInMqttDrivers();
  for (const definition of MQTT_DRIVER_DEFINITIONS) {
    assert.equal(registry.get(definition.type), definition, `${definition.type} is registered`);
    for (const vendor of definition.vendors) {
      assert.ok(vendor.code in VENDOR_NAMES, `${definition.type}: unknown vendor ${vendor.code}`);
      const kindsOfDomain = definition.kinds.filter((kind) => DOMAIN_OF_KIND[kind] === vendor.domain);
      assert.ok(kindsOfDomain.length > 0, `${definition.type}: declares ${vendor.code} in ${vendor.domain}, but drives no device of that domain`);
      assert.ok(kindsOfDomain.some((kind) => VENDORS_BY_KIND[kind].includes(vendor.code)), `${definition.type}: ${vendor.code} is not a ${vendor.domain} maker`);
    }
    const entry = SIMULATORS[definition.type];
    assert.ok(entry, `MQTT definition "${definition.type}" has no simulator: add one in src/sim/mqtt/ and to SIMULATORS in this test`);
    assert.ok(definition.kinds.includes(entry.kind), `${definition.type}: its simulator plays a ${entry.kind}, which it cannot drive`);
  }
  for (const type of Object.keys(SIMULATORS)) assert.ok(registry.has(type), `SIMULATORS names ${type}, which no definition has`);
});

test('every MQTT definition brings its simulated device online in a whole hub', async (t) => {
  // The hub-native simulator speaks MQTT 5, which the embedded fallback broker does not.
  if (skippedWithout(t, 'mosquitto')) return;
  const devices = MQTT_DRIVER_DEFINITIONS.map((definition, index) => {
    const entry = SIMULATORS[definition.type]!;
    const id = `0d0d0d0d-0000-4000-8000-${String(index + 1).padStart(12, '0')}`;
    return { id, definition, entry, record: drivenRecord(entry.kind, id, entry.vendor, { type: definition.type, ...entry.binding }, entry.record) };
  });
  const hub = await startMqttHub(t, { records: devices.map((d) => d.record) });
  const online = devices.map((d) => hub.event((e) => e.type === 'update' && e.device.id === d.id && e.device.isOnline)
    .catch(() => assert.fail(`${d.definition.type}: its device did not come online with its simulator`)));
  // One simulator per class: definitions of one bridge (a zone and its hot water) share it.
  for (const simulator of new Set(devices.map((d) => d.entry.simulator))) {
    const sim = new simulator(hub.broker.url);
    t.after(() => sim.stop());
    await sim.start();
  }
  await Promise.all(online);
});

test('with a broker, every maker of an MQTT definition is an available vendor, but a car maker only where an app can connect it', async (t) => {
  const hub = await startMqttHub(t);
  const response = await hub.api('/connections/available-vendors');
  assert.equal(response.status, 200);
  const body = (await response.json()) as Record<VendorDomain, { id: string }[]>;
  for (const definition of MQTT_DRIVER_DEFINITIONS) {
    for (const vendor of definition.vendors) {
      // A car reached through a bridge (TeslaMate, CarConnectivity) is added by the installer: the
      // vehicles listed are the makers the hub's connect page logs in to (the cloud family's).
      if (vendor.domain === 'vehicles') continue;
      assert.ok(body[vendor.domain].some((v) => v.id === vendor.code), `${vendor.code} (${definition.type}) is listed in ${vendor.domain}`);
    }
  }
  assert.deepEqual(body.vehicles.map((v) => v.id), ['BMW', 'MINI', 'VOLVO']);
});

test('without a broker, none of the makers only MQTT reaches is available', async (t) => {
  // Makers a driver without a broker reaches (Modbus, HTTP: a Daikin AC's adapter) stay available.
  const modbusOnly = new VendorCatalog();
  builtInDrivers().registerVendors(modbusOnly);
  builtInHttpDrivers().registerVendors(modbusOnly);
  const mqttOnly = MQTT_DRIVER_DEFINITIONS.flatMap((d) => d.vendors).filter((v) => !modbusOnly.isAvailable(v.domain, v.code));
  assert.ok(mqttOnly.length > 0);

  const dataDir = mkdtempSync(join(tmpdir(), 'hub-no-broker-'));
  const daemon = new Daemon({ config: ConfigSchema.parse({ dataDir, http: { port: 0 }, apiKey: HUB_KEY }), log: silentLogger() });
  t.after(async () => {
    await daemon.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  await daemon.start();
  const response = await fetch(`${daemon.url}/v1.0.0/connections/available-vendors`, { headers: { 'x-api-key': HUB_KEY } });
  assert.equal(response.status, 200);
  const body = (await response.json()) as Record<VendorDomain, { id: string }[]>;
  for (const vendor of mqttOnly) {
    assert.ok(!body[vendor.domain].some((v) => v.id === vendor.code), `${vendor.code} is not listed in ${vendor.domain} without a broker`);
  }
});
