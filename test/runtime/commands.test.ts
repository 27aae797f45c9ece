// The command worker with real drivers: a Modbus heat pump (our simulator over TCP) and go-e chargers
// over a real broker. Order per device, expiry, deletion, unsupported types, a broker restarted in
// the middle of a command, and a Modbus write confirmed by reading it back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ModbusSimServer } from '../../src/sim/modbus-sim-server.ts';
import { HEAT_PUMP, HeatPumpUnit, heatPumpRecord } from '../support/heat-pump-unit.ts';
import { GoESim } from '../../src/sim/mqtt/go-e-sim.ts';
import { drivenRecord, startMqttHub } from '../support/mqtt-hub.ts';

const CHARGER = '6f1c2a4e-0000-4000-8000-00000000c002';

test('Modbus: SET_TEMPERATURE is written and confirmed by reading it back; a value the device does not keep fails', async (t) => {
  const unit = new HeatPumpUnit();
  const sim = await ModbusSimServer.tcp(new Map([[1, unit]]));
  t.after(() => sim.close());
  const hub = await startMqttHub(t, { records: [heatPumpRecord(sim.port)] });

  const done = await hub.commandDone(hub.submit(HEAT_PUMP, 'SET_TEMPERATURE', { temperature: 21.5 }).id);
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
  assert.equal(unit.registers.get(100), 215);

  unit.clampAt = 220;
  const clamped = await hub.commandDone(hub.submit(HEAT_PUMP, 'SET_TEMPERATURE', { temperature: 25 }).id);
  assert.equal(clamped.state, 'FAILED');
  assert.match(clamped.failedReason ?? '', /reads back 22 instead of 25/);

  const schedule = await hub.commandDone(hub.submit(HEAT_PUMP, 'SET_SCHEDULE', { schedules: [{ mode: 'HEAT', start: { time: '06:00', day: 'MONDAY' } }] }).id);
  assert.equal(schedule.state, 'FAILED');
  // The heat pump keeps no program, so the hub runs one for it (hub-schedules.ts): with a setpoint
  // only, every event needs a temperature.
  assert.match(schedule.failedReason ?? '', /can set a temperature but not the mode, so every event of the schedule needs a temperature/);

  sim.setFault(1, { kind: 'exception', code: 4 });
  const broken = await hub.commandDone(hub.submit(HEAT_PUMP, 'SET_TEMPERATURE', { temperature: 19 }).id);
  assert.equal(broken.state, 'FAILED');
  assert.match(broken.failedReason ?? '', /Modbus exception 4|could not be written/);
});

test('Modbus: a device that has just gone away keeps its command, which runs once it is back (nothing was sent)', async (t) => {
  const unit = new HeatPumpUnit();
  let sim = await ModbusSimServer.tcp(new Map([[1, unit]]));
  const port = sim.port;
  t.after(() => sim.close());
  // Polled rarely, so that the hub still counts the heat pump reachable when the command comes.
  const record = heatPumpRecord(port);
  (record.driver as { pollIntervalMs: number }).pollIntervalMs = 60_000;
  const hub = await startMqttHub(t, { records: [record] });
  const online = () => hub.device(HEAT_PUMP)?.isOnline === true;
  if (!online()) await hub.event((e) => e.type !== 'command' && e.device.id === HEAT_PUMP && online());

  // The heat pump's Modbus server goes away; a live read finds its connection closed.
  await sim.close();
  await assert.rejects(hub.daemon.runtime.refresh(hub.device(HEAT_PUMP)!));
  const submitted = hub.submit(HEAT_PUMP, 'SET_TEMPERATURE', { temperature: 22 });
  await hub.event((e) => e.type === 'command' || (e.device.id === HEAT_PUMP && !online()), 5_000).catch(() => undefined);
  const waiting = hub.daemon.db.commands.get(submitted.id)!;
  assert.equal(waiting.state, 'PENDING', `an attempt that reached nothing does not fail the command (${waiting.failedReason})`);
  assert.equal(waiting.startedAtMs, null, 'nor counts as sent (after a crash now it must not fail as maybe sent)');

  sim = await ModbusSimServer.tcp(new Map([[1, unit]]), { port });
  const done = await hub.commandDone(submitted.id, 30_000);
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
  assert.equal(unit.registers.get(100), 220);
});

