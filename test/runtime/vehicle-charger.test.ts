// Which charger carries out a vehicle's CHARGING_START/STOP and SET_CHARGING_CURRENT when the
// vehicle's own driver cannot: the one its binding names (a driver's chargerId, or a `charger`
// binding for a vehicle no driver reaches), or else the owner's only plugged charger, but only when
// the plugged vehicle can be no other. A wrong guess stops or starts another car's charging, so
// every doubt fails the command with a reason that says how to name the charger.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../src/store/store.ts';
import { prepareImport } from '../../src/domain/import.ts';
import { CommandWorker } from '../../src/runtime/commands/command-worker.ts';
import type { CommandExecutor } from '../../src/runtime/commands/executor.ts';
import { HubEvents } from '../../src/runtime/events/hub-events.ts';
import type { CommandRecord } from '../../src/store/commands.ts';
import type { DeviceRecord } from '../../src/domain/device.ts';
import type { CommandType } from '../../src/domain/vocabulary.ts';
import { silentLogger } from '../../src/log.ts';
import { systemClock } from '../../src/domain/time.ts';

const OWNER = 'household-1';
const CHARGER = '7c000000-0000-4000-8000-00000000c001';
const OTHER_CHARGER = '7c000000-0000-4000-8000-00000000c002';
const TESLA = '7c000000-0000-4000-8000-00000000e001';
const VW = '7c000000-0000-4000-8000-00000000e002';
const NEIGHBOURS_CAR = '7c000000-0000-4000-8000-00000000e003';
const MERCEDES = '7c000000-0000-4000-8000-00000000e004';

/** Chargers driven by a fake runtime that records what it is asked to do; vehicles by one that can do nothing (TeslaMate). */
class Chargers implements CommandExecutor {
  readonly name = 'fake';
  readonly done: { deviceId: string; type: CommandType }[] = [];
  handles(device: DeviceRecord): boolean {
    return device.driver?.type === 'fake-charger';
  }
  supportedCommands(): readonly CommandType[] {
    return ['CHARGING_START', 'CHARGING_STOP', 'SET_CHARGING_CURRENT'];
  }
  isReachable(): boolean {
    return true;
  }
  async execute(device: DeviceRecord, type: CommandType): Promise<void> {
    this.done.push({ deviceId: device.id, type });
  }
}

const readOnlyCars: CommandExecutor = {
  name: 'read-only', handles: (d) => d.driver?.type === 'read-only-car', supportedCommands: () => [], isReachable: () => true,
  execute: async () => { throw new Error('never called'); },
};

function charger(id: string, isPlugged: boolean, isOnline = true, userId = OWNER) {
  return {
    kind: 'charger', id, userId, isOnline, driver: { type: 'fake-charger' },
    staticData: { vendor: 'GO_E', name: 'wallbox', model: 'test' },
    chargeState: { isPlugged, chargingState: isPlugged ? 'CHARGING' : 'UNPLUGGED' },
  };
}

function vehicle(id: string, driver: Record<string, unknown> | undefined, userId = OWNER) {
  return { kind: 'vehicle', id, userId, isOnline: driver !== undefined, ...(driver ? { driver } : {}), staticData: { vendor: 'TESLA', name: 'car', model: 'test' } };
}

