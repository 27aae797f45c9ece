// Home Assistant's MQTT discovery through a real broker: what a Home Assistant subscribed to the
// broker receives for each kind of device, checked against what Home Assistant documents (not against
// the hub's own tables): the discovery topic layout, components, device classes, state classes and
// units (https://www.home-assistant.io/integrations/mqtt/#mqtt-discovery, /integrations/sensor/,
// /integrations/climate.mqtt/, /button.mqtt/, /number.mqtt/, /binary_sensor.mqtt/), and the energy
// dashboard's rules (homeassistant/components/energy/validate.py). Then commands from the command
// topics, deletion, renaming, the birth message, the hub's last will and turning the feature off.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { Store } from '../../src/store/store.ts';
import { prepareImport } from '../../src/domain/import.ts';
import { GoESim } from '../../src/sim/mqtt/go-e-sim.ts';
import { TeslaMateSim } from '../../src/sim/mqtt/teslamate-sim.ts';
import { EbusdVaillantSim } from '../../src/sim/mqtt/ebusd-vaillant-sim.ts';
import { TariffTopicSim } from '../../src/sim/mqtt/tariff-topic-sim.ts';
import type { CommandRecord } from '../../src/store/commands.ts';
import { skipWithout } from '../support/peers.ts';
import { drivenRecord, startMqttHub, type MqttHub } from '../support/mqtt-hub.ts';
import { startBroker, type TestBroker } from '../support/broker.ts';
import { TopicWatch, type Seen } from '../support/topic-watch.ts';
import { join } from 'node:path';

const BATTERY = '0a000000-0000-4000-8000-0000000000b1';
const PV = '0a000000-0000-4000-8000-0000000000f1';
const METER = '0a000000-0000-4000-8000-0000000000e1';
const CHARGER = '0a000000-0000-4000-8000-0000000000c1';
const CAR = '0a000000-0000-4000-8000-0000000000a1';
const ZONE = '0a000000-0000-4000-8000-0000000000d1';
const TARIFF = '0a000000-0000-4000-8000-000000000071';

// The defaults: discovery_prefix homeassistant (Home Assistant's own default), node_id home_energy_hub.
const NODE = 'home_energy_hub';
const BASE = `home-energy-hub/ha/${NODE}`;
const config = (component: string, deviceId: string, key: string) => `homeassistant/${component}/${NODE}/${NODE}_${deviceId}_${key}/config`;
const stateTopic = (deviceId: string) => `${BASE}/${deviceId}/state`;
const availabilityTopic = (deviceId: string) => `${BASE}/${deviceId}/availability`;

function records(): unknown[] {
  return [
    {
      kind: 'battery', id: BATTERY, userId: 'household-1', isOnline: true, lastUpdated: '2026-11-01T00:00:00Z',
      staticData: { vendor: 'FRONIUS', name: 'Garage battery', model: 'BYD HVS 10.2', batteryCapacity: 10.24 },
      chargeState: { chargeRate: -0.8, stateOfCharge: 64, chargingState: 'DISCHARGING' },
    },
    {
      kind: 'pvInverter', id: PV, userId: 'household-1', isOnline: true, lastUpdated: '2026-11-01T00:00:00Z',
      staticData: { vendor: 'SMA', name: 'Roof', model: 'Sunny Tripower 10.0' }, powerState: { state: 'PRODUCING', solarPower: 4.83 },
    },
    drivenRecord('meter', METER, 'SMA', null, { isOnline: true }),
    drivenRecord('charger', CHARGER, 'GO_E', { type: 'go-e', serial: '100001' }),
    drivenRecord('vehicle', CAR, 'TESLA', { type: 'teslamate', carId: '1', chargerId: CHARGER }),
    drivenRecord('hvac', ZONE, 'VAILLANT', { type: 'ebusd-vaillant-zone', timeZone: 'Europe/Berlin' }, { type: 'HEATING_CIRCUIT' }),
    {
      kind: 'tariff', id: TARIFF, userId: 'household-1', isOnline: false, staticData: { vendor: 'TIBBER', name: 'Dynamic price', currency: 'EUR' },
      driver: { type: 'tariff-topic', priceTopic: 'evcc/site/tariffGrid', currency: 'EUR' },
    },
  ];
}