test('commands of one device run in order, one at a time; an expired one fails without being sent', async (t) => {
  const hub = await startMqttHub(t, { records: [drivenRecord('charger', CHARGER, 'GO_E', { type: 'go-e', serial: '222222' })] });
  const sim = new GoESim(hub.broker.url, '222222');
  t.after(() => sim.stop());
  const online = hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.isOnline);
  await sim.start();
  await online;
  sim.faults.delayMs = 50;
  const ids = [10, 11, 12].map((current) => hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current }).id);
  const expired = hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 13 }, 1).id;
  for (const id of ids) assert.equal((await hub.commandDone(id)).state, 'EXECUTED');
  const late = await hub.commandDone(expired);
  assert.equal(late.state, 'FAILED');
  assert.match(late.failedReason ?? '', /Expired/);
  const sent = sim.received.filter((m) => m.topic.endsWith('amp/set')).map((m) => m.payload);
  assert.deepEqual(sent, ['10', '11', '12'], 'in submission order, the expired one never sent');
  const finished = ids.map((id) => hub.daemon.db.commands.get(id)!.lastUpdatedMs);
  assert.deepEqual([...finished].sort((a, b) => a - b), finished);
});

test('deleting a device fails its running and waiting commands', async (t) => {
  const hub = await startMqttHub(t, { records: [drivenRecord('charger', CHARGER, 'GO_E', { type: 'go-e', serial: '333333' })] });
  const sim = new GoESim(hub.broker.url, '333333');
  t.after(() => sim.stop());
  const online = hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.isOnline);
  await sim.start();
  await online;
  sim.faults.silent = true;
  const running = hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 8 });
  const waiting = hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 9 });
  const sent = new Promise<void>((resolve) => {
    const check = () => (sim.received.some((m) => m.payload === '8') ? resolve() : setImmediate(check));
    check();
  });
  await sent;
  const response = await hub.api(`/chargers/${CHARGER}`, { method: 'DELETE' });
  assert.equal(response.status, 200);
  const [a, b] = [await hub.commandDone(running.id), await hub.commandDone(waiting.id)];
  assert.equal(a.state, 'FAILED');
  assert.equal(b.state, 'FAILED');
  assert.match(a.failedReason ?? '', /deleted/);
  assert.match(b.failedReason ?? '', /deleted/);
  assert.equal(sim.received.filter((m) => m.payload === '9').length, 0);
});

test('a broker restarted in the middle of a command: the command fails or completes, and is never replayed late', async (t) => {
  const hub = await startMqttHub(t, {
    records: [drivenRecord('charger', CHARGER, 'GO_E', { type: 'go-e', serial: '444444' })],
    config: { commands: { confirmTimeoutSeconds: 2 } },
  });
  const sim = new GoESim(hub.broker.url, '444444');
  t.after(() => sim.stop());
  const online = hub.event((e) => e.type === 'update' && e.device.id === CHARGER && e.device.isOnline);
  await sim.start();
  await online;
  sim.faults.silent = true; // takes the command, answers nothing: the command is in flight
  const command = hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 7 });
  await new Promise<void>((resolve) => {
    const check = () => (sim.received.some((m) => m.payload === '7') ? resolve() : setImmediate(check));
    check();
  });
  await hub.broker.restart();
  const done = await hub.commandDone(command.id);
  assert.equal(done.state, 'FAILED');
  assert.match(done.failedReason ?? '', /did not confirm within 2 s/);
  // Both ends reconnect and resubscribe; the hub works again and never re-sent the old command.
  sim.faults.silent = false;
  await hub.daemon.broker!.whenConnected(AbortSignal.timeout(10_000));
  const reconnected = hub.event((e) => e.type === 'update' && e.device.id === CHARGER, 15_000);
  await sim.plugIn();
  await reconnected;
  const next = await hub.commandDone(hub.submit(CHARGER, 'SET_CHARGING_CURRENT', { current: 9 }).id);
  assert.equal(next.state, 'EXECUTED', next.failedReason ?? '');
  assert.equal(sim.received.filter((m) => m.payload === '7').length, 1, 'the timed-out command was sent once');
});
