// Vaillant systems with a VRC700 or VRC720 controller, through ebusd's MQTT client. Follows
// john30/ebusd 26.1 (@856bb0d, 2026-02-10: src/ebusd/mqtthandler.cpp, src/lib/ebus/data.cpp and
// datatype.cpp, contrib/etc/ebusd/mqtt-hassio.cfg) and the message definitions ebusd downloads by
// default since 24.1, generated from john30/ebusd-configuration's TypeSpec sources and served by
// eBUS/ebus.github.io (@f1e4a1d, 2026-02-01: en/vaillant/15.700.csv; 15.720.csv is a link to it, so
// a VRC720 has the same messages under circuit `720`). Installations that still load the archived
// CSV files (john30/ebusd-configuration archived/en/vaillant/15.700.csv, ebusd --configpath) name
// the same messages differently; both are supported:
//
//   generated (current)   Z1DayTemp  Z1OpMode  Z1RoomTemp …  Z1Timer_Monday  HwcTimer_Monday
//   archived              z1DayTemp  z1OpMode  z1RoomTemp …  z1Timer.Monday  hwcTimer.Monday
//
// ebusd keeps a message's name as written in topics, while `…/get` and `…/set` find the message by
// its name regardless of case (so a get or a set of `Z1DayTemp` reaches either); the timers differ
// by more than case, so the hub listens on both namings (setting `names`: auto) and writes in the one
// it hears. Two HVAC devices of one controller: a heating zone (HEATING_CIRCUIT) and the hot water
// circuit (DHW), each its own definition because they are written through different messages.
//
// Payloads: a message of one field is its bare value (`21.5`, `auto`) and a time program its fields
// joined by `;` in ebusd's default mode; with `--mqttjson` (which mqtt-hassio.cfg, the usual Home
// Assistant setup, requires) the same values come as JSON (`{"value": {"value": 21.5}}`, or
// `{"0": {"name": "from", "value": "06:00"}, …}` for repeated field names, `{"value": 21.5}` with
// `--mqttjson=short`); format 'ebusd' reads all of them. Topics are `{prefix}/{circuit}/{name}`,
// not retained, and ebusd publishes a message only once it was read. So when the hub begins to
// listen it sends `…/get` with the payload `?N`, which reads the message now and adds it to ebusd's
// poll list at priority N (mqtthandler.cpp: a `?` followed by the priority in a get's data): the
// installer need not configure polling. A write is confirmed by ebusd republishing the message with
// the written value; a failed write is only logged by ebusd and publishes nothing, so a failure
// shows as the command's timeout.
import { defineMqttDriver, type Dialects, type PublishStep, type StateTopic } from '../../src/runtime/mqtt/definition.ts';

const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;

const message = (name: string) => `{prefix}/{circuit}/${name}`;
const plain = (name: string, fields: StateTopic['fields']): StateTopic => ({ topic: message(name), format: 'ebusd', fields });
/** An empty payload on `…/get` makes ebusd read the message now and publish it (mqtthandler.cpp). */
const get = (name: string): PublishStep => ({ topic: message(`${name}/get`), payload: '' });
/** `?N` on `…/get`: read now, and poll from now on at priority N (0: read once). */
const poll = (name: string): PublishStep => ({ topic: message(`${name}/get`), payload: '?{pollPriority}' });
/** A write: the payload is ebusd's write input (value, or fields joined by `;`; enum names accepted). */
const set = (name: string): PublishStep => ({ topic: message(`${name}/set`), payload: '{value}' });

const SETTINGS = {
  prefix: { default: 'ebusd', pattern: '[^/#+]+(/[^/#+]+)*', description: 'the first part of ebusd\'s --mqtttopic (ebusd/%circuit/%name)' },
  circuit: { default: '700', pattern: '[A-Za-z0-9_.-]+', description: 'the controller\'s circuit name in ebusd (700 for a VRC700, 720 for a VRC720)' },
  names: {
    default: 'auto', pattern: 'auto|generated|archived',
    description: 'the message names ebusd uses: generated (the default configuration since ebusd 24.1), archived (older CSV files), or auto (listen for both)',
  },
  pollPriority: {
    default: '3', pattern: '[0-9]',
    description: 'the poll priority the hub gives the values it shows (1 polls most often, 9 least; 0 reads them once and leaves polling to ebusd\'s own configuration)',
  },
  timeZone: { pattern: '[A-Za-z_]+(/[A-Za-z0-9_+-]+)*', description: 'the controller\'s time zone, e.g. Europe/Berlin (default: the hub\'s)' },
};

