// Every MQTT driver definition the hub ships. A new family is a file here plus one line below; the
// every-definition test (test/drivers/mqtt/definitions.test.ts) then insists on a simulator for it.
import type { MqttDriverDefinition } from '../../src/runtime/mqtt/definition.ts';
import { MqttDriverRegistry } from '../../src/runtime/mqtt/mqtt-registry.ts';
import goE from './go-e.ts';
import teslamate from './teslamate.ts';
import carconnectivity from './carconnectivity.ts';
import tariffTopic from './tariff-topic.ts';
import mqttGeneric from './mqtt-generic.ts';
import { ebusdVaillantDhw, ebusdVaillantZone } from './ebusd-vaillant.ts';
import espaltherma from './espaltherma.ts';
import { open3eViessmannCircuit, open3eViessmannDhw } from './open3e-viessmann.ts';

export const MQTT_DRIVER_DEFINITIONS: readonly MqttDriverDefinition[] = [goE, teslamate, carconnectivity, tariffTopic, mqttGeneric,
  ebusdVaillantZone, ebusdVaillantDhw, espaltherma, open3eViessmannCircuit, open3eViessmannDhw];

export function builtInMqttDrivers(): MqttDriverRegistry {
  return new MqttDriverRegistry(MQTT_DRIVER_DEFINITIONS);
}
