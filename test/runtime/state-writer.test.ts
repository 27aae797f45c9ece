// The state writer stamps a device's first successful read even when its values are those already
// stored (a sleeping inverter, a battery at a constant charge), and writes nothing more after that.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../src/store/store.ts';
import { StateWriter } from '../../src/runtime/state-writer.ts';
import { prepareImport } from '../../src/domain/import.ts';

const BAT = '0d5c2a1e-7a4b-4f7e-9b3e-1a2b3c4d5e09';

test('the first read stamps lastUpdated although no value changed; unchanged reads after it write nothing', (t) => {
  const store = Store.open(':memory:');
  t.after(() => store.close());
  const now = Date.parse('2026-06-21T12:00:00Z');
  const record = { kind: 'battery', id: BAT, userId: 'u1', isOnline: true, staticData: { vendor: 'FRONIUS', model: 'BYD' }, chargeState: { stateOfCharge: 80, chargeRate: 0 } };
  const prepared = prepareImport([record], now, () => undefined);
  store.importDevices(prepared.devices, prepared.images, now);
  const device = store.devices.get(BAT)!;
  assert.equal(device.lastUpdatedMs, null, 'imported without a stamp');
  const writer = new StateWriter(store.db, store.devices);
  writer.track(device);
  writer.reportValues(BAT, { stateOfCharge: 80, chargeRate: 0 }, ['stateOfCharge', 'chargeRate'], now + 1_500);
  assert.deepEqual(writer.flush(), [BAT]);
  const stamped = store.devices.get(BAT)!;
  assert.equal(stamped.lastUpdatedMs, now + 1_000);
  assert.equal(stamped.state!['lastUpdated'], '2026-06-21T12:00:01Z');
  writer.reportValues(BAT, { stateOfCharge: 80, chargeRate: 0 }, ['stateOfCharge', 'chargeRate'], now + 60_000);
  assert.deepEqual(writer.flush(), [], 'the same values again: nothing written');
  assert.equal(store.devices.get(BAT)!.lastUpdatedMs, now + 1_000);
});