function setup(t: import('node:test').TestContext, records: unknown[]) {
  const store = Store.open(':memory:');
  const events = new HubEvents();
  const chargers = new Chargers();
  const worker = new CommandWorker({ store, executors: [chargers, readOnlyCars], events, clock: systemClock, log: silentLogger() });
  t.after(async () => {
    await worker.stop();
    store.close();
  });
  const prepared = prepareImport(records, Date.now(), (id) => store.devices.get(id)?.kind);
  store.importDevices(prepared.devices, prepared.images, Date.now());
  worker.start();
  const run = async (deviceId: string, type: CommandType = 'CHARGING_STOP'): Promise<CommandRecord> => {
    const now = Date.now();
    const command = store.commands.create({
      id: crypto.randomUUID(), deviceId, deviceKind: 'vehicle', userId: store.devices.get(deviceId)!.userId, type, payload: undefined, createdAtMs: now, expiresAtMs: now + 60_000,
    });
    const done = events.next((e) => e.type === 'command' && e.command.id === command.id, 5000);
    worker.enqueue(command);
    return ((await done) as Extract<Awaited<typeof done>, { type: 'command' }>).command;
  };
  /** What a vehicle's bridge reports, as its runtime would store it. */
  const report = (id: string, state: Record<string, unknown>) => store.devices.updateState(id, state, true, Date.now());
  return { store, chargers, run, report };
}

/** What the reason asks of the installer: a chargerId in the vehicle's binding, or, without a driver, a charger binding. */
const ADVICE = {
  chargerId: /; set chargerId in the vehicle's binding \(driver read-only-car\) to the id of the charger it charges at/,
  binding: /; bind the vehicle, which has no driver, to the charger it charges at: \{"type":"charger","chargerId":"<id of the charger>"\}/,
};

function assertRefused(command: CommandRecord, why: RegExp, advice: RegExp = ADVICE.chargerId): void {
  assert.equal(command.state, 'FAILED');
  assert.match(command.failedReason ?? '', why);
  assert.match(command.failedReason ?? '', advice, 'the reason tells the installer what to do');
}

