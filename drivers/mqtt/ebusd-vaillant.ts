// Vaillant systems with a VRC700 controller, through ebusd's MQTT client (john30/ebusd, wiki "3.3.
// MQTT client", src/ebusd/mqtthandler.cpp) and the message definitions of john30/ebusd-configuration
// (ebusd-2.1.x/en/vaillant/15.700.csv, _templates.csv). Two HVAC devices of one controller: a heating
// zone (HEATING_CIRCUIT) and the hot water circuit (DHW), each its own definition because they are
// written through different messages.
//
// ebusd runs in its default payload mode (no --mqttjson): a message of one field is published as
// its bare value (`21.5`, `auto`), a time program as its fields joined by `;`. That is the simplest
// form to read, and it is also what `…/set` takes. Topics are `{prefix}/{circuit}/{name}`; message
// topics are not retained, and ebusd publishes a message only once it was read (poll priorities,
// or a `…/get`, which a refresh sends). A write is confirmed by ebusd republishing the message with
// the written value; a failed write is only logged by ebusd and publishes nothing, so a failure
// shows as the command's timeout.
import { defineMqttDriver, type PublishStep, type StateTopic } from '../../src/runtime/mqtt/definition.ts';

const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;

const message = (name: string) => `{prefix}/{circuit}/${name}`;
const plain = (name: string, fields: StateTopic['fields']): StateTopic => ({ topic: message(name), format: 'plain', fields });
/** An empty payload on `…/get` makes ebusd read the message now and publish it (mqtthandler.cpp). */
const get = (name: string): PublishStep => ({ topic: message(`${name}/get`), payload: '' });
/** A write: the payload is ebusd's write input (value, or fields joined by `;`; enum names accepted). */
const set = (name: string): PublishStep => ({ topic: message(`${name}/set`), payload: '{value}' });

const SETTINGS = {
  prefix: { default: 'ebusd', pattern: '[^/#+]+(/[^/#+]+)*', description: 'the first part of ebusd\'s --mqtttopic (ebusd/%circuit/%name)' },
  circuit: { default: '700', pattern: '[A-Za-z0-9_.-]+', description: 'the controller\'s circuit name in ebusd (700 for a VRC700)' },
  timeZone: { pattern: '[A-Za-z_]+(/[A-Za-z0-9_+-]+)*', description: 'the controller\'s time zone, e.g. Europe/Berlin (default: the hub\'s)' },
};

// global/running: true (retained) while ebusd runs; its last will is false.
const AVAILABILITY = { topic: '{prefix}/global/running', online: ['true'], offline: ['false'] };

// DisplayedOutsideTemp: outside temperature shown by the controller (tempv, °C), read only.
const OUTSIDE = plain('DisplayedOutsideTemp', { outsideTemperature: { as: 'number', digits: 2 } });

/** A time program, one message per day (type slot1-3: from;to three times, TTM, 10-minute steps). */
function timerTopics(timer: string): StateTopic[] {
  return DAYS.map((day) => plain(`${timer}.${day}`, { [`timer${day}`]: { as: 'string' } }));
}

/** SET_SCHEDULE: the week written day by day, confirmed when Sunday, written last, comes back. */
function scheduleCommand(timer: string) {
  return {
    value: { from: 'schedule', encoder: 'ebusd-vaillant-timer' },
    publish: DAYS.map((day) => set(`${timer}.${day}`)),
    confirm: { by: 'state', field: 'timerSunday' },
    timeoutMs: 30_000,
  } as const;
}