// global/running: true (retained) while ebusd runs; its last will is false.
const AVAILABILITY = { topic: '{prefix}/global/running', online: ['true'], offline: ['false'] };

// DisplayedOutsideTemp: outside temperature shown by the controller (EXP, °C), read only.
const ZONE_VALUES = ['RoomTemp', 'DayTemp', 'NightTemp', 'ActualRoomTempDesired', 'OpMode', 'SFMode'];
const DHW_VALUES = ['HwcStorageTemp', 'HwcTempDesired', 'HwcOpMode', 'HwcSFMode'];

const OUTSIDE = plain('DisplayedOutsideTemp', { outsideTemperature: { as: 'number', digits: 2 } });

/** A time program, one message per day (from;to three times, TTM, 10-minute steps); `{timer}` is
 * the naming's prefix of the day (`Z1Timer_` or `z1Timer.`). */
function timerTopics(): StateTopic[] {
  return DAYS.map((day) => plain(`{timer}${day}`, { [`timer${day}`]: { as: 'string' } }));
}

/** SET_SCHEDULE: the week written day by day, confirmed when Sunday, written last, comes back. A window
 * ending at midnight is written as 24:00 and read back as `-:-`: TTM's replacement value is 0x90,
 * which is 144 steps of 10 minutes (datatype.cpp: DateTimeDataType("TTM", 8, 0, 0x90, …)). */
function scheduleCommand() {
  return {
    value: { from: 'schedule', encoder: 'ebusd-vaillant-timer' },
    publish: DAYS.map((day) => set(`{timer}${day}`)),
    confirm: { by: 'state', field: 'timerSunday', sameAs: { separator: ';', map: { '24:00': '-:-' } } },
    timeoutMs: 30_000,
  } as const;
}

/** Names that differ by naming: placeholders filled per naming (see the header). */
const NAMINGS = (zone: boolean): Dialects => ({
  setting: 'names',
  preferred: 'generated',
  // Read Monday's time program under both namings: ebusd answers the one it knows, under its own
  // name, so the hub knows the naming before its first write (a time program written under the
  // other naming finds no message, and ebusd only logs that).
  probe: get('{timer}Monday'),
  variants: {
    generated: zone ? { z: 'Z{zone}', timer: 'Z{zone}Timer_' } : { timer: 'HwcTimer_' },
    archived: zone ? { z: 'z{zone}', timer: 'z{zone}Timer.' } : { timer: 'hwcTimer.' },
  },
});

