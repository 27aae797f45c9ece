// One device per driver family written several ways (issue 34): the binding with the driver
// definition's defaults left out, the same binding with them written out, and other spellings of the
// same address. Every path that adds a device (pairing, import, devices add, the configuration file)
// must take them for one device; `elsewhere` is a binding of the same driver that is another device.
import type { DriverBinding } from '../../src/domain/device.ts';
import type { DeviceKind } from '../../src/domain/vocabulary.ts';

export interface IdentityCase {
  family: 'Modbus TCP' | 'Modbus RTU' | 'MQTT' | 'OCPP' | 'HTTP' | 'cloud';
  /** What the case shows, for test names. */
  name: string;
  kind: DeviceKind;
  vendor: string;
  /** An HVAC's type. */
  hvacType?: string;
  /** As the hub would have stored it: defaults left out. */
  omitted: DriverBinding;
  /** The same device: defaults written out, other spellings. */
  spellings: readonly DriverBinding[];
  /** The same driver reaching another device. */
  elsewhere: DriverBinding;
  /** Whether the configuration file can declare it (cloud cars are connected by their owner, never declared). */
  declarable: boolean;
}

export const IDENTITY_CASES: readonly IdentityCase[] = [
  {
    family: 'Modbus TCP', name: 'an SMA inverter: port 502 and unit 126 written out, as numbers, as text, in hex',
    kind: 'pvInverter', vendor: 'SMA', declarable: true,
    omitted: { type: 'sma', host: '192.168.1.20' },
    spellings: [
      { type: 'sma', host: '192.168.1.20', port: 502, unitId: 126 },
      { type: 'sma', host: '192.168.1.20', port: '502', unitId: '0x7E' },
      { type: 'sma', host: '192.168.1.20', unitId: 126, pollIntervalMs: 2000 },
    ],
    elsewhere: { type: 'sma', host: '192.168.1.20', unitId: 3 },
  },
  {
    family: 'Modbus TCP', name: 'a Huawei inverter by name: unit 1 written out, the name in capitals with its root dot',
    kind: 'pvInverter', vendor: 'HUAWEI', declarable: true,
    omitted: { type: 'huawei-sun2000', host: 'sun2000.home.arpa' },
    spellings: [
      { type: 'huawei-sun2000', host: 'SUN2000.Home.Arpa.', port: 502, unitId: 1 },
      { type: 'huawei-sun2000', host: 'sun2000.home.arpa', unitId: 1 },
    ],
    elsewhere: { type: 'huawei-sun2000', host: 'sun2000.home.arpa', port: 6607 },
  },
  {
    family: 'Modbus RTU', name: 'a Huawei inverter on RS-485: unit 1 written out, the path with a doubled slash',
    kind: 'pvInverter', vendor: 'HUAWEI', declarable: true,
    omitted: { type: 'huawei-sun2000', serialPort: '/dev/ttyUSB0' },
    spellings: [
      { type: 'huawei-sun2000', serialPort: '/dev/ttyUSB0', unitId: 1, baudRate: 9600 },
      { type: 'huawei-sun2000', serialPort: '/dev//ttyUSB0', unitId: 1 },
    ],
    elsewhere: { type: 'huawei-sun2000', serialPort: '/dev/ttyUSB0', unitId: 2 },
  },
  {
    family: 'MQTT', name: 'a go-e charger: its default topic prefix written out, with the slashes of older firmware',
    kind: 'charger', vendor: 'GO_E', declarable: true,
    omitted: { type: 'go-e', serial: '100001' },
    spellings: [
      { type: 'go-e', serial: '100001', topicPrefix: 'go-eCharger' },
      { type: 'go-e', serial: '100001', topicPrefix: '/go-eCharger/', topicForm: 'auto' },
    ],
    elsewhere: { type: 'go-e', serial: '100002' },
  },
  {
    family: 'MQTT', name: 'a Tesla through TeslaMate: its default prefix written out, the car id as text',
    kind: 'vehicle', vendor: 'TESLA', declarable: true,
    omitted: { type: 'teslamate', carId: 1 },
    spellings: [
      { type: 'teslamate', carId: 1, topicPrefix: 'teslamate' },
      { type: 'teslamate', carId: '01', topicPrefix: 'teslamate/' },
    ],
    elsewhere: { type: 'teslamate', carId: 2 },
  },
  {
    family: 'MQTT', name: 'a Vaillant zone through ebusd: every default written out',
    kind: 'hvac', vendor: 'VAILLANT', hvacType: 'HEATING_CIRCUIT', declarable: true,
    omitted: { type: 'ebusd-vaillant-zone' },
    spellings: [
      { type: 'ebusd-vaillant-zone', prefix: 'ebusd', circuit: '700', zone: '1' },
      { type: 'ebusd-vaillant-zone', zone: 1, names: 'auto' },
    ],
    elsewhere: { type: 'ebusd-vaillant-zone', zone: '2' },
  },
  {
    family: 'MQTT', name: 'a Viessmann circuit through open3e: the ECU address written out in hex with 0x, in lower case',
    kind: 'hvac', vendor: 'VIESSMANN', hvacType: 'HEATING_CIRCUIT', declarable: true,
    omitted: { type: 'open3e-viessmann-circuit' },
    spellings: [
      { type: 'open3e-viessmann-circuit', ecu: '680', prefix: 'open3e' },
      { type: 'open3e-viessmann-circuit', ecu: '0x680' },
    ],
    elsewhere: { type: 'open3e-viessmann-circuit', ecu: '6A1' },
  },
  {
    family: 'MQTT', name: 'a VW through CarConnectivity: the VIN in lower case, the default prefix written out',
    kind: 'vehicle', vendor: 'VW', declarable: true,
    omitted: { type: 'carconnectivity', vin: 'WVWZZZE1ZPP000001' },
    spellings: [
      { type: 'carconnectivity', vin: 'wvwzzze1zpp000001', topicPrefix: 'carconnectivity/0' },
      { type: 'carconnectivity', vin: 'WVWZZZE1ZPP000001', topicPrefix: 'carconnectivity/0', pluginId: 'mqtt' },
    ],
    elsewhere: { type: 'carconnectivity', vin: 'WVWZZZE1ZPP000002' },
  },
  {
    family: 'OCPP', name: 'an Easee charger: its accepted idTags and free charging written out as they default',
    kind: 'charger', vendor: 'EASEE', declarable: true,
    omitted: { type: 'ocpp', chargePointId: 'EH-100001', password: 'correct-horse-battery-1' },
    spellings: [
      { type: 'ocpp', chargePointId: 'EH-100001', password: 'correct-horse-battery-1', idTags: [], freeCharging: false },
    ],
    elsewhere: { type: 'ocpp', chargePointId: 'EH-100002', password: 'correct-horse-battery-2' },
  },
  {
    family: 'HTTP', name: 'a Daikin adapter: port 80 of its http scheme written out, the host as localhost',
    kind: 'hvac', vendor: 'DAIKIN', hvacType: 'AC', declarable: true,
    omitted: { type: 'daikin-brp069', host: '127.0.0.1' },
    spellings: [
      { type: 'daikin-brp069', host: 'localhost', port: 80 },
      { type: 'daikin-brp069', host: '127.0.0.1', port: 80, scheme: 'http', pollIntervalMs: 60_000 },
    ],
    elsewhere: { type: 'daikin-brp069', host: '127.0.0.1', port: 8080 },
  },
  {
    family: 'HTTP', name: 'an Envoy: port 443 of its https scheme written out, the host in capitals',
    kind: 'pvInverter', vendor: 'ENPHASE', declarable: false,
    omitted: { type: 'enphase-envoy', host: 'envoy.local', token: 'aaa.bbb.ccc' },
    spellings: [
      { type: 'enphase-envoy', host: 'ENVOY.local', port: 443, token: 'ddd.eee.fff' },
      { type: 'enphase-envoy', host: 'envoy.local', port: 443, scheme: 'https' },
    ],
    elsewhere: { type: 'enphase-envoy', host: 'envoy-2.local', token: 'aaa.bbb.ccc' },
  },
  {
    family: 'cloud', name: 'a Volvo from the maker\'s cloud: its VIN in lower case, another app\'s credentials',
    kind: 'vehicle', vendor: 'VOLVO', declarable: false,
    omitted: { type: 'volvo', vin: 'YV1XZK9V0R0000001', clientId: 'volvo-app', vccApiKey: 'vcckey0123456789' },
    spellings: [
      { type: 'volvo', vin: 'yv1xzk9v0r0000001', clientId: 'volvo-app', vccApiKey: 'vcckey0123456789' },
      { type: 'volvo', vin: ' YV1XZK9V0R0000001', clientId: 'another-app', vccApiKey: 'vcckey9876543210' },
    ],
    elsewhere: { type: 'volvo', vin: 'YV1XZK9V0R0000002', clientId: 'volvo-app', vccApiKey: 'vcckey0123456789' },
  },
];

/** An import record of the case's device bound by `driver`. */
export function identityRecord(c: IdentityCase, userId: string, driver: DriverBinding, name = 'Known device'): Record<string, unknown> {
  return {
    kind: c.kind, userId, driver,
    ...(c.hvacType ? { type: c.hvacType } : {}),
    ...(c.kind === 'tariff' ? { staticData: { vendor: c.vendor, name } } : { staticData: { vendor: c.vendor, name, model: 'Test model' } }),
  };
}
