// A whole hub (real HTTP server on a free loopback port) with OCPP chargers imported, and charge
// point simulators that connect to it over real WebSockets. Waits are on events, never sleeps.
import type { TestContext } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon } from '../../src/daemon.ts';
import { ConfigSchema } from '../../src/config.ts';
import { silentLogger, type Logger } from '../../src/log.ts';
import { prepareImport } from '../../src/domain/import.ts';
import type { Clock } from '../../src/domain/time.ts';
import type { CommandRecord } from '../../src/store/commands.ts';
import type { CommandType } from '../../src/domain/vocabulary.ts';
import type { HubEvent } from '../../src/runtime/events/hub-events.ts';
import { ChargePointSim, type ChargePointSimOptions } from '../../src/sim/ocpp/charge-point-sim.ts';

export const HUB_KEY = 'ocpp-hub-test-key-0123456789abcdef';
export const PASSWORD = 'correct-horse-battery-1';

/** An import record of a charger bound over OCPP. */
export function ocppCharger(id: string, chargePointId: string, extra: Record<string, unknown> = {}, vendor = 'ZAPTEC'): Record<string, unknown> {
  return {
    kind: 'charger', id, userId: 'household-1', isOnline: false,
    staticData: { vendor, name: `wallbox ${chargePointId}`, model: 'unknown' },
    driver: { type: 'ocpp', chargePointId, password: PASSWORD, ...extra },
  };
}

export interface OcppHub {
  daemon: Daemon;
  dataDir: string;
  /** ws://127.0.0.1:PORT/ocpp */
  endpoint: string;
  sim(identity: string, options?: Partial<ChargePointSimOptions>): ChargePointSim;
  api(path: string, init?: RequestInit): Promise<Response>;
  event(match: (e: HubEvent) => boolean, timeoutMs?: number): Promise<HubEvent>;
  /** Resolves once the device's stored isOnline is `online` (now or on its next event). */
  online(deviceId: string, online: boolean): Promise<void>;
  submit(deviceId: string, type: CommandType, payload?: unknown, ttlMs?: number): CommandRecord;
  commandDone(id: string, timeoutMs?: number): Promise<CommandRecord>;
  stop(): Promise<void>;
}

export async function startOcppHub(t: TestContext, records: unknown[], options: { dataDir?: string; log?: Logger; config?: Record<string, unknown>; clock?: Clock } = {}): Promise<OcppHub> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'hub-ocpp-'));
  const sims: ChargePointSim[] = [];
  let stopped = false;
  const daemon = new Daemon({
    config: ConfigSchema.parse({ dataDir, http: { port: 0 }, apiKey: HUB_KEY, ...options.config }),
    log: options.log ?? silentLogger(),
    clock: options.clock,
    beforeListen: (store) => {
      const prepared = prepareImport(records, Date.now(), (id) => store.devices.get(id)?.kind, (cp) => store.ocpp.credential(cp)?.deviceId);
      store.importDevices(prepared.devices, prepared.images, Date.now(), prepared.ocppCredentials);
    },
  });
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await Promise.all(sims.map((s) => s.close()));
    await daemon.stop();
  };
  t.after(async () => {
    await stop();
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  await daemon.start();
  const endpoint = `${daemon.url.replace(/^http/, 'ws')}/ocpp`;
  const event = (match: (e: HubEvent) => boolean, timeoutMs = 10_000) => daemon.events.next(match, timeoutMs);
  return {
    daemon, dataDir, endpoint, stop, event,
    sim: (identity, simOptions = {}) => {
      const sim = new ChargePointSim({ endpoint, identity, password: PASSWORD, ...simOptions });
      sims.push(sim);
      return sim;
    },
    api: (path, init = {}) => fetch(`${daemon.url}/v1.0.0${path}`, { ...init, headers: { 'x-api-key': HUB_KEY, ...init.headers } }),
    online: async (deviceId, online) => {
      const waiting = event((e) => e.type !== 'command' && e.device.id === deviceId && e.device.isOnline === online);
      waiting.catch(() => {});
      if (daemon.db.devices.get(deviceId)?.isOnline === online) return;
      await waiting;
    },
    submit: (deviceId, type, payload, ttlMs = 60_000) => {
      const device = daemon.db.devices.get(deviceId)!;
      const now = Date.now();
      const command = daemon.db.commands.create({
        id: crypto.randomUUID(), deviceId, deviceKind: device.kind, userId: device.userId, type, payload, createdAtMs: now, expiresAtMs: now + ttlMs,
      });
      daemon.runtime.commandCreated(command);
      return command;
    },
    commandDone: async (id, timeoutMs = 15_000) => {
      const waiting = event((e) => e.type === 'command' && e.command.id === id, timeoutMs);
      waiting.catch(() => {});
      const stored = daemon.db.commands.get(id);
      if (stored && stored.state !== 'PENDING') return stored;
      return ((await waiting) as Extract<HubEvent, { type: 'command' }>).command;
    },
  };
}
