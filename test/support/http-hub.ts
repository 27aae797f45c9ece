// A whole hub (the real daemon, over a temporary data directory) for HTTP driver tests: devices are
// seeded through the real importer, simulators run on loopback ports, waits are on the hub's own
// events with timeouts, never on sleeps.
import type { TestContext } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon } from '../../src/daemon.ts';
import { ConfigSchema } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { prepareImport } from '../../src/domain/import.ts';
import type { DeviceRecord } from '../../src/domain/device.ts';
import type { CommandRecord } from '../../src/store/commands.ts';
import type { CommandType } from '../../src/domain/vocabulary.ts';
import type { HubEvent } from '../../src/runtime/events/hub-events.ts';
import type { HttpRuntimeSettings } from '../../src/runtime/http/http-runtime.ts';
import type { HttpDeviceSim, SimTls } from '../../src/sim/http/http-sim-server.ts';
import { fingerprintOf } from '../../src/transport/http-device.ts';
import { makeSelfSigned } from './tls.ts';
import { keyedApi } from './keyed-api.ts';
import type { Clock } from '../../src/domain/time.ts';

export const HTTP_HUB_KEY = 'http-hub-test-key-0123456789abcdef';

export interface HttpHub {
  daemon: Daemon;
  dataDir: string;
  api(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  event(match: (e: HubEvent) => boolean, timeoutMs?: number): Promise<HubEvent>;
  /** Resolves once the device's stored state satisfies `test` (checked on each of its updates). */
  until(id: string, test: (device: DeviceRecord) => boolean, timeoutMs?: number): Promise<DeviceRecord>;
  commandDone(id: string, timeoutMs?: number): Promise<CommandRecord>;
  submit(deviceId: string, type: CommandType, payload?: unknown): CommandRecord;
  device(id: string): DeviceRecord | undefined;
}

/** `clock`: the hub's (default: the system's). */
export async function startHttpHub(t: TestContext, records: unknown[], settings: Partial<HttpRuntimeSettings> = {}, clock?: Clock): Promise<HttpHub> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-http-'));
  const config = ConfigSchema.parse({ dataDir, http: { port: 0 }, apiKey: HTTP_HUB_KEY });
  const daemon = new Daemon({
    config, log: silentLogger(), clock,
    beforeListen: (store) => {
      const prepared = prepareImport(records, Date.now(), (id) => store.devices.get(id)?.kind);
      store.importDevices(prepared.devices, prepared.images, Date.now());
    },
  });
  t.after(async () => {
    await daemon.stop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  });
  await daemon.start();
  Object.assign(daemon.http!.settings, settings);
  const event = (match: (e: HubEvent) => boolean, timeoutMs = 10_000) => daemon.events.next(match, timeoutMs);
  return {
    daemon, dataDir, event,
    api: keyedApi(() => daemon.url, HTTP_HUB_KEY),
    until: async (id, test, timeoutMs = 10_000) => {
      const now = daemon.db.devices.get(id);
      if (now && test(now)) return now;
      const hit = await event((e) => 'device' in e && e.device.id === id && test(daemon.db.devices.get(id) ?? e.device), timeoutMs);
      return daemon.db.devices.get(id) ?? (hit as { device: DeviceRecord }).device;
    },
    commandDone: async (id, timeoutMs = 15_000) => {
      const stored = daemon.db.commands.get(id);
      if (stored && stored.state !== 'PENDING') return stored;
      const done = await event((e) => e.type === 'command' && e.command.id === id, timeoutMs);
      return (done as Extract<HubEvent, { type: 'command' }>).command;
    },
    submit: (deviceId, type, payload) => {
      const device = daemon.db.devices.get(deviceId)!;
      const now = Date.now();
      const command = daemon.db.commands.create({
        id: crypto.randomUUID(), deviceId, deviceKind: device.kind, userId: device.userId, type, payload, createdAtMs: now, expiresAtMs: now + 60_000,
      });
      daemon.runtime.commandCreated(command);
      return command;
    },
    device: (id) => daemon.db.devices.get(id),
  };
}

/** A device's own self-signed certificate (valid from `validFrom`, else now), made in a temporary directory removed after the test. */
export function deviceCertificate(t: TestContext, commonName: string, validFrom?: string): SimTls & { pinned: { sha256: string; pem: string } } {
  const dir = mkdtempSync(join(tmpdir(), 'hub-cert-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { cert, key } = makeSelfSigned(dir, commonName, commonName, validFrom);
  return { cert, key, pinned: { sha256: fingerprintOf(cert), pem: cert } };
}

/** Starts a simulator and stops it after the test. */
export async function started<T extends HttpDeviceSim>(t: TestContext, sim: T, tls?: SimTls): Promise<T> {
  await sim.start({ tls });
  t.after(() => sim.stop());
  return sim;
}

/** An import record of a device reached through an HTTP binding. */
export function httpRecord(kind: string, id: string, vendor: string, driver: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kind, id, userId: 'household-1', isOnline: false, lastUpdated: '2026-11-01T00:00:00Z',
    staticData: { vendor, name: `${vendor} ${kind}`, model: 'test' }, driver, ...extra,
  };
}
