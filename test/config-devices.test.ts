// Modbus buses and devices declared in the configuration: every problem at once with its path, and
// at start the declared devices are added, keep their state across restarts, and stay deleted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, ConfigError } from '../src/config.ts';
import { tempFile } from './support/files.ts';
import { applyConfiguredDevices, configuredId } from '../src/configured-devices.ts';
import { Store } from '../src/store/store.ts';
import { silentLogger } from '../src/log.ts';

const yamlFile = (t: { after: (fn: () => void) => void }, text: string) => tempFile(t, 'hub.yaml', text);

const GOOD = `
modbus:
  buses:
    rs485:
      serialPort: /dev/ttyUSB0
      baudRate: 9600
      parity: even
devices:
  - kind: meter
    userId: household-1
    vendor: SMA
    name: Grid meter
    driver: { type: modbus-registers, bus: rs485, unitId: 3, kind: meter, points: { p: { register: 10, type: int16, unit: W } }, fields: { } }
  - kind: pvInverter
    userId: household-1
    vendor: FRONIUS
    driver: { type: fronius, host: 192.168.1.50 }
`;

test('declared buses and devices load; a named bus becomes the serial settings of the binding', (t) => {
  const config = loadConfig({ HUB_CONFIG: yamlFile(t, GOOD) });
  assert.equal(config.devices.length, 2);
  assert.equal(config.modbus.buses['rs485']?.parity, 'even');
  const store = Store.open(':memory:');
  t.after(() => store.close());
  assert.deepEqual(applyConfiguredDevices(store, config, 1000, silentLogger()), { added: 2, updated: 0, deleted: 0 });
  const meter = store.devices.get(configuredId(config.devices[0]!, config))!;
  assert.equal(meter.driver?.['serialPort'], '/dev/ttyUSB0');
  assert.equal(meter.driver?.['baudRate'], 9600);
  assert.equal(meter.driver?.['parity'], 'even');
  assert.equal(meter.driver?.['unitId'], 3);
  assert.equal(meter.name, 'Grid meter');
  assert.match(meter.id, /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test('a restart keeps the state of declared devices; a deleted one is not added again', (t) => {
  const config = loadConfig({ HUB_CONFIG: yamlFile(t, GOOD) });
  const store = Store.open(':memory:');
  t.after(() => store.close());
  applyConfiguredDevices(store, config, 1000, silentLogger());
  const inverterId = configuredId(config.devices[1]!, config);
  store.devices.updateState(inverterId, { state: 'PRODUCING', solarPower: 3.2 }, true, 2000);
  assert.deepEqual(applyConfiguredDevices(store, config, 3000, silentLogger()), { added: 0, updated: 0, deleted: 0 });
  assert.equal(store.devices.get(inverterId)?.state?.['solarPower'], 3.2);
  store.deleteDevice(store.devices.get(inverterId)!, 4000);
  assert.deepEqual(applyConfiguredDevices(store, config, 5000, silentLogger()), { added: 0, updated: 0, deleted: 1 });
  assert.equal(store.devices.get(inverterId), undefined);
});

test('every problem of declared devices is reported at once, with its path', (t) => {
  const file = yamlFile(t, `
devices:
  - kind: meter
    userId: u
    vendor: GO_E
    driver: { type: modbus-registers, bus: nowhere, unitId: 1 }
  - kind: hvac
    userId: u
    vendor: VAILLANT
    driver: { type: warp-drive }
  - kind: charger
    userId: u
    vendor: GO_E
    driver: { type: go-e, serial: "012345" }
  - kind: battery
    userId: u
    vendor: FRONIUS
    driver: { type: fronius }
`);
  assert.throws(() => loadConfig({ HUB_CONFIG: file }), (err: unknown) => {
    assert.ok(err instanceof ConfigError);
    const byField = Object.fromEntries(err.problems.map((p) => [p.field, p.message]));
    assert.match(byField['devices[0].vendor']!, /must be one of FRONIUS, SMA, HUAWEI, TESLA, ENPHASE/);
    assert.match(byField['devices[0].driver.bus']!, /bus "nowhere", which modbus.buses does not declare/);
    assert.match(byField['devices[1].type']!, /needs its type/);
    assert.match(byField['devices[1].driver']!, /unknown driver type "warp-drive"/);
    assert.match(byField['devices[2].driver']!, /no mqtt broker is configured/);
    assert.match(byField['devices[3].driver']!, /host \(TCP\) or serialPort \(RTU\)/);
    return true;
  });
});

test('a vehicle with no driver is declared bound to its charger; the binding is refused on other kinds and without a charger id', (t) => {
  const charger = '4b9a6e5c-be8f-4dbc-9f7c-5e6f7a8b9c01';
  const config = loadConfig({ HUB_CONFIG: yamlFile(t, `
devices:
  - kind: vehicle
    userId: household-1
    vendor: MERCEDES
    driver: { type: charger, chargerId: ${charger.toUpperCase()} }
  - kind: vehicle
    userId: household-1
    vendor: BMW
    driver: { type: charger, chargerId: ${charger} }
`) });
  const store = Store.open(':memory:');
  t.after(() => store.close());
  assert.deepEqual(applyConfiguredDevices(store, config, 1000, silentLogger()), { added: 2, updated: 0, deleted: 0 });
  const [mercedes, bmw] = config.devices.map((d) => store.devices.get(configuredId(d, config))!);
  assert.deepEqual(mercedes?.driver, { type: 'charger', chargerId: charger }, 'kept in lower case, as ids are');
  assert.notEqual(mercedes?.id, bmw?.id, 'two cars at one charger are two devices');
  // Deleting one car does not keep the other, bound to the same charger, out.
  store.deleteDevice(mercedes!, 2000);
  assert.deepEqual(applyConfiguredDevices(store, config, 3000, silentLogger()), { added: 0, updated: 0, deleted: 1 });
  assert.ok(store.devices.get(bmw!.id));

  const file = yamlFile(t, `
devices:
  - kind: charger
    userId: u
    vendor: GO_E
    driver: { type: charger, chargerId: ${charger} }
  - kind: vehicle
    userId: u
    vendor: VOLVO
    driver: { type: charger }
  - kind: vehicle
    userId: u
    vendor: BMW
    driver: { type: charger, chargerId: wallbox, note: garage }
`);
  assert.throws(() => loadConfig({ HUB_CONFIG: file }), (err: unknown) => {
    assert.ok(err instanceof ConfigError);
    const byField = Object.fromEntries(err.problems.map((p) => [p.field, p.message]));
    assert.match(byField['devices[0].driver.type']!, /a charger cannot be bound to a charger: "charger" binds a vehicle with no driver of its own/);
    assert.match(byField['devices[1].driver.chargerId']!, /is required/);
    assert.match(byField['devices[2].driver.chargerId']!, /must be a UUID/);
    assert.match(byField['devices[2].driver.note']!, /is not a known field of a charger binding/);
    assert.equal(err.problems.length, 4, JSON.stringify(err.problems));
    return true;
  });
});

test('a declared vehicle carries its VIN, engine type, capacity and variant, an HVAC its room; on another kind they are refused', (t) => {
  const config = loadConfig({ HUB_CONFIG: yamlFile(t, `
devices:
  - kind: vehicle
    userId: household-1
    vendor: BMW
    model: i4 eDrive40
    vin: WBA71AW010CH12345
    engineType: BEV
    batteryCapacity: 80.7
    vehicleVariant: Gran Coupé
    driver: { type: charger, chargerId: 4b9a6e5c-be8f-4dbc-9f7c-5e6f7a8b9c01 }
  - kind: hvac
    userId: household-1
    vendor: DAIKIN
    type: AC
    room: Bedroom
    driver: { type: daikin-brp069, host: 192.168.1.60 }
`) });
  const store = Store.open(':memory:');
  t.after(() => store.close());
  applyConfiguredDevices(store, config, 1000, silentLogger());
  const [car, ac] = config.devices.map((d) => store.devices.get(configuredId(d, config))!);
  assert.deepEqual({ ...car!.staticData, lastUpdated: undefined }, {
    lastUpdated: undefined, vin: 'WBA71AW010CH12345', engineType: 'BEV', batteryCapacity: 80.7, vehicleVariant: 'Gran Coupé',
  });
  assert.equal(ac!.staticData['room'], 'Bedroom');

  const wrong = yamlFile(t, `
devices:
  - kind: battery
    userId: u
    vendor: SMA
    room: Cellar
    vin: WBA71AW010CH12345
    driver: { type: sma, host: 192.168.1.70 }
  - kind: vehicle
    userId: u
    vendor: BMW
    vin: NOTAVIN
    driver: { type: charger, chargerId: 4b9a6e5c-be8f-4dbc-9f7c-5e6f7a8b9c01 }
`);
  assert.throws(() => loadConfig({ HUB_CONFIG: wrong }), (err: ConfigError) => {
    // Every problem at once: the field on the wrong kind, and a field that is malformed.
    assert.deepEqual(err.problems.map((p) => `${p.field}: ${p.message}`).sort(), [
      'devices[0].room: only HVAC devices have a room', 'devices[0].vin: only vehicles have a vin',
      'devices[1].vin: must be a VIN of 17 characters (digits and capitals but I, O and Q)',
    ]);
    return true;
  });
});
