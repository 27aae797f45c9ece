// Fixtures for runtime tests: an in-memory store seeded through the real importer, a scheduler with
// fast settings, simulators on loopback, and a way to wait for an event without sleeping.
import { once } from 'node:events';
import type { EventEmitter } from 'node:events';
import type { TestContext } from 'node:test';
import { Store } from '../../src/store/store.ts';
import { prepareImport } from '../../src/domain/import.ts';
import { silentLogger } from '../../src/log.ts';
import { systemClock, type Clock } from '../../src/domain/time.ts';
import { ModbusRuntime } from '../../src/runtime/modbus/modbus-runtime.ts';
import { builtInDrivers } from '../../drivers/modbus/index.ts';
import { ModbusSimServer, type SimUnit } from '../../src/sim/modbus-sim-server.ts';
import type { SchedulerSettings } from '../../src/runtime/modbus/modbus-poller.ts';

export const FAST: Partial<SchedulerSettings> = {
  tickMs: 10, flushMs: 50, defaultPollMs: 100, requestTimeoutMs: 200, maxBackoffMs: 1000, offlineAfterFailures: 2,
};

export async function simOn(t: TestContext, units: Record<number, SimUnit>): Promise<ModbusSimServer> {
  const sim = await ModbusSimServer.tcp(new Map(Object.entries(units).map(([id, u]) => [Number(id), u])));
  t.after(() => sim.close());
  return sim;
}

export function hubWith(t: TestContext, records: unknown[], settings: Partial<SchedulerSettings> = FAST, clock: Clock = systemClock) {
  const store = Store.open(':memory:');
  const prepared = prepareImport(records, Date.now(), () => undefined);
  store.importDevices(prepared.devices, prepared.images, Date.now());
  const runtime = new ModbusRuntime({ store, registry: builtInDrivers(), log: silentLogger(), clock, settings, refreshTimeoutMs: 1000 });
  t.after(async () => {
    await runtime.stop();
    store.close();
  });
  return { store, runtime, scheduler: runtime.scheduler };
}

/** Resolves with the first event for which `match` holds; rejects after `ms`. */
export async function until<T>(emitter: EventEmitter, event: string, match: (value: T) => boolean, ms = 5000): Promise<T> {
  const signal = AbortSignal.timeout(ms);
  for (;;) {
    const [value] = (await once(emitter, event, { signal })) as [T];
    if (match(value)) return value;
  }
}

export function device(kind: string, id: string, driver: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const staticData = { vendor: 'FRONIUS', model: 'Simulated', name: id.slice(-2) };
  return { kind, id, userId: 'u1', isOnline: false, staticData, driver: { pollIntervalMs: 100, ...driver }, ...extra };
}
