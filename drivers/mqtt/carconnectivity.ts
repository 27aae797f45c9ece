// VW group cars (Volkswagen, Audi, Škoda, CUPRA) through CarConnectivity-MQTT, the successor of
// WeConnect-MQTT. Sources: tillsteinbach/CarConnectivity-plugin-mqtt (mqtt_client.py, doc/Config.md)
// and tillsteinbach/CarConnectivity (charging.py, charging_connector.py, commands.py, enums.py).
// The bridge publishes every attribute of its object tree on `{prefix}{path}` (default prefix
// `carconnectivity/0`, a car under `/garage/{VIN}/…`), a plain payload in the default "simple" topic
// format, retained, QoS 1, when the value changes. A changeable attribute or command takes writes on
// `<topic>_writetopic`. The bridge reaches the car through the maker's cloud, so every command is
// slow: it is confirmed by the car's new charging state once the bridge has fetched it again.
//
// Warning: since 27 May 2026 Volkswagen's API blocks third-party clients for the VW brand (the
// CarConnectivity VW connector and WeConnect fail to log in; tillsteinbach/CarConnectivity#155).
// This definition still serves Audi, Škoda and CUPRA, and VW cars wherever the bridge works again;
// a VW car whose connector cannot log in is simply never heard from.
import { defineMqttDriver } from '../../src/runtime/mqtt/definition.ts';

const car = (path: string) => `{topicPrefix}/garage/{vin}/${path}`;

export default defineMqttDriver({
  protocol: 'mqtt',
  type: 'carconnectivity',
  title: 'VW group car through CarConnectivity-MQTT',
  source: 'CarConnectivity MQTT plugin (simple topic format)',
  vendors: [
    { domain: 'vehicles', code: 'VW' },
    { domain: 'vehicles', code: 'AUDI' },
    { domain: 'vehicles', code: 'SKODA' },
    { domain: 'vehicles', code: 'CUPRA' },
  ],
  kinds: ['vehicle'],
  settings: {
    vin: { required: true, pattern: '[A-HJ-NPR-Z0-9]{17}', description: 'the car\'s VIN (17 characters), as in the bridge\'s garage topics' },
    topicPrefix: { default: 'carconnectivity/0', pattern: '[^/#+]+(/[^/#+]+)*', description: 'the MQTT plugin\'s "prefix" setting' },
    pluginId: { default: 'mqtt', pattern: '[^/#+]+', description: 'the id of the MQTT plugin in carconnectivity.json (its connection state is under plugins/<id>)' },
    chargerId: { description: 'the hub id of the charger the car charges at: SET_CHARGING_CURRENT goes through that charger' },
  },
  // plugins/<id>/connection_state: connected, connecting, disconnected, disconnecting, error; the
  // plugin's last will publishes `disconnected` (retained). It tells whether the bridge runs, not
  // whether its connector still logs in to the maker's cloud.
  availability: { topic: '{topicPrefix}/plugins/{pluginId}/connection_state', online: ['connected'], offline: ['disconnected', 'disconnecting', 'error'] },
  // Vehicles have no state object in the API: these values are the car's telemetry (isOnline,
  // lastUpdated), named like the hub's charger vocabulary.
  state: [
    // drives/primary/level: the primary (electric) drive's level, state of charge in %.
    { topic: car('drives/primary/level'), format: 'plain', fields: { stateOfCharge: { as: 'number' } } },
    {
      // charging/state: off, ready_for_charging, charging, conservation (target reached, kept
      // topped up), error, unsupported, discharging, "unknown charging state".
      topic: car('charging/state'), format: 'plain',
      fields: {
        chargingState: { as: 'string', map: { off: 'STOPPED', ready_for_charging: 'PREPARING', charging: 'CHARGING', conservation: 'FINISHED', error: 'FAULT' } },
        // What start/stop are confirmed by: charging, or anything else once the bridge reported.
        isCharging: { as: 'boolean', map: { charging: true }, otherwise: false },
      },
    },
    // charging/power: charging power in kW.
    { topic: car('charging/power'), format: 'plain', fields: { chargeRate: { as: 'number', digits: 2 } } },
    // charging/connector/connection_state: connected, disconnected, invalid, unsupported, unknown….
    { topic: car('charging/connector/connection_state'), format: 'plain', fields: { isPlugged: { as: 'boolean', map: { connected: true, disconnected: false } } } },
    // charging/settings/target_level: the charge target in %.
    { topic: car('charging/settings/target_level'), format: 'plain', fields: { chargeLimit: { as: 'number' } } },
    // name, model: the car's name and model (used when the car is added).
    { topic: car('name'), format: 'plain', fields: { 'static.name': { as: 'string' } } },
    { topic: car('model'), format: 'plain', fields: { 'static.model': { as: 'string' } } },
  ],
  commands: {
    // charging/commands/start-stop: the ChargingStartStopCommand, `start` or `stop` (command_impl.py).
    // The bridge asks the maker's cloud, which wakes the car; the new state comes with the bridge's
    // next fetch. Longer than the hub's default confirmation time (commands.confirmTimeoutSeconds,
    // 30 s), which caps it: raise that to 180 for these cars.
    CHARGING_START: {
      value: { from: 'constant', value: 'start' },
      publish: [{ topic: car('charging/commands/start-stop_writetopic'), payload: '{value}' }],
      confirm: { by: 'state', field: 'isCharging', equals: true },
      timeoutMs: 180_000,
    },
    CHARGING_STOP: {
      value: { from: 'constant', value: 'stop' },
      publish: [{ topic: car('charging/commands/start-stop_writetopic'), payload: '{value}' }],
      confirm: { by: 'state', field: 'isCharging', equals: false },
      timeoutMs: 180_000,
    },
    // SET_CHARGING_CURRENT is left out on purpose: charging/settings/maximum_current is changeable
    // only with some connectors, and Škoda's takes just two levels (6 A "reduced", 16 A "maximum").
    // The command goes to the car's charger instead.
  },
});
