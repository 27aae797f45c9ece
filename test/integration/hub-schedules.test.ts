// A weekly program the hub runs itself, on a Modbus heat pump that takes a setpoint and a mode but
// keeps no program (our simulator over TCP): the schedule is submitted through the API and EXECUTED
// once the event in force is written and read back; the hub's clock is set just before the spring
// change in Berlin, so the event in the skipped hour is applied when the clock jumps. Then the hub is
// restarted (a new hub over the same data directory; and a process killed with SIGKILL): the event in
// force is not applied again, the next one is applied exactly once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ModbusSimServer, readHoldingRegisters, type SimUnit } from '../../src/sim/modbus-sim-server.ts';
import { Store } from '../../src/store/store.ts';
import { prepareImport } from '../../src/domain/import.ts';
import type { Clock } from '../../src/domain/time.ts';
import { drivenRecord, startMqttHub } from '../support/mqtt-hub.ts';
import { startBroker } from '../support/broker.ts';
import { startHubProcess, until } from '../support/process.ts';

const HEAT_PUMP = '6f1c2a4e-0000-4000-8000-0000000a5c01';
const MODES = { OFF: 0, HEAT: 1, COOL: 2, DRY: 3, AUTO: 4, REDUCED: 5 } as const;
const NAMES = Object.fromEntries(Object.entries(MODES).map(([name, code]) => [code, name]));
const KEY = 'hub-schedule-test-key-0123456789abcdef';

// Sent by an app in winter (UTC+1) for: Saturday 13:00 heat to 21 °C, Sunday 02:30 set back to 17 °C
// (on 2027-03-28 02:30 does not exist: applied at 03:00 summer time, 01:00 UTC), Sunday 03:01 heat to
// 22 °C (01:01 UTC in summer time) until 21:00.
const PROGRAM = [
  { mode: 'HEAT', temperature: 21, start: { day: 'SATURDAY', time: '12:00' } },
  { mode: 'REDUCED', temperature: 17, start: { day: 'SUNDAY', time: '01:30' } },
  { mode: 'HEAT', temperature: 22, start: { day: 'SUNDAY', time: '02:01' }, end: { day: 'SUNDAY', time: '20:00' } },
];
const JUMP = Date.parse('2027-03-28T01:00:00Z');
const NEXT = Date.parse('2027-03-28T01:01:00Z');

/** A heat pump: 100 setpoint (0.1 °C), 101 room temperature, 102 operating mode; no time program. */
class HeatPumpUnit implements SimUnit {
  readonly registers = new Map<number, number>([[100, 200], [101, 195], [102, 0]]);
  readonly writes: { what: string; atMs: number }[] = [];
  reads = 0;
  now: () => number = Date.now;
  read(fn: 3 | 4, address: number, count: number): number[] | null {
    this.reads++;
    return readHoldingRegisters(this.registers, fn, address, count);
  }
  write(address: number, values: number[]): boolean {
    if ((address !== 100 && address !== 102) || values.length !== 1) return false;
    this.registers.set(address, values[0]!);
    this.writes.push({ what: address === 100 ? `setpoint ${values[0]! / 10}` : `mode ${NAMES[values[0]!]}`, atMs: this.now() });
    return true;
  }
  take(): string[] {
    return this.writes.splice(0).map((w) => w.what);
  }
}

function heatPumpRecord(port: number) {
  return drivenRecord('hvac', HEAT_PUMP, 'DAIKIN', {
    type: 'modbus-registers', host: '127.0.0.1', port, unitId: 1, kind: 'hvac', pollIntervalMs: 200, timeZone: 'Europe/Berlin',
    points: {
      setpoint: { register: 100, type: 'int16', scale: 0.1 }, room: { register: 101, type: 'int16', scale: 0.1 }, mode: { register: 102, type: 'int16' },
    },
    fields: { targetTemperature: { point: 'setpoint', digits: 1 }, roomTemperature: { point: 'room', digits: 1 }, modeCode: { point: 'mode' } },
    commands: {
      SET_TEMPERATURE: { point: 'setpoint', value: { from: 'payload', field: 'temperature', min: 5, max: 30 }, confirmField: 'targetTemperature' },
      SET_MODE: { point: 'mode', value: { from: 'payload-enum', field: 'mode', map: MODES }, confirmField: 'modeCode' },
    },
  }, { type: 'AC' });
}

/** The system's clock, set to `iso` now and running on from there; `set` moves it (as NTP would). */
function clockAt(iso: string): Clock & { set(iso: string): void } {
  let offset = 0;
  const set = (to: string) => {
    offset = Date.parse(to) - Date.now();
  };
  set(iso);
  return { now: () => Date.now() + offset, set };
}

