// What Home Assistant may command, and how its commands become the hub's: an HVAC unit is a
// `climate` entity (setpoint and mode, when its driver takes SET_TEMPERATURE and SET_MODE), a vehicle
// has `button`s to start and stop charging and a `number` for the charging current. Only commands the
// device's driver (or the charger the vehicle charges at) can carry out are offered
// (CommandWorker.offers); bounds and accepted modes are the driver's own.
//
// Keys follow Home Assistant's MQTT climate, button and number documentation
// (https://www.home-assistant.io/integrations/climate.mqtt/, /button.mqtt/, /number.mqtt/):
// climate `modes` is a subset of auto, off, cool, heat, dry, fan_only; `temperature_unit` C; a button
// sends `payload_press` (PRESS by default) on its `command_topic`; a number sends the value as text.
import type { DeviceRecord } from '../../domain/device.ts';
import type { CommandType } from '../../domain/vocabulary.ts';
import type { CommandShape } from '../commands/executor.ts';
import { currentMode, type Offers } from '../commands/hvac-modes.ts';

/** The hub's modes (SET_MODE's `mode`) as Home Assistant's HVAC modes; REDUCED has none there. */
const HA_MODE: Record<string, string> = { HEAT: 'heat', COOL: 'cool', DRY: 'dry', AUTO: 'auto', OFF: 'off' };

export interface Control {
  component: 'climate' | 'button' | 'number' | 'sensor';
  key: string;
  name: string | null;
  /** The names of its command topics (keys of COMMAND_OF_TOPIC). */
  commands: readonly string[];
  /** Keys other than the topics, which discovery fills in. */
  config: Record<string, unknown>;
  /** State topic templates: `value_json.<key>`; the keys are in the device's state JSON. */
  stateKeys: Record<string, string>;
}

export type { Offers };

/** The command topics' names (`<base>/<device id>/<name>/set`) and the command each one creates. */
export const COMMAND_OF_TOPIC: Readonly<Record<string, CommandType>> = {
  temperature: 'SET_TEMPERATURE',
  mode: 'SET_MODE',
  charging_start: 'CHARGING_START',
  charging_stop: 'CHARGING_STOP',
  charging_current: 'SET_CHARGING_CURRENT',
};

/** The controls a device is offered, given the commands it can carry out. */
export function controlsOf(device: DeviceRecord, offers: Offers): Control[] {
  if (device.kind === 'hvac') {
    // Home Assistant shows a climate's setpoint dial, and lets it be turned, as soon as either
    // temperature_state_topic or temperature_command_topic is set (homeassistant/components/mqtt/
    // climate.py: TARGET_TEMPERATURE is supported when either topic is configured). A unit whose
    // driver cannot write a setpoint gets no temperature topics on its climate; the setpoint it
    // reports is a read-only sensor beside it.
    const out = [climate(device, offers)];
    if (!offers.has('SET_TEMPERATURE') && climateState(device, offers)['target_temperature'] !== null) out.push(SETPOINT_SENSOR);
    return out;
  }
  if (device.kind !== 'vehicle') return [];
  const out: Control[] = [];
  if (offers.has('CHARGING_START')) out.push({ component: 'button', key: 'charging_start', name: 'Start charging', commands: ['charging_start'], config: {}, stateKeys: {} });
  if (offers.has('CHARGING_STOP')) out.push({ component: 'button', key: 'charging_stop', name: 'Stop charging', commands: ['charging_stop'], config: {}, stateKeys: {} });
  const current = offers.get('SET_CHARGING_CURRENT');
  if (current) {
    const value = current.value?.from === 'payload' ? current.value : undefined;
    out.push({
      component: 'number', key: 'charging_current', name: 'Charging current', commands: ['charging_current'], stateKeys: {},
      // 6 A is the least IEC 61851 lets a charger offer; 32 A the most of a three-phase wallbox.
      config: { min: value?.min ?? 6, max: value?.max ?? 32, step: 1, unit_of_measurement: 'A', device_class: 'current', mode: 'box' },
    });
  }
  return out;
}

function climate(device: DeviceRecord, offers: Offers): Control {
  const setpoint = offers.get('SET_TEMPERATURE');
  const modeShape = offers.get('SET_MODE');
  const range = setpoint?.value?.from === 'payload' ? setpoint.value : undefined;
  const config: Record<string, unknown> = {
    modes: climateModes(device, modeShape), temperature_unit: 'C', precision: 0.1, temp_step: 0.5,
  };
  if (range?.min !== undefined) config['min_temp'] = range.min;
  if (range?.max !== undefined) config['max_temp'] = range.max;
  const commands: string[] = [];
  if (setpoint) commands.push('temperature');
  if (modeShape) commands.push('mode');
  return {
    component: 'climate', key: 'climate', name: null, commands, config,
    stateKeys: setpoint
      ? { current_temperature: 'current_temperature', temperature_state: 'target_temperature', mode_state: 'mode' }
      : { current_temperature: 'current_temperature', mode_state: 'mode' },
  };
}

/** The setpoint of a unit that takes none from the hub, as a temperature sensor (sensor.mqtt). */
const SETPOINT_SENSOR: Control = {
  component: 'sensor', key: 'setpoint', name: 'Setpoint', commands: [],
  config: { device_class: 'temperature', unit_of_measurement: '°C', state_class: 'measurement' },
  stateKeys: { value: 'target_temperature' },
};

/** The modes shown: those the driver accepts, or the one the unit runs in when it takes none. */
function climateModes(device: DeviceRecord, shape: CommandShape | undefined): string[] {
  if (shape?.value?.from === 'payload-enum') {
    const modes = Object.keys(shape.value.map).map((mode) => HA_MODE[mode]).filter((mode): mode is string => mode !== undefined);
    return [...new Set(modes)];
  }
  return [fixedMode(device)];
}

function fixedMode(device: DeviceRecord): string {
  return device.hvacType === 'AC' ? 'auto' : 'heat';
}

/** Home Assistant's mode (`heat`…) as the hub's SET_MODE payload; undefined when not accepted. */
export function hubMode(haMode: string, shape: CommandShape | undefined): string | undefined {
  const mode = Object.entries(HA_MODE).find(([, ha]) => ha === haMode)?.[0];
  if (!mode || shape?.value?.from !== 'payload-enum' || !(mode in shape.value.map)) return undefined;
  return mode;
}

/** The climate's values in the device's state JSON: room (or water) temperature, setpoint, mode. */
export function climateState(device: DeviceRecord, offers: Offers): Record<string, unknown> {
  const state = device.state ?? {};
  const first = (...names: string[]) => names.map((n) => state[n]).find((v) => typeof v === 'number' && Number.isFinite(v)) ?? null;
  return {
    current_temperature: first('roomTemperature', 'waterTemperature', 'flowTemperature', 'leavingWaterTemperature'),
    target_temperature: first('targetTemperature', 'desiredTemperature', 'waterTargetTemperature'),
    mode: haModeNow(device, offers),
  };
}

/** The mode the unit is in, as Home Assistant's word; a unit that takes no mode runs in its fixed one. */
function haModeNow(device: DeviceRecord, offers: Offers): string | null {
  if (offers.get('SET_MODE')?.value?.from !== 'payload-enum') return fixedMode(device);
  const mode = currentMode(device, offers);
  return (mode && HA_MODE[mode]) ?? null;
}
