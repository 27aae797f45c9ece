// The HTTP(S) driver families the hub ships: devices that answer on the home network over HTTP.
import type { HttpDriverDefinition } from '../../src/runtime/http/definition.ts';
import { HttpDriverRegistry } from '../../src/runtime/http/http-registry.ts';
import daikinBrp069 from './daikin-brp069.ts';
import daikinBrp084 from './daikin-brp084.ts';
import enphaseEnvoy from './enphase-envoy.ts';
import teslaPowerwall from './tesla-powerwall.ts';

export const HTTP_DRIVER_DEFINITIONS: readonly HttpDriverDefinition[] = [enphaseEnvoy, teslaPowerwall, daikinBrp069, daikinBrp084];

export function builtInHttpDrivers(): HttpDriverRegistry {
  return new HttpDriverRegistry(HTTP_DRIVER_DEFINITIONS);
}