interface Household {
  hub: MqttHub;
  watch: TopicWatch;
  goE: GoESim;
}

/** A hub with Home Assistant's discovery on, one device of every kind, its bridges simulated. */
async function household(t: TestContext, options: { broker?: TestBroker; dataDir?: string } = {}): Promise<Household> {
  const hub = await startMqttHub(t, { records: records(), config: { homeAssistant: { enabled: true } }, ...options });
  const watch = await TopicWatch.start(t, hub.broker.url, ['homeassistant/#', `${BASE}/#`]);
  const goE = new GoESim(hub.broker.url, '100001');
  const car = new TeslaMateSim(hub.broker.url, '1');
  const heating = new EbusdVaillantSim(hub.broker.url);
  const tariff = new TariffTopicSim(hub.broker.url);
  for (const sim of [goE, car, heating, tariff]) t.after(() => sim.stop());
  await Promise.all([goE.start(), car.start(), heating.start(), tariff.start()]);
  await goE.plugIn();
  // The meter's driver is not the point here: its readings are written as a Modbus poller writes them.
  hub.daemon.db.devices.updateState(METER, { power: 1.2, energyImported: 1234.5, energyExported: 567.8 }, true, Date.now());
  hub.daemon.events.emit({ type: 'update', device: hub.daemon.db.devices.get(METER)!, atMs: Date.now() });
  return { hub, watch, goE };
}

/**
 * A broker shared by the hubs of one test. After-hooks run in the order they were registered, so the
 * broker's would run before the hubs' own: its hook stops the hubs first (stop is idempotent).
 */
async function sharedBroker(t: TestContext): Promise<{ broker: TestBroker; hubs: MqttHub[] }> {
  const broker = await startBroker();
  const hubs: MqttHub[] = [];
  t.after(async () => {
    for (const hub of hubs) await hub.stop();
    await broker.stop();
  });
  return { broker, hubs };
}

const configured = (watch: TopicWatch, topic: string) => watch.until((m) => m.topic === topic && m.payload !== '', 15_000, `config on ${topic}`);

/** Units each device class takes (https://www.home-assistant.io/integrations/sensor/#device-class). */
const DOCUMENTED_UNITS: Record<string, readonly string[]> = {
  power: ['mW', 'W', 'kW', 'MW', 'GW', 'TW', 'BTU/h'],
  energy: ['J', 'kJ', 'MJ', 'GJ', 'mWh', 'Wh', 'kWh', 'MWh', 'GWh', 'TWh', 'cal', 'kcal', 'Mcal', 'Gcal'],
  energy_storage: ['J', 'kJ', 'MJ', 'GJ', 'mWh', 'Wh', 'kWh', 'MWh', 'GWh', 'TWh', 'cal', 'kcal', 'Mcal', 'Gcal'],
  battery: ['%'],
  temperature: ['°C', '°F', 'K'],
  current: ['mA', 'A'],
  distance: ['km', 'm', 'cm', 'mm', 'mi', 'nmi', 'yd', 'in', 'ft'],
};
/** State classes each device class allows (the sensor docs; energy: only totals, so statistics sum it). */
const DOCUMENTED_STATE_CLASSES: Record<string, readonly (string | undefined)[]> = {
  power: ['measurement'], energy: ['total', 'total_increasing'], energy_storage: ['measurement'], battery: ['measurement'],
  temperature: ['measurement'], current: ['measurement'], distance: ['measurement', 'total', 'total_increasing'], enum: [undefined],
};

