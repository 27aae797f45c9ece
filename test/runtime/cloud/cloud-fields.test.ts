// What a cloud driver's values become: the origin's chargingState for BMW's and Volvo's words,
// together with the plug (drivers/cloud/*.ts, vehicleFields in src/runtime/cloud/definition.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { vehicleFields } from '../../../src/runtime/cloud/definition.ts';
import { builtInCloudDrivers } from '../../../drivers/cloud/index.ts';

const driver = (type: string) => builtInCloudDrivers().find((d) => d.type === type)!;
const fieldsOf = (type: string, values: Record<string, unknown>) => vehicleFields(driver(type), new Map(Object.entries(values)));

test('BMW\'s NOCHARGING is UNPLUGGED with the port disconnected, STOPPED with it connected or unknown', () => {
  const status = 'vehicle.drivetrain.electricEngine.charging.status';
  const port = 'vehicle.body.chargingPort.status';
  assert.deepEqual(fieldsOf('bmw-cardata', { [status]: 'NOCHARGING', [port]: 'DISCONNECTED' }), { chargingState: 'UNPLUGGED', isPlugged: false });
  assert.deepEqual(fieldsOf('bmw-cardata', { [status]: 'NOCHARGING', [port]: 'CONNECTED' }), { chargingState: 'STOPPED', isPlugged: true });
  assert.deepEqual(fieldsOf('bmw-cardata', { [status]: 'NOCHARGING' }), { chargingState: 'STOPPED' });
  // The "New Class" cars' boolean plug, and hvStatus's NOT_CHARGING, the same way.
  assert.deepEqual(fieldsOf('bmw-cardata', {
    'vehicle.drivetrain.electricEngine.charging.hvStatus': 'NOT_CHARGING', 'vehicle.powertrain.tractionBattery.charging.port.anyPosition.isPlugged': false,
  }), { chargingState: 'UNPLUGGED', isPlugged: false });
  assert.equal(fieldsOf('bmw-cardata', { [status]: 'CHARGINGACTIVE', [port]: 'CONNECTED' })['chargingState'], 'CHARGING');
  // "No charging process" is the last resort: hvStatus's FINISHED_NOT_FULL says more.
  assert.equal(fieldsOf('bmw-cardata', { [status]: 'NOCHARGING', 'vehicle.drivetrain.electricEngine.charging.hvStatus': 'FINISHED_NOT_FULL', [port]: 'CONNECTED' })['chargingState'], 'FINISHED');
});

test('a Volvo that is disconnected is UNPLUGGED whatever its charging word; IDLE plugged in is STOPPED', () => {
  assert.equal(fieldsOf('volvo', { chargingStatus: 'IDLE', chargerConnectionStatus: 'DISCONNECTED' })['chargingState'], 'UNPLUGGED');
  assert.equal(fieldsOf('volvo', { chargingStatus: 'IDLE', chargerConnectionStatus: 'CONNECTED' })['chargingState'], 'STOPPED');
});
