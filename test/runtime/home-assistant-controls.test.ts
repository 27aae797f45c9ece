// What Home Assistant is offered for a device and how its command messages become the hub's
// commands, from the drivers' own command shapes: only the modes a driver accepts, the setpoint range
// it takes, nothing it cannot do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DeviceRecord } from '../../src/domain/device.ts';
import type { CommandType } from '../../src/domain/vocabulary.ts';
import type { CommandShape } from '../../src/runtime/commands/executor.ts';
import { climateState, controlsOf } from '../../src/runtime/home-assistant/controls.ts';
import { haCommand } from '../../src/runtime/home-assistant/ha-commands.ts';
import { offeredSensors } from '../../src/runtime/home-assistant/sensors.ts';
import { deviceDiscovery, deviceState, HaTopics } from '../../src/runtime/home-assistant/discovery.ts';
import espaltherma from '../../drivers/mqtt/espaltherma.ts';

const hvac = (state: Record<string, unknown>, hvacType: DeviceRecord['hvacType'] = 'HEATING_CIRCUIT'): DeviceRecord => ({
  id: 'h1', kind: 'hvac', userId: 'u', vendor: 'DAIKIN', name: 'Heat pump', model: 'Altherma', isOnline: true, lastUpdatedMs: null,
  locationId: null, hvacType, staticData: {}, state, driver: { type: 'espaltherma' }, createdAtMs: 0,
});

/** The shapes the MQTT runtime reports for ESPAltherma's commands (its definition, as data). */
function espalthermaOffers(): Map<CommandType, CommandShape> {
  const out = new Map<CommandType, CommandShape>();
  for (const [type, spec] of Object.entries(espaltherma.commands ?? {})) {
    out.set(type as CommandType, { value: spec.value, stateField: spec.confirm.by === 'state' ? spec.confirm.field : undefined });
  }
  return out;
}

test('home assistant controls: a climate with the modes the driver accepts, read back through its state field', () => {
  const offers = espalthermaOffers();
  const [climate] = controlsOf(hvac({ thermostat: 'ON', roomTemperature: 20.5 }), offers);
  assert.equal(climate!.component, 'climate');
  assert.deepEqual(climate!.config['modes'], ['off', 'heat', 'auto']);
  assert.deepEqual(climate!.commands, ['mode'], 'ESPAltherma takes no setpoint: none is offered');
  assert.deepEqual(climateState(hvac({ thermostat: 'ON', roomTemperature: 20.5 }), offers), { current_temperature: 20.5, target_temperature: null, mode: 'heat' });
  assert.equal(climateState(hvac({ thermostat: 'OFF' }), offers)['mode'], 'off');
  assert.deepEqual(haCommand('mode', 'off', offers), { type: 'SET_MODE', payload: { mode: 'OFF' } });
  assert.match(haCommand('mode', 'cool', offers) as string, /no mode "cool"/);
  assert.match(haCommand('temperature', '21', offers) as string, /SET_TEMPERATURE is not offered/);
});

test('home assistant sensors: ESPAltherma\'s leaving water temperature (R1T) is the flow temperature Home Assistant shows', () => {
  // The field ESPAltherma's definition stores the R1T label under, whatever the hub calls it.
  const fields = espaltherma.state.flatMap((s) => Object.entries(s.fields));
  const [leaving] = fields.find(([, spec]) => JSON.stringify(spec).includes('Leaving water temp. before BUH (R1T)'))!;
  const device = hvac({ [leaving]: 35.1, outsideTemperature: -3.5 });
  const flow = offeredSensors(device).find((spec) => spec.key === 'flow_temperature');
  assert.ok(flow, 'the flow temperature sensor is offered once the unit reports it');
  assert.equal(flow.read(device), 35.1);
});

/**
 * Home Assistant's rule (homeassistant/components/mqtt/climate.py, MqttClimate._setup_from_config):
 * the climate supports TARGET_TEMPERATURE, and shows a setpoint dial that can be turned, as soon as
 * temperature_state_topic or temperature_command_topic is configured.
 */
const haShowsSetpointDial = (config: Record<string, unknown>) => config['temperature_state_topic'] !== undefined || config['temperature_command_topic'] !== undefined;

