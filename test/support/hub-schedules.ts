// The hub-run schedule's test bench on mocked time (node:test mock.timers): one AC whose fake driver
// logs what reached it and when, and hubs started on it (test/runtime/hub-schedules*.test.ts).
import type { TestContext } from 'node:test';
import { Store } from '../../src/store/store.ts';
import { prepareImport } from '../../src/domain/import.ts';
import { silentLogger } from '../../src/log.ts';
import type { DeviceRecord } from '../../src/domain/device.ts';
import type { CommandType } from '../../src/domain/vocabulary.ts';
import { CommandFailure, type CommandExecutor } from '../../src/runtime/commands/executor.ts';
import { HubSchedules, type HubSchedulesDeps } from '../../src/runtime/commands/hub-schedules.ts';
import type { ScheduleEvent } from '../../src/domain/schedule-event.ts';

export const AC = '6f1c2a4e-0000-4000-8000-0000000ac001';
const clock = { now: () => Date.now() };
export const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** A driver that sets mode and temperature, with a log of what reached the device and when. */
export class FakeAc implements CommandExecutor {
  readonly name = 'fake';
  reachable = true;
  refuse: string | undefined;
  commands: CommandType[] = ['SET_MODE', 'SET_TEMPERATURE'];
  readonly writes: string[] = [];
  /** While set, a write waits for it (a slow device). */
  hold: Promise<void> | undefined;
  handles(device: DeviceRecord): boolean {
    return device.driver?.type === 'fake-ac';
  }
  supportedCommands(): readonly CommandType[] {
    return this.commands;
  }
  isReachable(): boolean {
    return this.reachable;
  }
  async execute(_device: DeviceRecord, type: CommandType, payload: unknown): Promise<void> {
    if (this.refuse) throw new CommandFailure(this.refuse);
    if (this.hold) await this.hold;
    const body = payload as { mode?: string; temperature?: number };
    this.writes.push(`${iso(Date.now())} ${type} ${body.mode ?? body.temperature}`);
  }
  take(): string[] {
    return this.writes.splice(0);
  }
}

export function setUp(t: TestContext, startIso: string, extra: Partial<HubSchedulesDeps> = {}) {
  const store = Store.open(':memory:');
  const prepared = prepareImport([{
    kind: 'hvac', id: AC, userId: 'household-1', isOnline: true, lastUpdated: '2026-01-01T00:00:00Z',
    type: 'AC',
    staticData: { vendor: 'DAIKIN', name: 'Living room', model: 'test' }, driver: { type: 'fake-ac', timeZone: 'Europe/Berlin' },
  }], Date.now(), () => undefined);
  store.importDevices(prepared.devices, prepared.images, Date.now());
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.parse(startIso) });
  const ac = new FakeAc();
  const hubs: HubSchedules[] = [];
  const newHub = () => {
    const hub = new HubSchedules({ store, executors: [ac], clock, log: silentLogger(), settings: { retryMinMs: 30_000, retryMaxMs: 120_000 }, ...extra });
    hubs.push(hub);
    hub.start();
    return hub;
  };
  t.after(async () => {
    for (const hub of hubs) await hub.stop();
    store.close();
  });
  const device = () => store.devices.get(AC)!;
  /**
   * Lets time pass to each whole half minute in turn (events and retries fall on them), running what
   * the timers start: what a timer starts runs after its tick, so the writes carry the tick's end.
   */
  const runUntil = async (untilIso: string) => {
    const target = Date.parse(untilIso);
    while (Date.now() < target) {
      t.mock.timers.tick(Math.min(30_000 - (Date.now() % 30_000), target - Date.now()));
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const setProgram = (hub: HubSchedules, events: ScheduleEvent[]) =>
    hub.execute(device(), 'SET_SCHEDULE', { schedules: events }, new AbortController().signal);
  return { store, ac, newHub, device, runUntil, setProgram };
}

// Sent by an app in winter (UTC+1) for: Sunday 02:30 heat to 21 °C, Sunday 22:00 set back to 17 °C,
// Monday 06:00 to 08:00 heat to 22 °C (off afterwards).
export const WINTER_PROGRAM: ScheduleEvent[] = [
  { mode: 'HEAT', temperature: 21, start: { day: 'SUNDAY', time: '01:30' } },
  { mode: 'REDUCED', temperature: 17, start: { day: 'SUNDAY', time: '21:00' } },
  { mode: 'HEAT', temperature: 22, start: { day: 'MONDAY', time: '05:00' }, end: { day: 'MONDAY', time: '07:00' } },
];
