// go-e Charger (HOME+, HOMEfix, Gemini) through its own MQTT API v2. Follows
// goecharger/go-eCharger-API-v2 @b4d7f85 (2026-08-12: mqtt-en.md, API_KEYS_FIRMWARE/apikeys-en.md) and
// the real traffic syssi/homeassistant-goecharger-mqtt captured (@4754303, mqtt-capture.log,
// firmware 053.1; Apache-2.0). The charger publishes one retained topic per API key with a JSON
// value; a write goes to `{key}/set` (JSON) and is answered on `{key}/result` with `success` or an
// error text. Writes must be allowed in the go-e app (MQTT → "allow changes", mcr = false).
//
// Topics, by firmware and settings (setting `topicForm`; auto listens for all three and follows the
// one the charger is heard on):
//   serial  go-eCharger/{serial}/car   the documented default
//   slash   /go-eCharger/{serial}/car  older firmware, kept by the maintainers (the capture)
//   whole   {topicPrefix}/car          a prefix set in the app (mtp) is the whole prefix, with no
//                                      serial appended (homeassistant-goecharger-mqtt #80,
//                                      go-eCharger-API-v2 #231)
// What is published differs too: the capture has no `pnp`, `fna`, `typ` or `mcc`, so the phases
// come from `pnp`, else `pha` (after-contactor phases), else the currents of `nrg`, and the model from
// `typ` or the variant `var`. `mcc` (MQTT connected) as a last will with false is documented only in
// go-e's newest MQTT page; firmware without it would leave a vanished charger shown online for ever,
// so silence decides as well: the charger publishes `rbt` (time since boot, ms) every second (the
// capture), and a minute without any message shows it offline.
import { defineMqttDriver } from '../../src/runtime/mqtt/definition.ts';

const topic = (key: string) => `{base}/${key}`;

export default defineMqttDriver({
  protocol: 'mqtt',
  type: 'go-e',
  title: 'go-e Charger (MQTT API v2)',
  source: 'go-e Charger API v2 over MQTT (firmware 051.5 and newer; the 053.1 capture)',
  vendors: [{ domain: 'chargers', code: 'GO_E' }],
  kinds: ['charger'],
  settings: {
    serial: { required: true, pattern: '[0-9]{6,12}', description: 'the charger\'s serial number (sse), as in its topics' },
    topicPrefix: { default: 'go-eCharger', pattern: '/?[^/#+]+(/[^/#+]+)*', description: 'the MQTT topic prefix set in the go-e app (mtp), without the trailing slash' },
    topicForm: {
      default: 'auto', pattern: 'auto|serial|slash|whole',
      description: 'serial: {topicPrefix}/{serial}/…; slash: /{topicPrefix}/{serial}/… (older firmware); whole: {topicPrefix}/… (a custom prefix); auto: find out',
    },
    startForceState: {
      default: '0', pattern: '[02]',
      description: 'what CHARGING_START writes to frc: 0 hands control back to the charger (it charges unless its own schedule or eco mode holds back), 2 forces charging on',
    },
    staleAfterSeconds: { default: '60', pattern: '[0-9]+', description: 'silence after which the charger is shown offline (it publishes rbt every second)' },
  },
  dialects: {
    setting: 'topicForm',
    preferred: 'serial',
    variants: {
      serial: { base: '{topicPrefix}/{serial}' },
      slash: { base: '/{topicPrefix}/{serial}' },
      whole: { base: '{topicPrefix}' },
    },
  },
  // mcc: "MQTT connected", registered as the last will with false by current firmware.
  availability: { topic: topic('mcc'), online: ['true'], offline: ['false'] },
  staleAfterSetting: 'staleAfterSeconds',
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
    {
      // nrg: U L1-L3,N (V); I L1-L3 (A); P L1-L3,N, total (W, index 11); power factors.
      topic: topic('nrg'), format: 'json',
      fields: {
        chargeRate: { path: '[11]', as: 'number', unit: 'W', to: 'kW', digits: 2 },
        _nrgPhases: { as: 'count', slice: [4, 7], above: 1 },
      },
    },
    // pnp: numberOfPhases (not published by every firmware).
    { topic: topic('pnp'), format: 'json', fields: { _pnp: { as: 'number' } } },
    // pha: phases after the contactor L1-L3, then before it L1-L3 (homeassistant-goecharger-mqtt's
    // binary sensors "Phase L1 after contactor" … read it so).
    { topic: topic('pha'), format: 'json', fields: { _phaAfter: { as: 'count', slice: [0, 3] } } },
    // frc: forceState 0 neutral, 1 off, 2 on (what start/stop write).
    { topic: topic('frc'), format: 'json', fields: { forceState: { as: 'number' } } },
    // typ: device type; var: variant in kW (11: 16 A, 22: 32 A); fna: friendly name (when paired).
    { topic: topic('typ'), format: 'json', fields: { 'static.model': { as: 'string' } } },
    { topic: topic('var'), format: 'json', fields: { 'static.model': { as: 'string', map: { 11: 'go-e Charger 11 kW', 22: 'go-e Charger 22 kW' } } } },
    { topic: topic('fna'), format: 'json', fields: { 'static.name': { as: 'string' } } },
    // rbt: milliseconds since boot, published every second: the charger is there.
    { topic: topic('rbt'), format: 'json', fields: {} },
  ],
  derived: {
    activePhases: { firstOf: ['_pnp', '_phaAfter', '_nrgPhases'] },
  },
  // A vehicle plugged into this charger is started, stopped and limited through it.
  commands: {
    CHARGING_STOP: {
      // frc 1: forced off until a CHARGING_START hands control back (or forces it on).
      value: { from: 'constant', value: 1 },
      publish: [{ topic: topic('frc/set'), payload: '{value}' }],
      confirm: { by: 'result', topic: topic('frc/result'), success: ['success'] },
      timeoutMs: 10_000,
    },
    CHARGING_START: {
      value: { from: 'none' },
      publish: [{ topic: topic('frc/set'), payload: '{startForceState}' }],
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