/** The keys a discovery payload must carry whatever the entity (the MQTT discovery documentation). */
function assertDiscoveryBasics(seen: Seen, deviceId: string, name: string): Record<string, any> {
  const payload = JSON.parse(seen.payload);
  const [, component, node, objectId] = seen.topic.split('/');
  assert.equal(node, NODE);
  assert.match(objectId!, /^[a-zA-Z0-9_-]+$/, 'object_id: letters, digits, _ and - only');
  assert.equal(payload.unique_id, objectId);
  assert.equal(payload.origin.name, 'home-energy-hub');
  assert.equal(payload.origin.sw_version, '0.1.0');
  assert.deepEqual(payload.device.identifiers, [`${NODE}_${deviceId}`]);
  assert.equal(payload.device.name, name);
  assert.equal(payload.device.via_device, NODE);
  assert.equal(payload.availability_mode, 'all');
  assert.deepEqual(payload.availability, [
    { topic: `${BASE}/status`, payload_available: 'online', payload_not_available: 'offline' },
    { topic: availabilityTopic(deviceId), payload_available: 'online', payload_not_available: 'offline' },
  ]);
  if (component === 'sensor' || component === 'binary_sensor') {
    assert.equal(payload.state_topic, stateTopic(deviceId));
    const dc = payload.device_class as string | undefined;
    if (dc && DOCUMENTED_UNITS[dc]) assert.ok(DOCUMENTED_UNITS[dc]!.includes(payload.unit_of_measurement), `${seen.topic}: ${payload.unit_of_measurement} is a unit of ${dc}`);
    if (dc && DOCUMENTED_STATE_CLASSES[dc]) assert.ok(DOCUMENTED_STATE_CLASSES[dc]!.includes(payload.state_class), `${seen.topic}: state_class ${payload.state_class} fits ${dc}`);
    if (dc === 'enum') {
      assert.ok(Array.isArray(payload.options) && payload.options.length > 0, 'an enum sensor lists its options');
      assert.equal(payload.unit_of_measurement, undefined, 'an enum sensor has no unit');
    }
  }
  if (component === 'button' || component === 'number') assert.match(payload.command_topic, new RegExp(`^${BASE}/${deviceId}/[a-z_]+/set$`));
  return payload;
}

// These two read back what stays retained on the broker, as mosquitto (Home Assistant's usual
// broker) keeps it; on aedes, the in-process stand-in when mosquitto is missing, what they read back
// differs (older states, topics not yet cleared), so they need mosquitto.
const needsMosquitto = { skip: skipWithout('mosquitto') };

