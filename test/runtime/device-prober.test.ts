// The device probers' bindings and the combined prober, without a transport: what each form's answers
// become (the binding stored on the device), and which prober a vendor reached two ways is given.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DriverBinding } from '../../src/domain/device.ts';
import { combinedDeviceProber, type DeviceProber } from '../../src/runtime/device-prober.ts';
import { MqttDeviceProber } from '../../src/runtime/mqtt/mqtt-device-prober.ts';
import type { MqttRuntime } from '../../src/runtime/mqtt/mqtt-runtime.ts';
import { PairingProbeError } from '../../src/runtime/pairing-prober.ts';

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
    // evcc under another prefix: its currency and heartbeat beside it.
    { type: 'tariff-topic', priceTopic: 'home/evcc/site/tariffGrid', currencyTopic: 'home/evcc/site/currency', heartbeatTopic: 'home/evcc/updated' },
    // Any other topic: the currency given, no evcc companions.
    { type: 'tariff-topic', priceTopic: 'power/price', currency: 'CHF', currencyTopic: '', heartbeatTopic: '' },
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