test('the demo\'s case: a driverless VW of an owner whose Tesla is plugged into the only charger fails, and the charger is not touched', async (t) => {
  const { chargers, run, report } = setup(t, [charger(CHARGER, true), vehicle(TESLA, { type: 'read-only-car' }), vehicle(VW, undefined)]);
  report(TESLA, { isPlugged: true, chargingState: 'CHARGING' });
  const vw = await run(VW);
  assertRefused(vw, /CHARGING_STOP is not supported: no driver reaches the vehicle itself, and its owner has 2 vehicles on this hub, so the hub cannot tell which one is plugged into charger/, ADVICE.binding);
  // Without chargerId, the Tesla is no surer a match: the VW might be the one plugged in.
  assertRefused(await run(TESLA), /the vehicle's driver \(read-only-car\) cannot do it, and its owner has 2 vehicles/);
  assert.deepEqual(chargers.done, []);
});

test('a vehicle binding\'s chargerId routes its commands to that charger, whatever else the owner has', async (t) => {
  const { chargers, run } = setup(t, [
    charger(CHARGER, true), charger(OTHER_CHARGER, true), vehicle(TESLA, { type: 'read-only-car', chargerId: CHARGER }), vehicle(VW, undefined),
  ]);
  const stop = await run(TESLA);
  assert.equal(stop.state, 'EXECUTED', stop.failedReason ?? '');
  const current = await run(TESLA, 'SET_CHARGING_CURRENT');
  assert.equal(current.state, 'EXECUTED', current.failedReason ?? '');
  assert.deepEqual(chargers.done, [{ deviceId: CHARGER, type: 'CHARGING_STOP' }, { deviceId: CHARGER, type: 'SET_CHARGING_CURRENT' }]);
  assertRefused(await run(VW), /2 chargers of its owner report a plugged-in vehicle/, ADVICE.binding);
});

test('the owner\'s only vehicle goes through the owner\'s only plugged, online charger; other owners\' cars do not count', async (t) => {
  const { chargers, run } = setup(t, [
    charger(CHARGER, true), charger(OTHER_CHARGER, false), vehicle(VW, undefined),
    vehicle(NEIGHBOURS_CAR, undefined, 'household-2'), charger('7c000000-0000-4000-8000-00000000c003', true, true, 'household-2'),
  ]);
  const stop = await run(VW);
  assert.equal(stop.state, 'EXECUTED', stop.failedReason ?? '');
  assert.deepEqual(chargers.done, [{ deviceId: CHARGER, type: 'CHARGING_STOP' }]);
});

test('the only vehicle is refused while it says it is unplugged, and served once it says it is plugged in', async (t) => {
  const { chargers, run, report } = setup(t, [charger(CHARGER, true), vehicle(TESLA, { type: 'read-only-car' })]);
  report(TESLA, { isPlugged: false, chargingState: 'UNPLUGGED' });
  assertRefused(await run(TESLA), /the vehicle reports that it is not plugged in, so the vehicle at charger 7c000000-0000-4000-8000-00000000c001 is not this one/);
  report(TESLA, { chargingState: 'UNPLUGGED' });
  assertRefused(await run(TESLA), /reports that it is not plugged in/);
  report(TESLA, { isPlugged: true, chargingState: 'CHARGING' });
  const stop = await run(TESLA);
  assert.equal(stop.state, 'EXECUTED', stop.failedReason ?? '');
  assert.deepEqual(chargers.done, [{ deviceId: CHARGER, type: 'CHARGING_STOP' }]);
});

test('no plugged online charger, or an offline one: refused with the same advice', async (t) => {
  const { chargers, run } = setup(t, [charger(CHARGER, true, false), charger(OTHER_CHARGER, false), vehicle(VW, undefined)]);
  assertRefused(await run(VW, 'CHARGING_START'), /CHARGING_START is not supported: no driver reaches the vehicle itself, and no charger of its owner reports a plugged-in vehicle/, ADVICE.binding);
  assert.deepEqual(chargers.done, []);
});

test('a driverless vehicle bound to its charger is served through that charger in a two-car household', async (t) => {
  // Both chargers report a car, and the owner has two: without the bindings nothing could be told apart.
  const { store, chargers, run } = setup(t, [
    charger(CHARGER, true), charger(OTHER_CHARGER, true),
    vehicle(TESLA, { type: 'read-only-car', chargerId: OTHER_CHARGER.toUpperCase() }),
    { ...vehicle(MERCEDES, { type: 'charger', chargerId: CHARGER.toUpperCase() }), staticData: { vendor: 'MERCEDES', name: 'cloud car', model: 'EQE' } },
  ]);
  assert.deepEqual(store.devices.get(MERCEDES)?.driver, { type: 'charger', chargerId: CHARGER }, 'kept in lower case, as ids are');
  for (const type of ['CHARGING_STOP', 'CHARGING_START', 'SET_CHARGING_CURRENT'] as const) {
    const command = await run(MERCEDES, type);
    assert.equal(command.state, 'EXECUTED', command.failedReason ?? '');
  }
  // A chargerId written by hand in another case still names its charger.
  const tesla = await run(TESLA);
  assert.equal(tesla.state, 'EXECUTED', tesla.failedReason ?? '');
  assert.deepEqual(chargers.done, [
    { deviceId: CHARGER, type: 'CHARGING_STOP' }, { deviceId: CHARGER, type: 'CHARGING_START' },
    { deviceId: CHARGER, type: 'SET_CHARGING_CURRENT' }, { deviceId: OTHER_CHARGER, type: 'CHARGING_STOP' },
  ]);
});

test('a charger binding that names a charger not on the hub fails with a reason, and is not replaced by a guess', async (t) => {
  const missing = '7c000000-0000-4000-8000-00000000c0ff';
  // The owner's only vehicle and only plugged charger: the guess would pick it, but the binding says otherwise.
  const { chargers, run } = setup(t, [charger(CHARGER, true), vehicle(MERCEDES, { type: 'charger', chargerId: missing })]);
  const stop = await run(MERCEDES);
  assert.equal(stop.state, 'FAILED');
  assert.equal(stop.failedReason, `CHARGING_STOP is not supported: no driver reaches the vehicle itself, and the charger its binding names (${missing}) is not on this hub.`);
  assert.deepEqual(chargers.done, []);
});