test('home assistant: every kind is discovered, retained, with the components, classes and units Home Assistant documents', needsMosquitto, async (t) => {
  const { hub, watch } = await household(t);
  // The energy dashboard's grid sensors: energy, total_increasing, kWh (validate.py's ENERGY_USAGE_UNITS).
  const imported = await configured(watch, config('sensor', METER, 'energy_imported'));
  assert.deepEqual(assertDiscoveryBasics(imported, METER, 'SMA meter'), {
    name: 'Energy imported',
    unique_id: `${NODE}_${METER}_energy_imported`,
    state_topic: stateTopic(METER),
    value_template: '{{ value_json.energy_imported }}',
    device_class: 'energy', state_class: 'total_increasing', unit_of_measurement: 'kWh', suggested_display_precision: 2,
    availability: [
      { topic: `${BASE}/status`, payload_available: 'online', payload_not_available: 'offline' },
      { topic: availabilityTopic(METER), payload_available: 'online', payload_not_available: 'offline' },
    ],
    availability_mode: 'all',
    device: { identifiers: [`${NODE}_${METER}`], name: 'SMA meter', manufacturer: 'SMA', model: 'test', via_device: NODE },
    origin: { name: 'home-energy-hub', sw_version: '0.1.0' },
  });
  const exported = JSON.parse((await configured(watch, config('sensor', METER, 'energy_exported'))).payload);
  assert.deepEqual([exported.device_class, exported.state_class, exported.unit_of_measurement], ['energy', 'total_increasing', 'kWh']);
  const gridPower = JSON.parse((await configured(watch, config('sensor', METER, 'grid_power'))).payload);
  assert.deepEqual([gridPower.device_class, gridPower.state_class, gridPower.unit_of_measurement], ['power', 'measurement', 'kW']);

  // Battery: battery %, two power magnitudes, an enum of its charging states, its capacity as stored energy.
  const expectedBattery: Record<string, [string, string, string | undefined, string | undefined]> = {
    state_of_charge: ['sensor', 'battery', 'measurement', '%'],
    charge_power: ['sensor', 'power', 'measurement', 'kW'],
    discharge_power: ['sensor', 'power', 'measurement', 'kW'],
    charging_state: ['sensor', 'enum', undefined, undefined],
    capacity: ['sensor', 'energy_storage', 'measurement', 'kWh'],
  };
  for (const [key, [component, dc, sc, unit]] of Object.entries(expectedBattery)) {
    const payload = assertDiscoveryBasics(await configured(watch, config(component, BATTERY, key)), BATTERY, 'Garage battery');
    assert.deepEqual([payload.device_class, payload.state_class, payload.unit_of_measurement], [dc, sc, unit], key);
  }
  const batteryDevice = JSON.parse(watch.latest.get(config('sensor', BATTERY, 'capacity'))!).device;
  assert.deepEqual(batteryDevice, { identifiers: [`${NODE}_${BATTERY}`], name: 'Garage battery', manufacturer: 'Fronius', model: 'BYD HVS 10.2', via_device: NODE });

  // PV inverter, charger, tariff.
  const solar = assertDiscoveryBasics(await configured(watch, config('sensor', PV, 'solar_power')), PV, 'Roof');
  assert.deepEqual([solar.device_class, solar.state_class, solar.unit_of_measurement], ['power', 'measurement', 'kW']);
  const pvState = assertDiscoveryBasics(await configured(watch, config('sensor', PV, 'state')), PV, 'Roof');
  assert.deepEqual(pvState.options, ['PRODUCING', 'IDLE', 'FAULT']);
  for (const [component, key, dc] of [['sensor', 'charging_state', 'enum'], ['sensor', 'charge_power', 'power'], ['binary_sensor', 'plugged', 'plug'], ['sensor', 'offered_current', 'current']] as const) {
    const payload = assertDiscoveryBasics(await configured(watch, config(component, CHARGER, key)), CHARGER, 'GO_E charger');
    assert.equal(payload.device_class, dc);
  }
  assert.equal(JSON.parse(watch.latest.get(config('sensor', CHARGER, 'charge_power'))!).device.manufacturer, 'go-e');
  // A price per kWh: no device class (monetary takes a bare currency), a unit the energy dashboard takes as a price.
  const price = assertDiscoveryBasics(await configured(watch, config('sensor', TARIFF, 'price')), TARIFF, 'Dynamic price');
  assert.equal(price.device_class, undefined);
  assert.equal(price.unit_of_measurement, 'EUR/kWh');
  assert.ok(price.unit_of_measurement.endsWith('/kWh'));

  // Vehicle: what TeslaMate reports (state of charge, range…), and the charging its charger can do.
  const soc = assertDiscoveryBasics(await configured(watch, config('sensor', CAR, 'state_of_charge')), CAR, 'TESLA vehicle');
  assert.deepEqual([soc.device_class, soc.unit_of_measurement], ['battery', '%']);
  const range = assertDiscoveryBasics(await configured(watch, config('sensor', CAR, 'range')), CAR, 'TESLA vehicle');
  assert.deepEqual([range.device_class, range.unit_of_measurement], ['distance', 'km']);
  const start = assertDiscoveryBasics(await configured(watch, config('button', CAR, 'charging_start')), CAR, 'TESLA vehicle');
  assert.equal(start.command_topic, `${BASE}/${CAR}/charging_start/set`);
  assert.equal(start.payload_press, undefined, 'Home Assistant\'s default PRESS is what is sent');
  await configured(watch, config('button', CAR, 'charging_stop'));
  const current = assertDiscoveryBasics(await configured(watch, config('number', CAR, 'charging_current')), CAR, 'TESLA vehicle');
  // go-e's amp takes 6 A up to 32 A.
  assert.deepEqual([current.min, current.max, current.step, current.unit_of_measurement, current.device_class], [6, 32, 1, 'A', 'current']);

  // HVAC: a climate entity (name null: it takes the device's name), with what the ebusd zone can do.
  const climate = assertDiscoveryBasics(await configured(watch, config('climate', ZONE, 'climate')), ZONE, 'VAILLANT hvac');
  assert.deepEqual(climate, {
    ...climate,
    name: null,
    modes: ['auto', 'heat', 'off'],
    temperature_unit: 'C', precision: 0.1, temp_step: 0.5, min_temp: 5, max_temp: 30,
    current_temperature_topic: stateTopic(ZONE), current_temperature_template: '{{ value_json.current_temperature }}',
    temperature_state_topic: stateTopic(ZONE), temperature_state_template: '{{ value_json.target_temperature }}',
    mode_state_topic: stateTopic(ZONE), mode_state_template: '{{ value_json.mode }}',
    temperature_command_topic: `${BASE}/${ZONE}/temperature/set`,
    mode_command_topic: `${BASE}/${ZONE}/mode/set`,
  });
  assert.ok(climate.modes.every((mode: string) => ['auto', 'off', 'cool', 'heat', 'dry', 'fan_only'].includes(mode)), 'climate.mqtt modes');

  // Every device has a last-updated timestamp, shown while the hub runs, even while the device is offline.
  const lastUpdated = JSON.parse((await configured(watch, config('sensor', CAR, 'last_updated'))).payload);
  assert.deepEqual([lastUpdated.device_class, lastUpdated.entity_category, lastUpdated.unit_of_measurement], ['timestamp', 'diagnostic', undefined]);
  assert.deepEqual(lastUpdated.availability, [{ topic: `${BASE}/status`, payload_available: 'online', payload_not_available: 'offline' }]);

  // The hub itself, which every device is `via_device` of.
  const hubStatus = JSON.parse((await configured(watch, `homeassistant/binary_sensor/${NODE}/${NODE}_status/config`)).payload);
  assert.deepEqual([hubStatus.device.identifiers, hubStatus.device_class, hubStatus.state_topic], [[NODE], 'connectivity', `${BASE}/status`]);

  // States: one JSON per device, in the entities' units.
  await watch.until((m) => m.topic === stateTopic(METER) && m.payload.includes('1234.5'), 10_000, 'the meter\'s state');
  const { last_updated: meterUpdated, ...meter } = watch.json(stateTopic(METER));
  assert.deepEqual(meter, { grid_power: 1.2, energy_imported: 1234.5, energy_exported: 567.8 });
  assert.match(meterUpdated, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, 'an ISO 8601 time with its zone');
  const { last_updated: batteryUpdated, ...battery } = watch.json(stateTopic(BATTERY));
  assert.deepEqual(battery, { state_of_charge: 64, charge_power: 0, discharge_power: 0.8, charging_state: 'DISCHARGING', capacity: 10.24 });
  assert.equal(batteryUpdated, '2026-11-01T00:00:00Z');
  const quoted = await watch.until((m) => m.topic === stateTopic(TARIFF) && typeof JSON.parse(m.payload || '{}')['price'] === 'number', 10_000, 'the price');
  assert.equal(JSON.parse(quoted.payload)['price'], hub.device(TARIFF)!.state!['pricePerKwh']);
  await watch.until((m) => m.topic === stateTopic(ZONE) && m.payload.includes('"mode":"auto"'), 10_000, 'the zone\'s state');
  const zone = watch.json(stateTopic(ZONE));
  assert.deepEqual([zone['current_temperature'], zone['target_temperature'], zone['mode']], [20.5, 21, 'auto']);
  await watch.until((m) => m.topic === availabilityTopic(CHARGER) && m.payload === 'online', 10_000, 'the charger online');
  assert.equal(watch.latest.get(`${BASE}/status`), 'online');

  // Retained: a Home Assistant that subscribes later finds every config, state and availability.
  const later = await TopicWatch.start(t, hub.broker.url, ['homeassistant/#', `${BASE}/#`]);
  const climateAgain = await later.until((m) => m.topic === config('climate', ZONE, 'climate'));
  assert.equal(climateAgain.retain, true);
  assert.equal((await later.until((m) => m.topic === stateTopic(METER))).retain, true);
  assert.equal((await later.until((m) => m.topic === `${BASE}/status`)).payload, 'online');
});

