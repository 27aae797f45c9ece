// Any device that speaks MQTT, described by the installer in its binding instead of in a file here:
// a device with no definition of its own, or one built for the hub (a "hub-native" device that
// answers MQTT 5 requests). The binding carries what a definition carries (see CustomDefinition in
// src/runtime/mqtt/mqtt-registry.ts, checked when the device is opened, with a message naming each
// mistake):
//
//   state         [{ topic, format: json|plain, fields: { <field>: { path?, as, scale?, unit?, to?,
//                   digits?, map?, otherwise? } } }]  JSON paths such as `a.b[2]`; W→kW and the like
//   availability  { topic, path?, online: [...], offline: [...] }   e.g. a last will
//   staleAfterMs  silence after which the device is offline (default: the hub's mqtt.staleAfterSeconds)
//   refresh       [{ topic, payload }]   what asks the device for fresh values
//   commands      { <COMMAND_TYPE>: { value, publish: [{ topic, payload, withResponseTopic?, retain? }],
//                   confirm, timeoutMs? } }   payloads are templates: {value}, {correlation}
//
// A command is confirmed by the device's new state (`{ by: 'state', field, equals? }`), by a result
// topic (`{ by: 'result', topic, path?, success }`) or by a response matched to the request
// (`{ by: 'response', topic, correlation: 'property' | { path }, success: { path?, equals },
// reasonPath? }`): with `correlation: 'property'` the request carries MQTT 5 response topic and
// correlation data (`withResponseTopic` on the publish step) and the device echoes the correlation
// data on its answer; with `{ path }` the device echoes `{correlation}` inside its JSON answer.
// No vendors: a generic binding does not make any maker available.
import { defineMqttDriver } from '../../src/runtime/mqtt/definition.ts';
import { DEVICE_KINDS } from '../../src/domain/vocabulary.ts';

export default defineMqttDriver({
  protocol: 'mqtt',
  type: 'mqtt-generic',
  title: 'Any MQTT device, described in its binding',
  source: 'the installer\'s binding',
  vendors: [],
  kinds: DEVICE_KINDS,
  settings: {},
  // Replaced by the binding's own topics (configurable).
  state: [],
  configurable: true,
});