test('home assistant controls: a unit without a writable setpoint gets no setpoint dial (Home Assistant\'s rule) but a setpoint sensor; one with it gets the dial', () => {
  const topics = new HaTopics({ discoveryPrefix: 'homeassistant', nodeId: 'home_energy_hub', topicPrefix: 'home-energy-hub/ha' });
  const origin = { name: 'home-energy-hub' };
  const espOffers = espalthermaOffers();
  const heatPump = hvac({ thermostat: 'ON', roomTemperature: 20.5, targetTemperature: 35 });
  const entries = deviceDiscovery(topics, heatPump, espOffers, origin);
  const climate = entries.find((e) => e.topic.startsWith('homeassistant/climate/'))!.payload;
  assert.equal(haShowsSetpointDial(climate), false, 'ESPAltherma writes no setpoint: a dial would send changes nowhere');
  const setpoint = entries.find((e) => e.topic === 'homeassistant/sensor/home_energy_hub/home_energy_hub_h1_setpoint/config')?.payload;
  assert.ok(setpoint, 'the setpoint the unit reports is a sensor');
  assert.deepEqual([setpoint['state_topic'], setpoint['value_template'], setpoint['device_class'], setpoint['unit_of_measurement']],
    [topics.state('h1'), '{{ value_json.target_temperature }}', 'temperature', '°C']);
  assert.equal(deviceState(heatPump, espOffers)['target_temperature'], 35);
  // No setpoint reported: no sensor that would read unknown forever.
  assert.ok(!deviceDiscovery(topics, hvac({ thermostat: 'ON' }), espOffers, origin).some((e) => e.topic.includes('_setpoint/')));

  // A driver that writes setpoints: the dial, with its command topic, and no separate sensor.
  const writable = new Map<CommandType, CommandShape>([['SET_TEMPERATURE', { value: { from: 'payload', field: 'temperature', min: 5, max: 30 } }]]);
  const zone = deviceDiscovery(topics, heatPump, writable, origin);
  const dial = zone.find((e) => e.topic.startsWith('homeassistant/climate/'))!.payload;
  assert.equal(haShowsSetpointDial(dial), true);
  assert.equal(dial['temperature_command_topic'], topics.command('h1', 'temperature'));
  assert.ok(!zone.some((e) => e.topic.includes('_setpoint/')));
});

test('home assistant controls: a unit that takes no command shows the mode it runs in and offers nothing', () => {
  const none = new Map<CommandType, CommandShape>();
  const [climate] = controlsOf(hvac({ roomTemperature: 19 }), none);
  assert.deepEqual([climate!.config['modes'], climate!.commands], [['heat'], []]);
  assert.equal(climateState(hvac({}, 'AC'), none)['mode'], 'auto');
  assert.match(haCommand('charging_stop', 'PRESS', none) as string, /not offered/);
});

test('home assistant controls: a vehicle\'s charging controls follow what its charger can do', () => {
  const car: DeviceRecord = { ...hvac({}), kind: 'vehicle', hvacType: null };
  assert.deepEqual(controlsOf(car, new Map()), []);
  const offers = new Map<CommandType, CommandShape>([
    ['CHARGING_STOP', { value: { from: 'constant', value: 1 } }],
    ['SET_CHARGING_CURRENT', { value: { from: 'payload', field: 'current', min: 6, max: 16 } }],
  ]);
  const controls = controlsOf(car, offers);
  assert.deepEqual(controls.map((c) => [c.component, c.key]), [['button', 'charging_stop'], ['number', 'charging_current']]);
  assert.deepEqual([controls[1]!.config['min'], controls[1]!.config['max']], [6, 16]);
  assert.deepEqual(haCommand('charging_current', '10', offers), { type: 'SET_CHARGING_CURRENT', payload: { current: 10 } });
  assert.match(haCommand('charging_current', 'lots', offers) as string, /needs a number/);
  assert.deepEqual(haCommand('charging_stop', 'PRESS', offers), { type: 'CHARGING_STOP' });
  assert.match(haCommand('charging_start', 'PRESS', offers) as string, /not offered/);
});