test('home assistant: commands from its command topics are the API\'s commands: stored PENDING, carried out, listed', async (t) => {
  // A command left retained on the broker is not carried out at every connection of the hub.
  const { broker, hubs } = await sharedBroker(t);
  const early = await TopicWatch.start(t, broker.url, []);
  await early.client.publishAsync(`${BASE}/${ZONE}/temperature/set`, '19', { retain: true, qos: 1 });
  const { hub, watch } = await household(t, { broker });
  hubs.push(hub);
  await configured(watch, config('climate', ZONE, 'climate'));
  await configured(watch, config('button', CAR, 'charging_stop'));
  const worker = hub.daemon.worker!;
  const handed: { command: CommandRecord; stored: string | undefined }[] = [];
  const enqueue = worker.enqueue.bind(worker);
  worker.enqueue = (command) => {
    handed.push({ command, stored: hub.daemon.db.commands.get(command.id)?.state });
    enqueue(command);
  };
  const done = (type: string) => hub.event((e) => e.type === 'command' && e.command.type === type && e.command.state !== 'PENDING', 30_000);

  const setpoint = done('SET_TEMPERATURE');
  await watch.client.publishAsync(`${BASE}/${ZONE}/temperature/set`, '22.5');
  const executed = await setpoint;
  assert.ok(executed.type === 'command');
  assert.equal(executed.command.state, 'EXECUTED', executed.command.failedReason ?? '');
  assert.deepEqual(executed.command.payload, { temperature: 22.5 });
  assert.equal(handed[0]!.stored, 'PENDING', 'stored PENDING before the worker had it');
  // The zone's new setpoint reaches Home Assistant through the state topic.
  await watch.until((m) => m.topic === stateTopic(ZONE) && JSON.parse(m.payload || '{}')['target_temperature'] === 22.5);

  const mode = done('SET_MODE');
  await watch.client.publishAsync(`${BASE}/${ZONE}/mode/set`, 'off');
  const off = await mode;
  assert.ok(off.type === 'command');
  assert.deepEqual([off.command.state, off.command.payload], ['EXECUTED', { mode: 'OFF' }]);
  await watch.until((m) => m.topic === stateTopic(ZONE) && m.payload.includes('"mode":"off"'));

  // The vehicle's stop goes through the go-e charger its binding names.
  const stop = done('CHARGING_STOP');
  await watch.client.publishAsync(`${BASE}/${CAR}/charging_stop/set`, 'PRESS');
  const stopped = await stop;
  assert.ok(stopped.type === 'command');
  assert.deepEqual([stopped.command.state, stopped.command.deviceId], ['EXECUTED', CAR]);

  const amps = done('SET_CHARGING_CURRENT');
  await watch.client.publishAsync(`${BASE}/${CAR}/charging_current/set`, '10');
  const limited = await amps;
  assert.ok(limited.type === 'command');
  assert.deepEqual([limited.command.state, limited.command.payload], ['EXECUTED', { current: 10 }]);

  // Listed by the API with their outcome, like commands the API created.
  const listed = (await (await hub.api(`/users/household-1/hvacs/${ZONE}/commands?state=ALL`)).json()) as { type: string; state: string }[];
  assert.deepEqual(listed.map((c) => [c.type, c.state]), [['SET_TEMPERATURE', 'EXECUTED'], ['SET_MODE', 'EXECUTED']]);
  const carCommands = (await (await hub.api(`/users/household-1/vehicles/${CAR}/commands?state=ALL`)).json()) as { type: string; state: string }[];
  assert.deepEqual(carCommands.map((c) => [c.type, c.state]), [['CHARGING_STOP', 'EXECUTED'], ['SET_CHARGING_CURRENT', 'EXECUTED']]);

  // What the device is not offered, and retained commands, create nothing.
  assert.ok(!handed.some((h) => (h.command.payload as { temperature?: number })?.temperature === 19), 'the retained command was not taken');
  const before = handed.length;
  await watch.client.publishAsync(`${BASE}/${ZONE}/mode/set`, 'cool');
  await watch.client.publishAsync(`${BASE}/${ZONE}/charging_start/set`, 'PRESS');
  await watch.client.publishAsync(`${BASE}/${CAR}/temperature/set`, '20');
  // A last, valid command: once it is handed over, the ones before it were seen and refused.
  const last = done('SET_TEMPERATURE');
  await watch.client.publishAsync(`${BASE}/${ZONE}/temperature/set`, '21.5');
  await last;
  assert.deepEqual(handed.slice(before).map((h) => [h.command.type, h.command.payload]), [['SET_TEMPERATURE', { temperature: 21.5 }]]);
});

