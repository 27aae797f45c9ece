// Daikin Altherma heat pumps through ESPAltherma (raomin/ESPAltherma, classic firmware: include/mqtt.h,
// src/main.cpp, README), an ESP32 on the unit's X10A serial port. It publishes every selected value
// in one JSON object on `{prefix}/ATTR` (not retained; labels as in the model's definition file,
// numbers bare, text quoted) and `Online`/`Offline` on `{prefix}/LWT` (retained, last will Offline).
//
// ESPAltherma cannot change the unit's settings (README FAQ): no setpoints and no time programs, so
// SET_TEMPERATURE and SET_SCHEDULE are left out and fail as not supported. What it can do is close
// a relay wired to the unit's external on/off thermostat input (`{prefix}/POWER` ON/OFF, echoed on
// `{prefix}/STATE`), and drive the Smart Grid inputs (`{prefix}/sg/set` 0-3, echoed on
// `{prefix}/sg/state`) when built with PIN_SG1 and Smart Grid is enabled in the unit's menu.
//
// The labels below are the English ones of include/def/ALTHERMA(LT_CA_CB_04-08KW).h and DEFAULT.h;
// other models and the German/French/Spanish definition files name them differently, and a label
// the unit does not send is simply absent. Such installations need the generic MQTT driver.
import { defineMqttDriver } from '../../src/runtime/mqtt/definition.ts';

const attr = (label: string) => `"${label}"`;

export default defineMqttDriver({
  protocol: 'mqtt',
  type: 'espaltherma',
  title: 'Daikin Altherma through ESPAltherma',
  source: 'ESPAltherma (X10A serial to MQTT)',
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
        operationMode: { path: attr('Operation Mode'), as: 'string' },
        // Outdoor air temp.(R1T): outdoor unit's air sensor, °C.
        outsideTemperature: { path: attr('Outdoor air temp.(R1T)'), as: 'number', digits: 2 },
        // Indoor ambient temp. (R1T): room sensor of the indoor unit's interface, °C.
        roomTemperature: { path: attr('Indoor ambient temp. (R1T)'), as: 'number', digits: 2 },
        // Leaving water temp. before BUH (R1T): flow temperature before the backup heater, °C.
        leavingWaterTemperature: { path: attr('Leaving water temp. before BUH (R1T)'), as: 'number', digits: 2 },
        // Inlet water temp.(R4T): return temperature, °C.
        inletWaterTemperature: { path: attr('Inlet water temp.(R4T)'), as: 'number', digits: 2 },
        // LW setpoint (main): leaving water setpoint of the main zone, °C.
        targetTemperature: { path: attr('LW setpoint (main)'), as: 'number', digits: 2 },
        // DHW tank temp. (R5T) and DHW setpoint, °C.
        waterTemperature: { path: attr('DHW tank temp. (R5T)'), as: 'number', digits: 2 },
        waterTargetTemperature: { path: attr('DHW setpoint'), as: 'number', digits: 2 },
        // Error Code: the unit's error code text.
        errorCode: { path: attr('Error Code'), as: 'string' },
      },
    },
    // STATE: ON/OFF, the thermostat relay, echoed after a POWER command (not retained, and not
    // republished after a reboot).
    { topic: '{prefix}/STATE', format: 'plain', fields: { thermostat: { as: 'string' } } },
    // sg/state: 0 normal, 1 forced off, 2 recommended on, 3 forced on; echoed after sg/set.
    { topic: '{prefix}/sg/state', format: 'plain', fields: { smartGridMode: { as: 'number' } } },
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
      confirm: { by: 'state', field: 'smartGridMode' },
      timeoutMs: 10_000,
    },
  },
});