test('home assistant controls: a Daikin AC over HTTP is a climate with its modes and its setpoint range', async () => {
  const { default: daikin } = await import('../../drivers/http/daikin-brp069.ts');
  const { httpCommandShape } = await import('../../src/runtime/http/http-runtime.ts');
  // The shapes the HTTP runtime reports (http-runtime.ts commandShape), from the definition as data.
  const offers = new Map<CommandType, CommandShape>();
  for (const [type, spec] of Object.entries(daikin.commands ?? {})) offers.set(type as CommandType, httpCommandShape(spec!));
  const ac: DeviceRecord = { ...hvac({ mode: 'COOL', targetTemperature: 24, roomTemperature: 26.5 }, 'AC'), driver: { type: daikin.type } };
  const [climate] = controlsOf(ac, offers);
  assert.equal(climate!.component, 'climate');
  assert.deepEqual([...(climate!.config['modes'] as string[])].sort(), ['auto', 'cool', 'dry', 'heat', 'off']);
  assert.deepEqual([climate!.config['min_temp'], climate!.config['max_temp']], [10, 32]);
  assert.deepEqual([...climate!.commands].sort(), ['mode', 'temperature']);
  assert.deepEqual(haCommand('temperature', '22.5', offers), { type: 'SET_TEMPERATURE', payload: { temperature: 22.5 } });
});

test('home assistant controls: a Daikin AC over HTTP shows the mode it is in, as its state field holds it', async () => {
  const { httpCommandShape } = await import('../../src/runtime/http/http-runtime.ts');
  for (const type of ['daikin-brp069', 'daikin-brp084']) {
    const { default: definition } = await import(`../../drivers/http/${type}.ts`);
    // The shapes the HTTP runtime reports for the definition's commands.
    const offers = new Map<CommandType, CommandShape>();
    for (const [command, spec] of Object.entries(definition.commands ?? {})) offers.set(command as CommandType, httpCommandShape(spec as never));
    // The HTTP runtime stores the mode as the hub's word (COOL), not the adapter's (3, 0200).
    const ac: DeviceRecord = { ...hvac({ mode: 'COOL', power: 'ON', targetTemperature: 24 }, 'AC'), driver: { type, host: '127.0.0.1' } };
    assert.equal(climateState(ac, offers)['mode'], 'cool', type);
    assert.equal(climateState({ ...ac, state: { mode: 'HEAT' } }, offers)['mode'], 'heat', type);
    assert.equal(climateState({ ...ac, state: { mode: 'AUTO' } }, offers)['mode'], 'auto', type);
    assert.equal(climateState({ ...ac, state: { mode: 'OFF' } }, offers)['mode'], 'off', type);
    assert.equal(climateState({ ...ac, state: { mode: 'FAN' } }, offers)['mode'], null, `${type}: a mode Home Assistant is not offered is unknown`);
  }
});

test('home assistant controls: a setpoint or a charging current outside the range offered is refused, never stored as a command', async () => {
  const { default: daikin } = await import('../../drivers/http/daikin-brp069.ts');
  const { httpCommandShape } = await import('../../src/runtime/http/http-runtime.ts');
  const offers = new Map<CommandType, CommandShape>();
  for (const [type, spec] of Object.entries(daikin.commands ?? {})) offers.set(type as CommandType, httpCommandShape(spec!));
  assert.match(haCommand('temperature', '40', offers) as string, /temperature 40 is outside what the device accepts \(10 to 32\)/);
  assert.match(haCommand('temperature', '9.5', offers) as string, /outside/);
  assert.deepEqual(haCommand('temperature', '32', offers), { type: 'SET_TEMPERATURE', payload: { temperature: 32 } });
  const car = new Map<CommandType, CommandShape>([['SET_CHARGING_CURRENT', { value: { from: 'payload', field: 'current', min: 6, max: 16 } }]]);
  assert.match(haCommand('charging_current', '99', car) as string, /current 99 is outside what the device accepts \(6 to 16\)/);
  assert.deepEqual(haCommand('charging_current', '16', car), { type: 'SET_CHARGING_CURRENT', payload: { current: 16 } });
});