test('home assistant: a deleted device disappears, a renamed one is renamed, the birth message brings everything back', async (t) => {
  const { hub, watch } = await household(t);
  const carConfigs = [config('sensor', CAR, 'state_of_charge'), config('button', CAR, 'charging_stop'), config('number', CAR, 'charging_current')];
  for (const topic of carConfigs) await configured(watch, topic);
  await configured(watch, config('sensor', METER, 'grid_power'));

  // Deleted through the API: every config of the device emptied (retained), its state and availability too.
  const emptied = [...carConfigs, stateTopic(CAR), availabilityTopic(CAR)].map((topic) => watch.next((m) => m.topic === topic && m.payload === '', 10_000, `empty ${topic}`));
  assert.equal((await hub.api(`/users/household-1/vehicles/${CAR}`, { method: 'DELETE' })).status, 200);
  await Promise.all(emptied);
  const later = await TopicWatch.start(t, hub.broker.url, ['homeassistant/#']);
  await later.until((m) => m.topic === config('sensor', METER, 'grid_power'));
  assert.ok(!later.seen.some((m) => m.topic.includes(CAR) && m.payload !== ''), 'no retained config of the deleted vehicle');

  // Renamed by another process (the hub command): the device's configs carry the new name.
  const cli = Store.open(join(hub.dataDir, 'hub.db'));
  t.after(() => cli.close());
  const renamed = prepareImport([{ ...(records()[2] as object), staticData: { vendor: 'SMA', name: 'Grid meter', model: 'test' } }], Date.now(), (id) => cli.devices.get(id)?.kind);
  cli.importDevices(renamed.devices, renamed.images, Date.now());
  const newName = watch.next((m) => m.topic === config('sensor', METER, 'grid_power') && m.payload.includes('"name":"Grid meter"'));
  hub.daemon.homeAssistant!.resync(); // what its timer does every minute
  await newName;

  // Home Assistant restarted: its birth message, and the hub publishes every config again.
  const again = watch.next((m) => m.topic === config('sensor', BATTERY, 'state_of_charge') && m.payload !== '' && !m.retain);
  await watch.client.publishAsync('homeassistant/status', 'online');
  await again;
});