export const ebusdVaillantZone = defineMqttDriver({
  protocol: 'mqtt',
  type: 'ebusd-vaillant-zone',
  title: 'Vaillant heating zone (VRC700/VRC720) through ebusd',
  source: 'ebusd 26.1 MQTT client, generated 15.700.csv (ebus.github.io) or the archived one',
  vendors: [{ domain: 'hvac', code: 'VAILLANT' }],
  kinds: ['hvac'],
  settings: {
    ...SETTINGS,
    zone: { default: '1', pattern: '[1-3]', description: 'the VRC700 zone (1 to 3): Z1… messages for zone 1' },
  },
  availability: AVAILABILITY,
  dialects: NAMINGS(true),
  // Gets find the message whatever the case of its name, so these reach either naming.
  onListen: [...ZONE_VALUES.map((name) => poll(`Z{zone}${name}`)), poll('DisplayedOutsideTemp'), ...DAYS.map((day) => get(`{timer}${day}`))],
  refresh: ZONE_VALUES.map((name) => get(`Z{zone}${name}`)).concat(get('DisplayedOutsideTemp')),
  state: [
    // Z1RoomTemp: room temperature zone 1 (EXP, °C), read only.
    plain('{z}RoomTemp', { roomTemperature: { as: 'number', digits: 2 } }),
    // Z1DayTemp: day setpoint zone 1 (EXP, °C), r;w; what SET_TEMPERATURE writes.
    plain('{z}DayTemp', { targetTemperature: { as: 'number', digits: 2 } }),
    // Z1NightTemp: night (set-back) setpoint zone 1 (EXP, °C), r;w.
    plain('{z}NightTemp', { reducedTemperature: { as: 'number', digits: 2 } }),
    // Z1ActualRoomTempDesired: the setpoint in force now, after time program, veto, holidays (°C).
    plain('{z}ActualRoomTempDesired', { desiredTemperature: { as: 'number', digits: 2 } }),
    // Z1OpMode: opmode, 0=off 1=auto (time program) 2=day (always comfort) 3=night (always set-back).
    plain('{z}OpMode', { opMode: { as: 'string' } }),
    // Z1SFMode: sfmode, 0=auto 1=ventilation 2=party 3=veto 6=load (special function running).
    plain('{z}SFMode', { specialMode: { as: 'string' } }),
    OUTSIDE,
    // Z1Timer_Monday … _Sunday: the zone's heating time program.
    ...timerTopics(),
  ],
  commands: {
    SET_TEMPERATURE: {
      // The controller takes room setpoints from 5 to 30 °C [inferred from the VRC700 manual range].
      value: { from: 'payload', field: 'temperature', min: 5, max: 30, digits: 1 },
      publish: [set('{z}DayTemp')],
      confirm: { by: 'state', field: 'targetTemperature' },
      timeoutMs: 20_000,
    },
    SET_MODE: {
      // auto follows the time program; day holds the day setpoint, night the set-back one. The
      // controller has no cooling or drying mode here: COOL and DRY fail with the accepted list.
      value: { from: 'payload-enum', field: 'mode', map: { AUTO: 'auto', HEAT: 'day', REDUCED: 'night', OFF: 'off' } },
      publish: [set('{z}OpMode')],
      confirm: { by: 'state', field: 'opMode' },
      timeoutMs: 20_000,
    },
    SET_SCHEDULE: scheduleCommand(),
    // No POWER_BOOST for the zone: the VRC700's quick veto needs a temperature and party mode
    // only stretches the time program; neither is a boost the API's command can describe.
  },
});

export const ebusdVaillantDhw = defineMqttDriver({
  protocol: 'mqtt',
  type: 'ebusd-vaillant-dhw',
  title: 'Vaillant hot water (VRC700/VRC720) through ebusd',
  source: 'ebusd 26.1 MQTT client, generated 15.700.csv (ebus.github.io) or the archived one',
  vendors: [{ domain: 'hvac', code: 'VAILLANT' }],
  kinds: ['hvac'],
  settings: SETTINGS,
  availability: AVAILABILITY,
  dialects: NAMINGS(false),
  onListen: [...DHW_VALUES.map(poll), poll('DisplayedOutsideTemp'), ...DAYS.map((day) => get(`{timer}${day}`))],
  refresh: [...DHW_VALUES, 'DisplayedOutsideTemp'].map(get),
  state: [
    // HwcStorageTemp: hot water cylinder temperature (EXP, °C), read only.
    plain('HwcStorageTemp', { waterTemperature: { as: 'number', digits: 2 } }),
    // HwcTempDesired: hot water setpoint (EXP, °C), r;w; what SET_TEMPERATURE writes.
    plain('HwcTempDesired', { targetTemperature: { as: 'number', digits: 2 } }),
    // HwcOpMode: opmode of the hot water circuit (off, auto, day).
    plain('HwcOpMode', { opMode: { as: 'string' } }),
    // HwcSFMode: sfmode; load = a one-time cylinder charge is running.
    plain('HwcSFMode', { specialMode: { as: 'string' } }),
    OUTSIDE,
    // HwcTimer_Monday … _Sunday: the hot water time program.
    ...timerTopics(),
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
    SET_SCHEDULE: scheduleCommand(),
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
