// Daikin Altherma heat pumps through ESPAltherma, an ESP32 on the unit's X10A serial port. Follows
// raomin/ESPAltherma @10a1948 (2026-07-21; classic firmware: include/mqtt.h, src/main.cpp, README,
// include/def/*.h). It publishes every selected value in one JSON object on `{prefix}/ATTR` (not
// retained; keyed by the label of the model's definition file, numbers bare, text quoted) and
// `Online`/`Offline` on `{prefix}/LWT` (retained, last will Offline).
//
// Labels differ by model definition file and changed upstream: the current
// ALTHERMA(LT_CA_CB_04-08KW).h has `R1T-Outdoor air temp.`, DEFAULT.h `Outdoor air temp.`, the older
// protocol S file `Outdoor air temp.(C)`. Each field below lists the English labels of the current
// definition files (the first present wins); the German/French/Spanish translations are not covered.
//
// ESPAltherma cannot change the unit's settings (README FAQ): no setpoints and no time programs, so
// SET_TEMPERATURE and SET_SCHEDULE are left out and fail as not supported. What it can do is close
// a relay wired to the unit's external on/off thermostat input (`{prefix}/POWER` ON/OFF, echoed on
// `{prefix}/STATE`, retained), and drive the Smart Grid inputs (`{prefix}/sg/set` 0-3, echoed on
// `{prefix}/sg/state`) when built with PIN_SG1 and Smart Grid is enabled in the unit's menu.
// `sg/state` is also published as 0 on every MQTT reconnect, whatever the relays are (mqtt.h
// reconnectMqtt), so it is not taken as the unit's state: it only confirms a command.
import { defineMqttDriver } from '../../src/runtime/mqtt/definition.ts';

/** Labels as paths: quoted, since they hold dots and spaces. */
const labelsOf = (...labels: string[]) => labels.map((label) => `"${label}"`);

export default defineMqttDriver({
  protocol: 'mqtt',
  type: 'espaltherma',
  title: 'Daikin Altherma through ESPAltherma',
  source: 'ESPAltherma (X10A serial to MQTT), July 2026',
  vendors: [{ domain: 'hvac', code: 'DAIKIN' }],
  kinds: ['hvac'],
  settings: {
    prefix: { default: 'espaltherma', pattern: '[^/#+]+(/[^/#+]+)*', description: 'ESPAltherma\'s topic prefix (MQTT_attr is espaltherma/ATTR)' },
  },
  // LWT: Online on connect, retained; the last will is Offline.
  availability: { topic: '{prefix}/LWT', online: ['Online'], offline: ['Offline'] },
  state: [
    {
      topic: '{prefix}/ATTR', format: 'json',
      fields: {
        // Operation Mode (conv 217): Heating, Cooling, Auto, Fan Only, Dry, …
        operationMode: { path: labelsOf('Operation Mode'), as: 'string' },
        // outdoor unit's air sensor (R1T), °C
        outsideTemperature: { path: labelsOf('R1T-Outdoor air temp.', 'Outdoor air temp.', 'Outdoor air temp.(C)', 'Outdoor Ambient or Ext Sensor'), as: 'number', digits: 2 },
        // room sensor of the indoor unit's interface, °C
        roomTemperature: { path: labelsOf('Indoor ambient temp. (R1T)'), as: 'number', digits: 2 },
        // flow temperature before the backup heater (R1T), °C
        leavingWaterTemperature: { path: labelsOf('Leaving water temp. before BUH (R1T)', 'Outlet Water Heat Exch. Temp. (R1T)', 'Outlet PHE(R1T)', '[HPSU] Tv inflow Temp  (R1T)'), as: 'number', digits: 2 },
        // return temperature (R4T), °C
        inletWaterTemperature: { path: labelsOf('Inlet water temp.(R4T)', 'Inlet temperature(R4T)', 'Inlet water temp.(C)', 'Inlet water temp. (DMW)'), as: 'number', digits: 2 },
        // leaving water setpoint of the main zone, °C
        targetTemperature: { path: labelsOf('LW setpoint (main)', 'H/P Outlet Setpoint'), as: 'number', digits: 2 },
        // DHW tank temperature (R5T), °C
        waterTemperature: { path: labelsOf('DHW tank temp. (R5T)', 'DHW temperature(R5T)', 'DHW tank temp.(C)'), as: 'number', digits: 2 },
        // DHW setpoint, °C
        waterTargetTemperature: { path: labelsOf('DHW setpoint'), as: 'number', digits: 2 },
        // the unit's error code text
        errorCode: { path: labelsOf('Error Code'), as: 'string' },
      },
    },
    // STATE: ON/OFF, the thermostat relay, echoed after a POWER command (retained: the last one is
    // known after a restart of the hub).
    { topic: '{prefix}/STATE', format: 'plain', fields: { thermostat: { as: 'string' } } },
  ],
  commands: {
    SET_MODE: {
      // The relay is the unit's external on/off thermostat: closed (ON) lets it heat, or cool in
      // its own cooling mode, open (OFF) stops it. Heating or cooling is chosen on the unit, so
      // only OFF, HEAT and AUTO have an equivalent; COOL, DRY and REDUCED fail with that list.
      value: { from: 'payload-enum', field: 'mode', map: { OFF: 'OFF', HEAT: 'ON', AUTO: 'ON' } },
      publish: [{ topic: '{prefix}/POWER', payload: '{value}' }],
      confirm: { by: 'state', field: 'thermostat' },
      timeoutMs: 10_000,
    },
    POWER_BOOST: {
      // Smart Grid 3 "forced ON": hot water heated at full power up to 70 °C (README table). It
      // holds until sg/set 0 is sent again; the API has no command that ends a boost.
      value: { from: 'constant', value: 3 },
      publish: [{ topic: '{prefix}/sg/set', payload: '{value}' }],
      // sg/state echoes the mode set; its reconnect "0" is not an answer (see the header).
      confirm: { by: 'result', topic: '{prefix}/sg/state', success: ['{value}'], others: 'ignore' },
      timeoutMs: 10_000,
    },
  },
});