test('home assistant: the hub is shown unavailable by its last will when its connection dies, and after a clean stop', async (t) => {
  const { hub, watch } = await household(t);
  await watch.until((m) => m.topic === `${BASE}/status` && m.payload === 'online');
  const died = watch.next((m) => m.topic === `${BASE}/status` && m.payload === 'offline', 15_000, 'the last will');
  const back = watch.next((m) => m.topic === `${BASE}/status` && m.payload === 'online', 30_000, 'online after the reconnection');
  (hub.daemon.broker!.client!.stream as unknown as Socket).destroy();
  await died;
  await back;
  const stopped = watch.next((m) => m.topic === `${BASE}/status` && m.payload === 'offline', 15_000, 'offline at a clean stop');
  await hub.stop();
  await stopped;
});

test('home assistant: turned off, the hub removes what it published', needsMosquitto, async (t) => {
  const { broker, hubs } = await sharedBroker(t);
  const first = await household(t, { broker });
  hubs.push(first.hub);
  const soc = config('sensor', BATTERY, 'state_of_charge');
  await configured(first.watch, soc);
  await first.watch.until((m) => m.topic === stateTopic(BATTERY));
  await first.hub.stop();

  const watch = await TopicWatch.start(t, broker.url, ['homeassistant/#', `${BASE}/#`]);
  await watch.until((m) => m.topic === soc && m.payload !== '');
  const cleared = [soc, stateTopic(BATTERY), `${BASE}/status`].map((topic) => watch.next((m) => m.topic === topic && m.payload === '', 10_000, `empty ${topic}`));
  const off = await startMqttHub(t, { broker, records: records(), config: { homeAssistant: { enabled: false } } });
  hubs.push(off);
  await Promise.all(cleared); 
  assert.equal(off.daemon.homeAssistant, undefined);
  const later = await TopicWatch.start(t, broker.url, ['homeassistant/#', `${BASE}/#`]);
  // Something retained that is not the hub's stays: the check ends on it.
  await watch.client.publishAsync('homeassistant/sensor/someone_else/x/config', '{}', { retain: true, qos: 1 });
  t.after(() => watch.client.publishAsync('homeassistant/sensor/someone_else/x/config', '', { retain: true, qos: 1 }).catch(() => {}));
  await later.until((m) => m.topic === 'homeassistant/sensor/someone_else/x/config');
  assert.deepEqual(later.seen.filter((m) => m.payload !== '' && m.topic !== 'homeassistant/sensor/someone_else/x/config').map((m) => m.topic), []);
});