test('submitted through the API, EXECUTED once read back; the skipped hour at the jump; a restart applies the next event once', async (t) => {
  const unit = new HeatPumpUnit();
  const sim = await ModbusSimServer.tcp(new Map([[1, unit]]));
  t.after(() => sim.close());
  const broker = await startBroker();
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-schedules-'));
  t.after(async () => {
    await broker.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const first = clockAt('2027-03-28T00:59:00Z');
  unit.now = first.now;
  const hub = await startMqttHub(t, { broker, dataDir, clock: first, releaseFloorMs: 0, records: [heatPumpRecord(sim.port)] });
  await until('the heat pump to be read', () => (hub.daemon.modbus!.isReachable(hub.device(HEAT_PUMP)!) ? true : undefined));
  first.set('2027-03-28T00:59:55Z'); // five seconds before the clocks in Berlin jump from 02:00 to 03:00
  const res = await hub.api(`/hvacs/${HEAT_PUMP}/commands/schedule`, { method: 'POST', json: { schedules: PROGRAM } });
  assert.equal(res.status, 200);
  const submitted = (await res.json()) as { id: string; state: string };
  assert.equal(submitted.state, 'PENDING');
  const done = await hub.commandDone(submitted.id);
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
  assert.deepEqual(unit.take(), ['mode HEAT', 'setpoint 21'], 'the event in force, written before EXECUTED');
  assert.equal(hub.daemon.db.hubSchedules.get(HEAT_PUMP)?.commandId, submitted.id);

  await until('the event of the skipped hour', () => (unit.writes.length >= 2 ? true : undefined));
  const atJump = unit.writes.map((w) => w.atMs);
  assert.deepEqual(unit.take(), ['mode REDUCED', 'setpoint 17']);
  assert.ok(atJump.every((ms) => ms >= JUMP && ms < JUMP + 5_000), 'applied when the clock jumped to 03:00');
  await until('the application to be recorded', () => (hub.daemon.db.hubSchedules.get(HEAT_PUMP)?.appliedOccurrenceMs === JUMP ? true : undefined));
  await hub.stop();

  // Started again a minute later (in the week): the event in force was applied, the next one is due.
  const second = clockAt('2027-03-28T01:00:20Z');
  unit.now = second.now;
  const again = await startMqttHub(t, { broker, dataDir, clock: second, releaseFloorMs: 0 });
  const reads = unit.reads;
  await until('the new hub to read the heat pump', () => (unit.reads > reads + 2 ? true : undefined));
  assert.deepEqual(unit.take(), [], 'the event in force is not applied again');
  // The clock moves on to three seconds before the next event; the hub notices a clock set forward
  // within a minute (its timer's cap), and is told at once here so as not to wait for that.
  second.set('2027-03-28T01:00:57Z');
  again.daemon.schedules!.wake();
  await until('the next event', () => (unit.writes.length >= 2 ? true : undefined));
  const atNext = unit.writes.map((w) => w.atMs);
  assert.deepEqual(unit.take(), ['mode HEAT', 'setpoint 22']);
  assert.ok(atNext.every((ms) => ms >= NEXT && ms < NEXT + 5_000));
  await until('the application to be recorded', () => (again.daemon.db.hubSchedules.get(HEAT_PUMP)?.appliedOccurrenceMs === NEXT ? true : undefined));
  assert.deepEqual(unit.take(), [], 'once');

  // Deleting the device (the API has no DELETE for HVACs; the CLI and the API's other kinds delete
  // this way) drops its program with it.
  const device = again.device(HEAT_PUMP)!;
  again.daemon.db.deleteDevice(device, second.now());
  again.daemon.runtime.deviceDeleted(device);
  assert.equal(again.daemon.db.hubSchedules.get(HEAT_PUMP), undefined);
});

test('killed with SIGKILL after an event was applied: the restarted hub does not apply it again, and applies the next once', async (t) => {
  const unit = new HeatPumpUnit();
  const sim = await ModbusSimServer.tcp(new Map([[1, unit]]));
  const dir = mkdtempSync(join(tmpdir(), 'hub-schedules-kill-'));
  t.after(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const dataDir = join(dir, 'data');
  const dbPath = join(dataDir, 'hub.db');
  const seed = Store.open(dbPath);
  const prepared = prepareImport([heatPumpRecord(sim.port)], Date.now(), () => undefined);
  seed.importDevices(prepared.devices, prepared.images, Date.now());
  seed.close();
  const applied = () => {
    const db = new Database(dbPath, { readonly: true });
    try {
      return (db.prepare('SELECT applied_occurrence FROM hub_schedules WHERE device_id = ?').get(HEAT_PUMP) as { applied_occurrence: number } | undefined)?.applied_occurrence;
    } finally {
      db.close();
    }
  };
  const env = { HUB_DATA_DIR: dataDir, HUB_API_KEY: KEY };

  const first = await startHubProcess({ ...env, HUB_TEST_NOW: '2027-03-28T00:59:45Z' }, [], 20_000, 'test/support/hub-at.ts');
  t.after(() => first.kill());
  const res = await fetch(`${first.url}/v1.0.0/hvacs/${HEAT_PUMP}/commands/schedule`, {
    method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ schedules: PROGRAM }),
  });
  assert.equal(res.status, 200);
  const { id } = (await res.json()) as { id: string };
  const state = await until('the schedule command to finish', async () => {
    const list = await fetch(`${first.url}/v1.0.0/users/household-1/hvacs/${HEAT_PUMP}/commands?state=ALL`, { headers: { 'x-api-key': KEY } });
    const command = ((await list.json()) as { id: string; state: string }[]).find((c) => c.id === id);
    return command && command.state !== 'PENDING' ? command.state : undefined;
  });
  assert.equal(state, 'EXECUTED');
  assert.deepEqual(unit.take(), ['mode HEAT', 'setpoint 21']);
  await until('the event of the skipped hour to be applied and recorded', () => (applied() === JUMP ? true : undefined), 20_000);
  assert.deepEqual(unit.take(), ['mode REDUCED', 'setpoint 17']);
  await first.kill('SIGKILL');

  const second = await startHubProcess({ ...env, HUB_TEST_NOW: '2027-03-28T01:00:45Z' }, [], 20_000, 'test/support/hub-at.ts');
  t.after(() => second.kill());
  const reads = unit.reads;
  await until('the restarted hub to read the heat pump', () => (unit.reads > reads + 2 ? true : undefined));
  assert.deepEqual(unit.take(), [], 'the event in force is not applied again');
  await until('the next event to be applied and recorded', () => (applied() === NEXT ? true : undefined), 20_000);
  assert.deepEqual(unit.take(), ['mode HEAT', 'setpoint 22'], 'once');
});
