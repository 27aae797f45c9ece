// go-e Charger (HOME+, HOMEfix, Gemini) through its own MQTT API v2, firmware 051.5 or newer.
// Source: goecharger/go-eCharger-API-v2, mqtt-en.md and apikeys-en.md. The charger publishes one
// retained topic per API key, `{prefix}/{serial}/{key}`, with a JSON value; a write goes to
// `{key}/set` (JSON) and is answered on `{key}/result` with `success` or an error text. Its last will
// is `mcc` = false. Writes must be allowed in the go-e app (MQTT → "allow changes").
import { defineMqttDriver } from '../../src/runtime/mqtt/definition.ts';

const topic = (key: string) => `{topicPrefix}/{serial}/${key}`;

export default defineMqttDriver({
  protocol: 'mqtt',
  type: 'go-e',
  title: 'go-e Charger (MQTT API v2)',
  source: 'go-e Charger API v2 over MQTT',
  vendors: [{ domain: 'chargers', code: 'GO_E' }],
  kinds: ['charger'],
  settings: {
    serial: { required: true, pattern: '[0-9]{6,12}', description: 'the charger\'s serial number (sse), as in its topics' },
    topicPrefix: { default: 'go-eCharger', pattern: '/?[^/#+]+(/[^/#+]+)*', description: 'the MQTT topic prefix set in the go-e app (mtp), without the trailing slash' },
  },
  // mcc: "MQTT connected", registered as the charger's last will with payload false.
  availability: { topic: topic('mcc'), online: ['true'], offline: ['false'] },
  state: [
    {
      // car: carState. 0 unknown/error, 1 idle (no car), 2 charging, 3 car waiting, 4 complete, 5 error.
      topic: topic('car'), format: 'json',
      fields: {
        chargingState: { as: 'string', map: { 1: 'UNPLUGGED', 2: 'CHARGING', 3: 'PREPARING', 4: 'FINISHED', 5: 'FAULT' } },
        isPlugged: { as: 'boolean', map: { 1: false, 2: true, 3: true, 4: true } },
      },
    },
    // amp: requestedCurrent in A (what the charger offers the car).
    { topic: topic('amp'), format: 'json', fields: { chargeCurrentMax: { as: 'number' } } },
    // nrg: U L1-L3,N (V); I L1-L3 (A); P L1-L3,N, total (W, index 11); power factors.
    { topic: topic('nrg'), format: 'json', fields: { chargeRate: { path: '[11]', as: 'number', unit: 'W', to: 'kW', digits: 2 } } },
    // pnp: numberOfPhases in use.
    { topic: topic('pnp'), format: 'json', fields: { activePhases: { as: 'number' } } },
    // frc: forceState 0 neutral, 1 off, 2 on (what start/stop write and are confirmed by).
    { topic: topic('frc'), format: 'json', fields: { forceState: { as: 'number' } } },
    // typ: device type; fna: friendly name (used when the charger is paired).
    { topic: topic('typ'), format: 'json', fields: { 'static.model': { as: 'string' } } },
    { topic: topic('fna'), format: 'json', fields: { 'static.name': { as: 'string' } } },
  ],
  // A vehicle plugged into this charger is started, stopped and limited through it.
  commands: {
    CHARGING_STOP: {
      value: { from: 'constant', value: 1 },
      publish: [{ topic: topic('frc/set'), payload: '{value}' }],
      confirm: { by: 'result', topic: topic('frc/result'), success: ['success'] },
      timeoutMs: 10_000,
    },
    CHARGING_START: {
      value: { from: 'constant', value: 2 },
      publish: [{ topic: topic('frc/set'), payload: '{value}' }],
      confirm: { by: 'result', topic: topic('frc/result'), success: ['success'] },
      timeoutMs: 10_000,
    },
    SET_CHARGING_CURRENT: {
      // amp accepts 6 A up to the charger's ampere_max (ama; 16 or 32 A by variant).
      value: { from: 'payload', field: 'current', min: 6, max: 32, digits: 0 },
      publish: [{ topic: topic('amp/set'), payload: '{value}' }],
      confirm: { by: 'result', topic: topic('amp/result'), success: ['success'] },
      timeoutMs: 10_000,
    },
  },
});
