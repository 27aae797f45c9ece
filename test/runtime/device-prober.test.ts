// The device probers' bindings and the combined prober, without a transport: what each form's answers
// become (the binding stored on the device), and which prober a vendor reached two ways is given.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DriverBinding } from '../../src/domain/device.ts';
import { combinedDeviceProber, type DeviceProber } from '../../src/runtime/devices/device-prober.ts';
import { MqttDeviceProber } from '../../src/runtime/mqtt/mqtt-device-prober.ts';
import type { MqttRuntime } from '../../src/runtime/mqtt/mqtt-runtime.ts';
import { PairingProbeError } from '../../src/runtime/devices/pairing-prober.ts';
import { ModbusDeviceProber } from '../../src/runtime/modbus/modbus-device-prober.ts';
import { DEFAULT_UNITS } from '../../src/runtime/modbus/modbus-discovery.ts';
import { ModbusSimServer } from '../../src/sim/modbus-sim-server.ts';
import { SiteModel } from '../../src/sim/site-model.ts';
import { sunspecInverter, sunspecMeter } from '../../src/sim/sunspec-sims.ts';
import { builtInDrivers } from '../../drivers/modbus/index.ts';
import { silentLogger } from '../../src/log.ts';

/** An MQTT runtime whose probe hears `values` on whatever binding it is given, and records the bindings. */
function hearing(values: Record<string, unknown>) {
  const bindings: DriverBinding[] = [];
  const runtime = { probe: async (binding: DriverBinding) => (bindings.push(binding), { values, staticValues: {} }) } as unknown as MqttRuntime;
  return { prober: new MqttDeviceProber(runtime, () => 'mqtt://hub.home.example:1883'), bindings };
}

const signal = new AbortController().signal;

test('the MQTT forms\' answers become the bindings of ebusd, open3e, ESPAltherma and a tariff topic', async () => {
  const hvac = hearing({ roomTemperature: 21 });
  assert.deepEqual([...hvac.prober.forms('hvac').keys()].sort(), ['DAIKIN', 'VAILLANT', 'VIESSMANN']);
  assert.equal(hvac.prober.forms('hvac').get('VAILLANT')!.hints!['broker'], 'mqtt://hub.home.example:1883', 'the page names the broker');
  assert.deepEqual(hvac.prober.forms('homePower').size, 0);
  await hvac.prober.probe('hvac', 'VAILLANT', { circuit: '720', zone: '2' }, signal);
  await hvac.prober.probe('hvac', 'VIESSMANN', { ecu: '68a' }, signal);
  const altherma = await hvac.prober.probe('hvac', 'DAIKIN', { espalthermaPrefix: 'home/altherma' }, signal);
  assert.deepEqual(hvac.bindings, [
    { type: 'ebusd-vaillant-zone', circuit: '720', zone: '2' },
    { type: 'open3e-viessmann-circuit', ecu: '68A' },
    { type: 'espaltherma', prefix: 'home/altherma' },
  ]);
  assert.ok('device' in altherma && altherma.device.hvacType === 'HEATING_CIRCUIT');

  const tariff = hearing({ pricePerKwh: 0.287, currency: 'EUR' });
  const evcc = await tariff.prober.probe('tariffs', 'OSTROM', {}, signal);
  await tariff.prober.probe('tariffs', 'TIBBER', { priceTopic: 'home/evcc/site/tariffGrid' }, signal);
  await tariff.prober.probe('tariffs', 'LUOX', { priceTopic: 'power/price', currency: 'CHF' }, signal);
  assert.deepEqual(tariff.bindings, [
    { type: 'tariff-topic' },
    // evcc under another prefix: its currency, heartbeat and curve beside it.
    { type: 'tariff-topic', priceTopic: 'home/evcc/site/tariffGrid', currencyTopic: 'home/evcc/site/currency', heartbeatTopic: 'home/evcc/updated', forecastTopic: 'home/evcc/site/forecast/grid' },
    // Any other topic: the currency given, no evcc companions.
    { type: 'tariff-topic', priceTopic: 'power/price', currency: 'CHF', currencyTopic: '', heartbeatTopic: '', forecastTopic: '' },
  ]);
  assert.ok('device' in evcc && evcc.device.kind === 'tariff' && evcc.device.staticData['currency'] === 'EUR');
});

test('something heard that says nothing of the kind is not the device', async () => {
  const silent = hearing({});
  await assert.rejects(silent.prober.probe('hvac', 'VAILLANT', {}, signal), (err) => err instanceof PairingProbeError && err.code === 'NOT_A_CHARGER');
  const noPrice = hearing({ currency: 'EUR' });
  await assert.rejects(noPrice.prober.probe('tariffs', 'TIBBER', {}, signal), (err) => err instanceof PairingProbeError && err.code === 'NOT_A_CHARGER');
});

test('a vendor reached two ways gets one form of both, one of them to be given, and the probe of the way given', async () => {
  const calls: string[] = [];
  const way = (name: string, field: string): DeviceProber => ({
    forms: (domain) => new Map(domain === 'hvac' ? [['DAIKIN', { fields: [{ name: field, required: true, maxLength: 64 }] }]] : []),
    probe: async () => (calls.push(name), { choices: [] }),
  });
  const combined = combinedDeviceProber([way('http', 'host'), way('mqtt', 'espalthermaPrefix')]);
  const form = combined.forms('hvac').get('DAIKIN')!;
  assert.deepEqual(form.fields.map((f) => [f.name, f.required]), [['host', false], ['espalthermaPrefix', false]]);
  assert.equal(form.anyOf, true);
  await combined.probe('hvac', 'DAIKIN', { espalthermaPrefix: 'espaltherma' }, signal);
  await combined.probe('hvac', 'DAIKIN', { host: '192.168.1.60' }, signal);
  assert.deepEqual(calls, ['mqtt', 'http']);
  await assert.rejects(combined.probe('hvac', 'DAIKIN', {}, signal), PairingProbeError);
  await assert.rejects(combined.probe('tariffs', 'TIBBER', {}, signal), PairingProbeError);
});

test('the Modbus scan asks a unit id nobody answers to once, and offers what answers to choose from', async (t) => {
  const site = new SiteModel({ now: () => Date.parse('2026-06-21T12:00:00Z') });
  // A bare device keeps silent for unit ids it is not (no gateway to say "no such unit").
  const sim = await ModbusSimServer.tcp(new Map([[1, sunspecInverter(site)], [200, sunspecMeter(site)]]), { unknownUnit: 'silence' });
  t.after(() => sim.close());
  const prober = new ModbusDeviceProber(builtInDrivers(), silentLogger(), 200);
  const found = await prober.probe('homePower', 'FRONIUS', { host: '127.0.0.1', port: String(sim.port) }, AbortSignal.timeout(20_000));
  assert.ok('choices' in found);
  assert.deepEqual(found.choices.map((c) => [c.value, c.kind]), [['1:pvInverter', 'pvInverter'], ['200:meter', 'meter']]);
  // Each silent unit id cost one request (one timeout), not one per place identify would look.
  for (const unitId of DEFAULT_UNITS.filter((u) => u !== 1 && u !== 200)) assert.equal(sim.requests.get(unitId), 1, `unit ${unitId}`);
  // A Huawei page does not offer a Fronius's devices.
  await assert.rejects(prober.probe('homePower', 'HUAWEI', { host: '127.0.0.1', port: String(sim.port) }, AbortSignal.timeout(20_000)),
    (err) => err instanceof PairingProbeError && err.code === 'NOT_A_CHARGER');
});
