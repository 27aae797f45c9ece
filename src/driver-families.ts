// The driver families the hub ships, in the order they are built, started, asked to carry out
// commands and offered for pairing. Each builds its runtime from its definitions (drivers/<family>/)
// on the open store and hands the daemon a RunningFamily; a family the configuration leaves out
// (MQTT without a broker) builds nothing. A fifth family is one more entry in DRIVER_FAMILIES.
import { readFileSync } from 'node:fs';
import type { Config } from './config-schema.ts';
import type { Logger } from './log.ts';
import type { Clock } from './domain/time.ts';
import type { VendorCatalog } from './domain/vendors.ts';
import type { Store } from './store/store.ts';
import type { BrokerLink } from './transport/broker-link.ts';
import { OcppEndpoint } from './transport/ocpp-endpoint.ts';
import type { HubEvents } from './runtime/events/hub-events.ts';
import type { AuthFailures } from './runtime/auth-failures.ts';
import type { ClockWatch } from './runtime/clock/clock-watch.ts';
import type { RunningFamily } from './runtime/families/driver-family.ts';
import { ModbusRuntime } from './runtime/modbus/modbus-runtime.ts';
import { watchModbus } from './runtime/modbus/modbus-metrics.ts';
import { builtInDrivers } from '../drivers/modbus/index.ts';
import { HttpRuntime } from './runtime/http/http-runtime.ts';
import { watchHttp } from './runtime/http/http-metrics.ts';
import { builtInHttpDrivers } from '../drivers/http/index.ts';
import { MqttRuntime } from './runtime/mqtt/mqtt-runtime.ts';
import { MqttChargerProber } from './runtime/mqtt/mqtt-prober.ts';
import { MqttDeviceProber } from './runtime/mqtt/mqtt-device-prober.ts';
import { HttpDeviceProber } from './runtime/http/http-device-prober.ts';
import { ModbusDeviceProber } from './runtime/modbus/modbus-device-prober.ts';
import { builtInMqttDrivers } from '../drivers/mqtt/index.ts';
import { OcppRuntime } from './runtime/ocpp/ocpp-runtime.ts';
import { OCPP_PAIRABLE_VENDORS, OcppChargerProber, ocppAddressForDevices } from './runtime/ocpp/ocpp-prober.ts';

/** Where chargers on the home network reach the OCPP endpoint (the daemon asks it through the families, as for everything of a family). */
export { ocppAddressForDevices };
import { builtInOcppDefinitions } from '../drivers/ocpp/index.ts';
import { CloudRuntime } from './runtime/cloud/cloud-runtime.ts';
import { CloudConnector } from './runtime/cloud/cloud-connector.ts';
import { builtInCloudDrivers } from '../drivers/cloud/index.ts';

/** What a family is built from: the open store and the parts every family shares. */
export interface FamilyContext {
  config: Config;
  store: Store;
  log: Logger;
  clock: Clock;
  /** Steps of the wall clock, and whether it is trusted yet. */
  clockWatch: ClockWatch;
  events: HubEvents;
  /** The family's makers become available vendors here. */
  vendors: VendorCatalog;
  /** The household broker, when one is configured (mqtt.url). */
  broker: BrokerLink | undefined;
  /** Failed passwords count like failed API keys. */
  authFailures: AuthFailures;
  /** The broker as a device on the home network reaches it; known once the hub listens. */
  brokerForDevices: () => string | undefined;
  /** The OCPP endpoint as chargers on the home network reach it; known once the hub listens. */
  ocppUrl: () => string | undefined;
}

export interface DriverFamily {
  readonly name: string;
  build(context: FamilyContext): RunningFamily | undefined;
}

/** Devices with Modbus driver bindings, polled; their makers become available vendors. */
const modbusFamily: DriverFamily = {
  name: 'modbus',
  build({ store, log, clock, events, vendors }) {
    const registry = builtInDrivers();
    const runtime = new ModbusRuntime({ store, registry, log, clock, events });
    runtime.registerVendors(vendors);
    const deviceProber = new ModbusDeviceProber(registry, log.child({ part: 'connect' }));
    return { name: 'modbus', runtime, executor: runtime, deviceProber, watch: (metrics, health, monoNow) => watchModbus(runtime, metrics, health, monoNow) };
  },
};

