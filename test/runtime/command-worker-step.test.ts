// The command worker across a step of the wall clock (a gateway without a battery clock boots at its
// last saved time, then NTP steps it forward; a bad source steps it back). Faked time drives the
// worker's timers and a fake clock whose wall reading the test steps while its monotonic one goes on:
// a command's time to live and its confirmation are durations, its stored deadline a date re-based on
// the step. It is carried out once and EXECUTED, or FAILED unsent, never both.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../src/store/store.ts';
import { prepareImport } from '../../src/domain/import.ts';
import { CommandWorker } from '../../src/runtime/commands/command-worker.ts';
import type { CommandExecutor } from '../../src/runtime/commands/executor.ts';
import { HubEvents } from '../../src/runtime/events/hub-events.ts';
import { ClockWatch } from '../../src/runtime/clock/clock-watch.ts';
import type { DeviceRecord } from '../../src/domain/device.ts';
import type { CommandType } from '../../src/domain/vocabulary.ts';
import { silentLogger } from '../../src/log.ts';

const UNIT = '7c000000-0000-4000-8000-00000000a001';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A heat pump whose reachability the test sets; it confirms a command after `confirmMs` of (faked) time. */
class HeatPump implements CommandExecutor {
  readonly name = 'fake';
  reachable = false;
  confirmMs = 5_000;
  sent = 0;
  handles(device: DeviceRecord): boolean {
    return device.driver?.type === 'fake-heat-pump';
  }
  supportedCommands(): readonly CommandType[] {
    return ['SET_MODE'];
  }
  isReachable(): boolean {
    return this.reachable;
  }
  execute(_device: DeviceRecord, _type: CommandType, _payload: unknown, signal: AbortSignal): Promise<void> {
    this.sent++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, this.confirmMs);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason);
      }, { once: true });
    });
  }
}

