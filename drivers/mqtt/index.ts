// Every MQTT driver definition the hub ships. A new family is a file here plus one line below; the
// every-definition test (test/drivers/mqtt-definitions.test.ts) then insists on a simulator for it.
import type { MqttDriverDefinition } from '../../src/runtime/mqtt/definition.ts';
import { MqttDriverRegistry } from '../../src/runtime/mqtt/mqtt-registry.ts';
import goE from './go-e.ts';

export const MQTT_DRIVER_DEFINITIONS: readonly MqttDriverDefinition[] = [goE];

export function builtInMqttDrivers(): MqttDriverRegistry {
  return new MqttDriverRegistry(MQTT_DRIVER_DEFINITIONS);
}
