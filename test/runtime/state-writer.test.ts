// The state writer stamps a device's first successful read even when its values are those already
// stored (a sleeping inverter, a battery at a constant charge), and writes nothing more after that:
// later reads of the same values move lastUpdated in memory only (also back, after a clock step).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../src/store/store.ts';
import { StateWriter } from '../../src/runtime/devices/state-writer.ts';
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
  const rows = writer.rowsWritten;
  writer.reportValues(BAT, { stateOfCharge: 80, chargeRate: 0 }, ['stateOfCharge', 'chargeRate'], now + 60_000);
  assert.deepEqual(writer.flush(), [], 'the same values again: nothing written');
  assert.equal(writer.rowsWritten, rows);
  assert.equal(stored(store), now + 1_000, 'the table keeps the stamp of the last change');
  assert.equal(store.devices.get(BAT)!.lastUpdatedMs, now + 60_000, 'readers see the read that confirmed the values');
  assert.equal(store.devices.get(BAT)!.state!['lastUpdated'], '2026-06-21T12:01:00Z');
  assert.equal(store.devices.persistLive(), 0, 'a confirmation alone is never written');
  assert.equal(store.devices.persistLive(true), 1, 'but a clean stop writes it, once');
  assert.equal(stored(store), now + 60_000, 'the restarted hub shows when the values were last measured');
  assert.equal(store.devices.persistLive(true), 0, 'nothing left to write');
});

test('after the clock steps, an unchanged value polled every 2 s shows the time of the latest poll, not one from before the step', (t) => {
  const store = Store.open(':memory:');
  t.after(() => store.close());
  store.devices.holdTelemetry = true;
  const now = Date.parse('2026-11-20T08:00:00Z');
  const prepared = prepareImport([{ kind: 'battery', id: BAT, userId: 'u1', isOnline: true, staticData: { vendor: 'FRONIUS', model: 'BYD' }, chargeState: { stateOfCharge: 80, chargeRate: 0 } }], now, () => undefined);
  store.importDevices(prepared.devices, prepared.images, now);
  const writer = new StateWriter(store.db, store.devices);
  writer.track(store.devices.get(BAT)!);
  writer.reportValues(BAT, { stateOfCharge: 80, chargeRate: 0 }, ['stateOfCharge', 'chargeRate'], now);
  writer.flush();
  const stepped = now + 3 * 24 * 3600_000; // NTP steps the clock forward by a three-day outage
  writer.reportValues(BAT, { stateOfCharge: 80, chargeRate: 0 }, ['stateOfCharge', 'chargeRate'], stepped + 2_000);
  writer.flush();
  assert.equal(store.devices.get(BAT)!.lastUpdatedMs, stepped + 2_000);
  const listed = store.devices.list({ kind: 'battery', lastUpdatedFromMs: stepped }, { page: 0, size: 10, sortField: 'VENDOR', sortOrder: 'ASC' });
  assert.equal(listed.total, 1, 'lists filtered on lastUpdated see it too');
  // A change then writes the values with their stamp, at the telemetry interval as before.
  writer.reportValues(BAT, { stateOfCharge: 81, chargeRate: 0 }, ['stateOfCharge', 'chargeRate'], stepped + 4_000);
  writer.flush();
  assert.equal(store.devices.persistLive(), 1);
  assert.equal(stored(store), stepped + 4_000);
});

function stored(store: Store): number {
  return (store.db.prepare('SELECT last_updated FROM devices WHERE id = ?').get(BAT) as { last_updated: number }).last_updated;
}

test('a change inside a nested value is a change: a curve whose slots moved, at the same prices, is written', (t) => {
  const store = Store.open(':memory:');
  t.after(() => store.close());
  const TARIFF = '6dbc8a7e-0000-4000-8000-00000000aa09';
  const now = Date.parse('2026-11-27T12:00:00Z');
  const prepared = prepareImport([{ kind: 'tariff', id: TARIFF, userId: 'u1', staticData: { vendor: 'TIBBER', currency: 'EUR' } }], now, () => undefined);
  store.importDevices(prepared.devices, prepared.images, now);
  const writer = new StateWriter(store.db, store.devices);
  writer.track(store.devices.get(TARIFF)!);
  const curve = (fromMs: number) => [{ startMs: fromMs, endMs: fromMs + 3_600_000, pricePerKwh: 0.3 }];
  writer.reportValues(TARIFF, { pricePerKwh: 0.3, forecast: curve(now) }, ['pricePerKwh', 'forecast'], now);
  assert.deepEqual(writer.flush(), [TARIFF]);
  writer.reportValues(TARIFF, { pricePerKwh: 0.3, forecast: curve(now + 3_600_000) }, ['pricePerKwh', 'forecast'], now + 2_000);
  assert.deepEqual(writer.flush(), [TARIFF], 'the slot\'s start moved');
  assert.deepEqual(store.devices.get(TARIFF)!.state!['forecast'], curve(now + 3_600_000));
});