export const ebusdVaillantZone = defineMqttDriver({
  protocol: 'mqtt',
  type: 'ebusd-vaillant-zone',
  title: 'Vaillant heating zone (VRC700) through ebusd',
  source: 'ebusd MQTT client, ebusd-configuration 15.700.csv',
  vendors: [{ domain: 'hvac', code: 'VAILLANT' }],
  kinds: ['hvac'],
  settings: {
    ...SETTINGS,
    zone: { default: '1', pattern: '[1-3]', description: 'the VRC700 zone (1 to 3): z1… messages for zone 1' },
  },
  availability: AVAILABILITY,
  refresh: ['RoomTemp', 'DayTemp', 'NightTemp', 'ActualRoomTempDesired', 'OpMode'].map((name) => get(`z{zone}${name}`)).concat(get('DisplayedOutsideTemp')),
  state: [
    // z1RoomTemp: room temperature zone 1 (tempv, °C), read only.
    plain('z{zone}RoomTemp', { roomTemperature: { as: 'number', digits: 2 } }),
    // z1DayTemp: day setpoint zone 1 (tempv, °C), r;w; what SET_TEMPERATURE writes.
    plain('z{zone}DayTemp', { targetTemperature: { as: 'number', digits: 2 } }),
    // z1NightTemp: night (set-back) setpoint zone 1 (tempv, °C), r;w.
    plain('z{zone}NightTemp', { reducedTemperature: { as: 'number', digits: 2 } }),
    // z1ActualRoomTempDesired: the setpoint in force now, after time program, veto, holidays (°C).
    plain('z{zone}ActualRoomTempDesired', { desiredTemperature: { as: 'number', digits: 2 } }),
    // z1OpMode: opmode, 0=off 1=auto (time program) 2=day (always comfort) 3=night (always set-back).
    plain('z{zone}OpMode', { opMode: { as: 'string' } }),
    // z1SFMode: sfmode, 0=auto 1=ventilation 2=party 3=veto 6=load (special function running).
    plain('z{zone}SFMode', { specialMode: { as: 'string' } }),
    OUTSIDE,
    // z1Timer.Monday … .Sunday: the zone's heating time program.
    ...timerTopics('z{zone}Timer'),
  ],
  commands: {
    SET_TEMPERATURE: {
      // The controller takes room setpoints from 5 to 30 °C [inferred from the VRC700 manual range].
      value: { from: 'payload', field: 'temperature', min: 5, max: 30, digits: 1 },
      publish: [set('z{zone}DayTemp')],
      confirm: { by: 'state', field: 'targetTemperature' },
      timeoutMs: 20_000,
    },
    SET_MODE: {
      // auto follows the time program; day holds the day setpoint, night the set-back one. The
      // controller has no cooling or drying mode here: COOL and DRY fail with the accepted list.
      value: { from: 'payload-enum', field: 'mode', map: { AUTO: 'auto', HEAT: 'day', REDUCED: 'night', OFF: 'off' } },
      publish: [set('z{zone}OpMode')],
      confirm: { by: 'state', field: 'opMode' },
      timeoutMs: 20_000,
    },
    SET_SCHEDULE: scheduleCommand('z{zone}Timer'),
    // No POWER_BOOST for the zone: the VRC700's quick veto needs a temperature and party mode
    // only stretches the time program; neither is a boost the API's command can describe.
  },
});

export const ebusdVaillantDhw = defineMqttDriver({
  protocol: 'mqtt',
  type: 'ebusd-vaillant-dhw',
  title: 'Vaillant hot water (VRC700) through ebusd',
  source: 'ebusd MQTT client, ebusd-configuration 15.700.csv',
  vendors: [{ domain: 'hvac', code: 'VAILLANT' }],
  kinds: ['hvac'],
  settings: SETTINGS,
  availability: AVAILABILITY,
  refresh: ['HwcStorageTemp', 'HwcTempDesired', 'HwcOpMode', 'HwcSFMode', 'DisplayedOutsideTemp'].map(get),
  state: [
    // HwcStorageTemp: hot water cylinder temperature (tempv, °C), read only.
    plain('HwcStorageTemp', { waterTemperature: { as: 'number', digits: 2 } }),
    // HwcTempDesired: hot water setpoint (tempv, °C), r;w; what SET_TEMPERATURE writes.
    plain('HwcTempDesired', { targetTemperature: { as: 'number', digits: 2 } }),
    // HwcOpMode: opmode of the hot water circuit (off, auto, day).
    plain('HwcOpMode', { opMode: { as: 'string' } }),
    // HwcSFMode: sfmode; load = a one-time cylinder charge is running.
    plain('HwcSFMode', { specialMode: { as: 'string' } }),
    OUTSIDE,
    // hwcTimer.Monday … .Sunday: the hot water time program.
    ...timerTopics('hwcTimer'),
  ],
  commands: {
    SET_TEMPERATURE: {
      // Hot water setpoints of 35 to 70 °C [inferred from the VRC700 manual range].
      value: { from: 'payload', field: 'temperature', min: 35, max: 70, digits: 1 },
      publish: [set('HwcTempDesired')],
      confirm: { by: 'state', field: 'targetTemperature' },
      timeoutMs: 20_000,
    },
    SET_MODE: {
      // The hot water circuit runs by its time program (auto), always (day) or not at all (off).
      value: { from: 'payload-enum', field: 'mode', map: { AUTO: 'auto', HEAT: 'day', OFF: 'off' } },
      publish: [set('HwcOpMode')],
      confirm: { by: 'state', field: 'opMode' },
      timeoutMs: 20_000,
    },
    SET_SCHEDULE: scheduleCommand('hwcTimer'),
    POWER_BOOST: {
      // HwcSFMode=load: a one-time cylinder charge to the setpoint, after which the controller
      // returns to auto by itself.
      value: { from: 'constant', value: 'load' },
      publish: [set('HwcSFMode')],
      confirm: { by: 'state', field: 'specialMode' },
      timeoutMs: 20_000,
    },
  },
});
