// The command worker's time bounds: a command's expiry while its device is unreachable, the deadline
// for recording its attempt on a card that takes no writes, and the wait for the device's
// confirmation. They are hand-made timers (bounded-signal.ts), not AbortSignal.timeout inside
// AbortSignal.any, which Node 20 may collect before it fires (nodejs/node#57736) and which faked time
// (node:test mock.timers) does not drive: here faked time drives them, and each is let go of when the
// command ends, so that none fires late or keeps the process alive.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../src/store/store.ts';
import { prepareImport } from '../../src/domain/import.ts';
import { CommandWorker } from '../../src/runtime/commands/command-worker.ts';
import type { CommandExecutor } from '../../src/runtime/commands/executor.ts';
import { HubEvents } from '../../src/runtime/events/hub-events.ts';
import type { DeviceRecord } from '../../src/domain/device.ts';
import type { CommandType } from '../../src/domain/vocabulary.ts';
import { silentLogger } from '../../src/log.ts';
import { systemClock } from '../../src/domain/time.ts';

const CHARGER = '7c000000-0000-4000-8000-00000000c001';
const TEN_MINUTES = 10 * 60_000;

/** A charger whose reachability the test sets; it confirms at once and keeps the signal it was given. */
class Charger implements CommandExecutor {
  readonly name = 'fake';
  reachable = false;
  readonly signals: AbortSignal[] = [];
  handles(device: DeviceRecord): boolean {
    return device.driver?.type === 'fake-charger';
  }
  supportedCommands(): readonly CommandType[] {
    return ['CHARGING_STOP'];
  }
  isReachable(): boolean {
    return this.reachable;
  }
  async execute(_device: DeviceRecord, _type: CommandType, _payload: unknown, signal: AbortSignal): Promise<void> {
    this.signals.push(signal);
  }
}

/** Hub events that keep the signals the worker waits with (its expiry while the device is unreachable). */
class WatchedEvents extends HubEvents {
  readonly signals = new Set<AbortSignal>();
  override next(...args: Parameters<HubEvents['next']>): ReturnType<HubEvents['next']> {
    if (args[2]) this.signals.add(args[2]);
    return super.next(...args);
  }
}

function setup(t: TestContext) {
  const store = Store.open(':memory:');
  const events = new WatchedEvents();
  const charger = new Charger();
  const worker = new CommandWorker({ store, executors: [charger], events, clock: systemClock, log: silentLogger() });
  t.after(async () => {
    await worker.stop();
    store.storage.stop();
    store.close();
  });
  const record = { kind: 'charger', id: CHARGER, userId: 'household-1', isOnline: true, driver: { type: 'fake-charger' }, staticData: { vendor: 'GO_E', name: 'wallbox', model: 'test' } };
  const prepared = prepareImport([record], Date.now(), () => undefined);
  store.importDevices(prepared.devices, prepared.images, Date.now());
  worker.start();
  const submit = (expiresInMs: number) => {
    const now = Date.now();
    const command = store.commands.create({
      id: crypto.randomUUID(), deviceId: CHARGER, deviceKind: 'charger', userId: 'household-1', type: 'CHARGING_STOP', payload: undefined, createdAtMs: now, expiresAtMs: now + expiresInMs,
    });
    worker.enqueue(command);
    return command.id;
  };
  return { store, events, charger, worker, submit };
}

/** Lets the worker's promise chains run (setImmediate is not faked here). */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Faked time up to a second before the command's deadline (still PENDING), then past it: FAILED with `reason`. */
async function failsAtDeadline(t: TestContext, store: Store, id: string, reason: string): Promise<void> {
  t.mock.timers.tick(TEN_MINUTES - 1_000);
  await settle();
  assert.equal(store.commands.get(id)?.state, 'PENDING', 'not before its deadline');
  t.mock.timers.tick(2_000);
  await settle();
  const failed = store.commands.get(id);
  assert.equal(failed?.state, 'FAILED');
  assert.equal(failed?.failedReason, reason);
}

const FULL = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

test('faked time: a command for an unreachable device waits until its deadline and then fails as expired', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.parse('2027-03-29T07:00:00Z') });
  const { store, submit } = setup(t);
  const id = submit(TEN_MINUTES);
  await settle();
  assert.match(store.commands.get(id)?.waitingReason ?? '', /^Waiting: the device is offline/);
  await failsAtDeadline(t, store, id, 'Expired: the device was unreachable until the command\'s deadline.');
});

test('faked time: a command whose device comes back runs, and neither its expiry nor its confirmation bound fires afterwards', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.parse('2027-03-29T07:00:00Z') });
  const { store, events, charger, submit } = setup(t);
  const id = submit(TEN_MINUTES);
  await settle();
  assert.equal(store.commands.get(id)?.state, 'PENDING');

  charger.reachable = true;
  t.mock.timers.tick(60_000); // the worker looks again twice a second
  await settle();
  assert.equal(store.commands.get(id)?.state, 'EXECUTED');
  assert.equal(charger.signals.length, 1);
  assert.ok(events.signals.size > 0, 'the worker waited for the device with its expiry');

  // Past the command's deadline and the confirmation's 30 s: a timer left behind would abort them now.
  t.mock.timers.tick(2 * TEN_MINUTES);
  await settle();
  assert.equal(charger.signals[0]!.aborted, false, 'the confirmation bound was cleared');
  for (const signal of events.signals) assert.equal(signal.aborted, false, 'the expiry bound was cleared');
  assert.equal(store.commands.get(id)?.state, 'EXECUTED');
});

test('faked time: a card that takes no writes until the command\'s deadline fails it unsent', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.parse('2027-03-29T07:00:00Z') });
  const { store, charger, submit } = setup(t);
  charger.reachable = true;
  // The storage is not started, so no probe finds it writable again: only the deadline ends the wait.
  t.mock.method(store.commands, 'markStarted', () => {
    throw FULL();
  });
  const id = submit(TEN_MINUTES);
  await settle();
  assert.equal(store.storage.faultKind, 'full');
  await failsAtDeadline(t, store, id, 'Expired: the hub\'s storage took no writes until the command\'s deadline, so it was not sent.');
  assert.deepEqual(charger.signals, [], 'nothing was sent');
});

test('real timers: after a command that waited for its device and for the card, no timer of the worker is left running', async (t) => {
  const { store, events, charger, submit } = setup(t);
  store.storage.start(silentLogger(), { probeMinMs: 1, probeMaxMs: 10, reserveBytes: 0 });
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const before = timers();

  // Hours to go: a bound left behind would keep the process alive that long.
  const markStarted = t.mock.method(store.commands, 'markStarted');
  markStarted.mock.mockImplementationOnce(() => {
    throw FULL();
  });
  const id = submit(6 * 60 * TEN_MINUTES);
  const done = events.next((e) => e.type === 'command' && e.command.id === id, 5_000);
  await settle();
  assert.match(store.commands.get(id)?.waitingReason ?? '', /^Waiting: the device is offline/);
  charger.reachable = true;
  const executed = await done;
  assert.equal(executed.type === 'command' && executed.command.state, 'EXECUTED');
  assert.equal(markStarted.mock.callCount(), 2, 'the attempt was recorded once the card took writes again');
  assert.equal(store.storage.recoveries, 1);

  await settle();
  assert.equal(timers(), before, 'every timer of the command was cleared');
});
