// VW group cars (Volkswagen, Audi, Škoda, CUPRA/SEAT) through CarConnectivity-MQTT, the successor of
// WeConnect-MQTT. Follows tillsteinbach/CarConnectivity-plugin-mqtt @3bd53dc (2026-05-25:
// mqtt_client.py, doc/Config.md) and tillsteinbach/CarConnectivity @9dfda1e (2026-03-22: drive.py,
// charging.py, command_impl.py, connectors/base/connector.py). The bridge publishes every attribute
// of its object tree on `{prefix}{path}` (default prefix `carconnectivity/0`, a car under
// `/garage/{VIN}/…`), a plain payload in the default "simple" topic format, retained, QoS 1, when the
// value changes. A changeable attribute or command takes writes on `<topic>_writetopic`.
//
// Commands: the plugin sets the command attribute, whose hook calls the maker's cloud at once, and
// then publishes its own answer (mqtt_client.py _set_error): `plugins/{id}/error/code` 0 on success,
// or a negative code (-3 format, -4 the setter failed: the cloud refused) followed by
// `plugins/{id}/error/message`; neither retained. The hub confirms by that answer: the car's new
// charging state only comes with the connector's next fetch (every 300–600 s in upstream examples).
//
// Reachability: `plugins/{id}/connection_state` says whether the bridge runs (its last will is
// `disconnected`); `connectors/{connector}/healthy` (True/False) whether its connector still gets
// through to the maker's cloud. Either saying no shows the car offline.
//
// Warning: since 27 May 2026 Volkswagen's API blocks third-party clients for the VW brand (the
// CarConnectivity VW connector and WeConnect fail to log in; tillsteinbach/CarConnectivity#155).
// Since mid-May 2026 the SEAT/CUPRA cloud answers 403 to the seatcupra connector's garage and status
// requests (CarConnectivity-connector-seatcupra #115, #118); the carconnectivity-addon's answer is a
// read-only EU Data Act connector (0.8.5), which takes no commands. Audi and Škoda work; a car whose
// connector cannot get through shows offline by its connector's healthy flag.
import { defineMqttDriver } from '../../src/runtime/mqtt/definition.ts';

const car = (path: string) => `{topicPrefix}/garage/{vin}/${path}`;

/** The plugin's answer to a write: error/code 0, or a code and then its message. */
const PLUGIN_ANSWER = {
  by: 'result', topic: '{topicPrefix}/plugins/{pluginId}/error/code', success: ['0'], reasonTopic: '{topicPrefix}/plugins/{pluginId}/error/message',
} as const;

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
    connector: {
      pattern: '[^/#+]+',
      // CarConnectivity names a connector after its type unless connector_id is set (carconnectivity.py).
      defaultByVendor: { VW: 'volkswagen', AUDI: 'audi', SKODA: 'skoda', CUPRA: 'seatcupra' },
      description: 'the id of the car\'s connector in carconnectivity.json (by default its type: volkswagen, audi, skoda, seatcupra); its healthy flag tells whether the cloud login still works',
    },
    chargerId: { description: 'the hub id of the charger the car charges at: SET_CHARGING_CURRENT goes through that charger' },
  },
  availability: [
    // plugins/<id>/connection_state: connected, connecting, disconnected, disconnecting, error; the
    // plugin's last will publishes `disconnected` (retained). It tells whether the bridge runs.
    { topic: '{topicPrefix}/plugins/{pluginId}/connection_state', online: ['connected'], offline: ['disconnected', 'disconnecting', 'error'] },
    // connectors/<id>/healthy: a BooleanAttribute, published as Python prints it (True/False).
    { topic: '{topicPrefix}/connectors/{connector}/healthy', online: ['True', 'true'], offline: ['False', 'false'], optional: true },
  ],
  // Vehicles have no state object in the API: these values are the car's telemetry (isOnline,
  // lastUpdated), named like the hub's charger vocabulary.
  state: [
    // drives/{primary,secondary}: type (electric, gasoline, diesel, …: drive.py GenericDrive.Type),
    // level in % and range in km. A plug-in hybrid's primary drive is its fuel tank: the state of
    // charge is the level of the drive whose type is electric.
    ...(['primary', 'secondary'] as const).flatMap((drive) => [
      { topic: car(`drives/${drive}/type`), format: 'plain' as const, fields: { [`_${drive}Type`]: { as: 'string' as const } } },
      { topic: car(`drives/${drive}/level`), format: 'plain' as const, fields: { [`_${drive}Level`]: { as: 'number' as const } } },
      { topic: car(`drives/${drive}/range`), format: 'plain' as const, fields: { [`_${drive}Range`]: { as: 'number' as const, digits: 1 } } },
    ]),
    {
      // charging/state: off, ready_for_charging, charging, conservation (target reached, kept
      // topped up), error, unsupported, discharging, "unknown charging state".
      topic: car('charging/state'), format: 'plain',
      fields: {
        chargingState: { as: 'string', map: { off: 'STOPPED', ready_for_charging: 'PREPARING', charging: 'CHARGING', conservation: 'FINISHED', error: 'FAULT' } },
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
  derived: {
    stateOfCharge: { firstOf: (['primary', 'secondary'] as const).map((drive) => ({ field: `_${drive}Level`, when: { field: `_${drive}Type`, equals: ['electric'] } })) },
    rangeKm: { firstOf: (['primary', 'secondary'] as const).map((drive) => ({ field: `_${drive}Range`, when: { field: `_${drive}Type`, equals: ['electric'] } })) },
  },
  commands: {
    // charging/commands/start-stop: the ChargingStartStopCommand, `start` or `stop` (command_impl.py),
    // confirmed by the plugin's answer (see the header); the cloud call usually takes seconds.
    CHARGING_START: {
      value: { from: 'constant', value: 'start' },
      publish: [{ topic: car('charging/commands/start-stop_writetopic'), payload: '{value}' }],
      confirm: PLUGIN_ANSWER,
      timeoutMs: 60_000,
    },
    CHARGING_STOP: {
      value: { from: 'constant', value: 'stop' },
      publish: [{ topic: car('charging/commands/start-stop_writetopic'), payload: '{value}' }],
      confirm: PLUGIN_ANSWER,
      timeoutMs: 60_000,
    },
    // SET_CHARGING_CURRENT is left out on purpose: charging/settings/maximum_current is changeable
    // only with some connectors, and Škoda's takes just two levels (6 A "reduced", 16 A "maximum").
    // The command goes to the car's charger instead.
  },
});