/** Devices answering on the home network (Enphase, Powerwall, Daikin). */
const httpFamily: DriverFamily = {
  name: 'http',
  build({ store, log, clock, events, vendors }) {
    const registry = builtInHttpDrivers();
    const runtime = new HttpRuntime({ store, registry, log, clock, events });
    runtime.registerVendors(vendors);
    return { name: 'http', runtime, executor: runtime, deviceProber: new HttpDeviceProber(registry, clock), watch: (metrics) => watchHttp(runtime, metrics) };
  },
};

/** MQTT drivers need the household broker; without one their makers are not available. Chargers
 * are paired over the broker (the page tells the user which broker to point them at). */
const mqttFamily: DriverFamily = {
  name: 'mqtt',
  build({ config, store, log, clock, events, vendors, broker, brokerForDevices }) {
    if (!config.mqtt || !broker) return undefined;
    const runtime = new MqttRuntime({
      store, registry: builtInMqttDrivers(), link: broker, events, clock, log,
      settings: { defaultStaleAfterMs: config.mqtt.staleAfterSeconds * 1000 },
    });
    runtime.registerVendors(vendors);
    return { name: 'mqtt', runtime, executor: runtime, prober: new MqttChargerProber(runtime, brokerForDevices),
      deviceProber: new MqttDeviceProber(runtime, brokerForDevices) };
  },
};

/** Chargers connect to the hub's own HTTP(S) port; they are paired when chargers on the home
 * network can reach the hub (not on loopback only). */
const ocppFamily: DriverFamily = {
  name: 'ocpp',
  build({ config, store, log, clock, clockWatch, events, vendors, authFailures, ocppUrl }) {
    // The endpoint asks the runtime it serves whether a charger's password is right.
    let runtime!: OcppRuntime;
    const endpoint = new OcppEndpoint({ log: log.child({ part: 'ocpp' }), authenticate: (...args) => runtime.authenticate(...args) });
    runtime = new OcppRuntime({ store, endpoint, failures: authFailures, definitions: builtInOcppDefinitions(), events, clock, log, clockWatch });
    let prober: OcppChargerProber | undefined;
    if (ocppAddressForDevices(config.http.publicUrl ?? '', config.http.host, config.http.port, Boolean(config.http.tls)) !== undefined) {
      prober = new OcppChargerProber(runtime, store, () => ocppUrl() ?? '');
      for (const vendor of OCPP_PAIRABLE_VENDORS) vendors.registerVendor('chargers', vendor);
    }
    return {
      name: 'ocpp', runtime, executor: runtime, prober, stopsBeforeServer: true,
      handleUpgrade: (request, socket, head) => endpoint.handleUpgrade(request, socket, head),
    };
  },
};

/** Cars read from their makers' clouds (BMW CarData, the Volvo Cars API). Their makers are the
 * vehicle vendors partners can connect: the connector runs the makers' logins for the connect page. */
const cloudFamily: DriverFamily = {
  name: 'cloud',
  build({ config, store, log, clock, events, vendors }) {
    const withCa = <T extends { caFile?: string | undefined }>({ caFile, ...rest }: T) => ({ ...rest, ...(caFile ? { ca: readFileSync(caFile, 'utf8') } : {}) });
    const endpoints = { bmwCardata: withCa(config.cloud.bmwCardata), volvo: withCa(config.cloud.volvo) };
    const definitions = builtInCloudDrivers();
    const runtime = new CloudRuntime({ store, definitions, events, clock, log, endpoints });
    const connector = new CloudConnector({ definitions, endpoints, clock, log });
    for (const vendor of connector.forms().keys()) vendors.registerVendor('vehicles', vendor);
    return {
      name: 'cloud', runtime, executor: runtime, connector,
      // Nothing a restart cures: a car that needs its owner is a warning on /health, never a fault.
      watch: (_metrics, health) => health.watch({ stalled: () => null, warnings: () => runtime.attention() }),
    };
  },
};

export const DRIVER_FAMILIES: readonly DriverFamily[] = [modbusFamily, httpFamily, mqttFamily, ocppFamily, cloudFamily];