function setup(t: TestContext) {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  // The wall clock the test steps; the monotonic one only moves with time.
  const clock = { wall: Date.parse('2026-11-20T08:00:00Z'), mono: 5_000, now: () => clock.wall, monotonicMs: () => clock.mono };
  const store = Store.open(':memory:');
  const pump = new HeatPump();
  const worker = new CommandWorker({ store, executors: [pump], events: new HubEvents(), clock, log: silentLogger(), settings: { confirmTimeoutMs: 30_000 } });
  const watch = new ClockWatch(clock);
  watch.on('step', (step) => worker.clockStepped(step.stepMs));
  t.after(async () => {
    await worker.stop();
    store.storage.stop();
    store.close();
  });
  const record = { kind: 'hvac', type: 'HEATING_CIRCUIT', id: UNIT, userId: 'household-1', isOnline: false, driver: { type: 'fake-heat-pump' }, staticData: { vendor: 'DAIKIN', name: 'Altherma', model: 'test' } };
  const prepared = prepareImport([record], clock.wall, () => undefined);
  store.importDevices(prepared.devices, prepared.images, clock.wall);
  worker.start();
  const submit = (ttlMs: number) => {
    const command = store.commands.create({
      id: crypto.randomUUID(), deviceId: UNIT, deviceKind: 'hvac', userId: 'household-1', type: 'SET_MODE', payload: { mode: 'OFF' }, createdAtMs: clock.wall, expiresAtMs: clock.wall + ttlMs,
    });
    worker.enqueue(command);
    return command.id;
  };
  /** Time passes: both clocks move, and the worker's timers with them (in small steps, so that its waits chain). */
  const advance = async (ms: number) => {
    for (let left = ms; left > 0; left -= 500) {
      const d = Math.min(500, left);
      clock.wall += d;
      clock.mono += d;
      t.mock.timers.tick(d);
      await settle();
    }
  };
  /** The wall clock steps (NTP), noticed as the hub's ClockWatch notices it. */
  const step = (ms: number) => {
    clock.wall += ms;
    assert.ok(watch.check(), 'the step is noticed');
  };
  return { store, pump, clock, worker, submit, advance, step };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** The deadline a waiting command names ("fails if it is not by …"), in epoch ms. */
function namedDeadline(reason: string | null | undefined): number {
  const at = /not by (\S+Z)\.$/.exec(reason ?? '')?.[1];
  assert.ok(at, `a deadline in: ${reason}`);
  return Date.parse(at);
}

test('a forward step: a command that waited for its offline unit is carried out once when it is back, and EXECUTED', async (t) => {
  const { store, pump, clock, submit, advance, step } = setup(t);
  const id = submit(15 * MINUTE);
  await advance(MINUTE);
  assert.equal(store.commands.get(id)?.state, 'PENDING');
  // NTP sets the clock after a boot without a battery clock: three days forward.
  step(3 * 24 * HOUR);
  await settle();
  const waiting = store.commands.get(id)!;
  assert.equal(waiting.state, 'PENDING');
  assert.equal(namedDeadline(waiting.waitingReason), clock.wall + 14 * MINUTE, 'the deadline named is still ahead, by what is left');
  assert.equal(waiting.expiresAtMs, clock.wall + 14 * MINUTE, 'the stored deadline moved with the clock (a restart counts what is left)');

  pump.reachable = true;
  await advance(MINUTE);
  const done = store.commands.get(id)!;
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
  assert.equal(pump.sent, 1);
});

test('a step back: the command still expires after its time to live, and names a deadline on the clock as it now reads', async (t) => {
  const { store, pump, clock, submit, advance, step } = setup(t);
  const id = submit(10 * MINUTE);
  await advance(MINUTE);
  step(-2 * HOUR);
  await settle();
  assert.equal(namedDeadline(store.commands.get(id)?.waitingReason), clock.wall + 9 * MINUTE);
  await advance(8 * MINUTE + 30_000);
  assert.equal(store.commands.get(id)?.state, 'PENDING', 'not before its time');
  await advance(MINUTE);
  const failed = store.commands.get(id)!;
  assert.equal(failed.state, 'FAILED', 'not two hours later');
  assert.match(failed.failedReason ?? '', /^Expired: the device was unreachable/);
  assert.equal(pump.sent, 0);
});

test('a command is sent only with its whole confirmation budget ahead of it: with less left it fails unsent', async (t) => {
  const { store, pump, submit, advance } = setup(t);
  const id = submit(45_000);
  await advance(20_000);
  pump.reachable = true; // 25 s left, and the unit is given 30 s to confirm
  await advance(2_000);
  const failed = store.commands.get(id)!;
  assert.equal(failed.state, 'FAILED');
  assert.match(failed.failedReason ?? '', /so it was not sent/);
  assert.equal(pump.sent, 0, 'nothing reached the unit, so FAILED is true');
});

test('a command sent with its budget ahead is given the whole of it, whatever the wall clock does meanwhile', async (t) => {
  const { store, pump, submit, advance, step } = setup(t);
  pump.reachable = true;
  pump.confirmMs = 20_000;
  const id = submit(15 * MINUTE);
  await advance(1_000);
  assert.equal(pump.sent, 1);
  step(26 * HOUR); // a wrong step forward while the unit works
  await advance(5_000);
  step(-26 * HOUR); // and its correction
  await advance(20_000);
  const done = store.commands.get(id)!;
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
  assert.equal(pump.sent, 1);
});

test('a command whose stored deadline a step back moved before its creation date is still given its whole confirmation time', async (t) => {
  const { store, pump, clock, worker, advance } = setup(t);
  pump.reachable = true;
  pump.confirmMs = 5_000;
  // Created with 15 minutes to live; the clock then went back 2 h and its stored deadline with it:
  // a hub started after that finds it so.
  const createdAtMs = clock.wall;
  clock.wall -= 2 * HOUR;
  const command = store.commands.create({
    id: crypto.randomUUID(), deviceId: UNIT, deviceKind: 'hvac', userId: 'household-1', type: 'SET_MODE', payload: { mode: 'OFF' },
    createdAtMs, expiresAtMs: createdAtMs + 15 * MINUTE - 2 * HOUR,
  });
  worker.enqueue(command);
  await advance(6_000);
  const done = store.commands.get(command.id)!;
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
  assert.equal(pump.sent, 1);
});

test('a step moves the stored deadlines of PENDING commands only: a finished command keeps its own', async (t) => {
  const { store, pump, clock, submit, advance, step } = setup(t);
  pump.reachable = true;
  pump.confirmMs = 1_000;
  const done = submit(15 * MINUTE);
  await advance(2_000);
  assert.equal(store.commands.get(done)?.state, 'EXECUTED');
  const doneDeadline = store.commands.get(done)!.expiresAtMs;
  pump.reachable = false;
  const waiting = submit(15 * MINUTE);
  await advance(1_000);
  const before = store.commands.get(waiting)!.expiresAtMs;
  step(-2 * HOUR);
  assert.equal(store.commands.get(waiting)!.expiresAtMs, before - 2 * HOUR);
  assert.equal(store.commands.get(done)!.expiresAtMs, doneDeadline);
  assert.ok(store.commands.get(waiting)!.expiresAtMs > clock.wall);
});
