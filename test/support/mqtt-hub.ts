// A whole hub wired to a real test broker (mosquitto on a free port, aedes where it is missing), for
// MQTT driver, command and event tests. Devices are seeded through the real importer; waits are on
// the hub's own events, with timeouts, never on sleeps.
import type { TestContext } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon } from '../../src/daemon.ts';
import type { Store } from '../../src/store/store.ts';
import { ConfigSchema } from '../../src/config.ts';
import { silentLogger, type Logger } from '../../src/log.ts';
import { prepareImport } from '../../src/domain/import.ts';
import type { DeviceRecord } from '../../src/domain/device.ts';
import type { CommandRecord } from '../../src/store/commands.ts';
import type { CommandType } from '../../src/domain/vocabulary.ts';
import type { HubEvent } from '../../src/runtime/events/hub-events.ts';
import type { MqttRuntimeSettings } from '../../src/runtime/mqtt/mqtt-runtime.ts';
import type { Clock } from '../../src/domain/time.ts';
import { startBroker, type TestBroker } from './broker.ts';
import { createCommand } from '../../src/runtime/commands/create-command.ts';
import { systemClock } from '../../src/domain/time.ts';
import { keyedApi } from './keyed-api.ts';

export const HUB_KEY = 'mqtt-hub-test-key-0123456789abcdef';

export interface MqttHubOptions {
  records?: unknown[];
  config?: Record<string, unknown>;
  mqttSettings?: Partial<MqttRuntimeSettings>;
  broker?: TestBroker;
  dataDir?: string;
  /** A logger to see what the hub does (silent by default). */
  log?: Logger;
  /** The hub's clock (default: the system's). */
  clock?: Clock;
  /** Called with the store once the records are in, before the hub listens (as npm start writes the demo's past). */
  beforeListen?: (store: Store) => void;
}

export interface MqttHub {
  daemon: Daemon;
  broker: TestBroker;
  dataDir: string;
  /** A request to the hub's API over its real socket, with the key. */
  api(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  /** The first event that matches, within `timeoutMs`. */
  event(match: (e: HubEvent) => boolean, timeoutMs?: number): Promise<HubEvent>;
  /** Resolves with the command once it left PENDING. */
  commandDone(id: string, timeoutMs?: number): Promise<CommandRecord>;
  /** Stores a command as the API does and hands it to the worker. */
  submit(deviceId: string, type: CommandType, payload?: unknown, ttlMs?: number): CommandRecord;
  device(id: string): DeviceRecord | undefined;
  stop(): Promise<void>;
}

export async function startMqttHub(t: TestContext, options: MqttHubOptions = {}): Promise<MqttHub> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'hub-mqtt-'));
  const broker = options.broker ?? (await startBroker());
  let stopped = false;
  let started: Daemon | undefined;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await started?.stop();
  };
  // One teardown, in order: the hub, then its broker, then its files (after-hooks run first-in first).
  t.after(async () => {
    await stop();
    if (!options.broker) await broker.stop();
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  const config = ConfigSchema.parse({
    dataDir, http: { port: 0 }, apiKey: HUB_KEY,
    mqtt: { url: broker.url, protocolVersion: broker.supportsMqtt5 ? 5 : 4 },
    ...options.config,
  });
  const daemon = new Daemon({
    config, log: options.log ?? silentLogger(), clock: options.clock,
    beforeListen: (store) => {
      if (options.records) {
        const prepared = prepareImport(options.records, Date.now(), (id) => store.devices.get(id)?.kind, (cp) => store.ocpp.credential(cp)?.deviceId);
        store.importDevices(prepared.devices, prepared.images, Date.now(), prepared.ocppCredentials);
      }
      options.beforeListen?.(store);
    },
  });
  started = daemon;
  await daemon.start();
  if (options.mqttSettings && daemon.mqtt) Object.assign(daemon.mqtt.settings, options.mqttSettings);
  await daemon.broker!.whenConnected(AbortSignal.timeout(10_000));

  const event = (match: (e: HubEvent) => boolean, timeoutMs = 10_000) => daemon.events.next(match, timeoutMs);
  return {
    daemon, broker, dataDir, stop, event,
    api: keyedApi(() => daemon.url, HUB_KEY),
    commandDone: async (id, timeoutMs = 15_000) => {
      const stored = daemon.db.commands.get(id);
      if (stored && stored.state !== 'PENDING') return stored;
      const done = await event((e) => e.type === 'command' && e.command.id === id, timeoutMs);
      return (done as Extract<HubEvent, { type: 'command' }>).command;
    },
    submit: (deviceId, type, payload, ttlMs = 60_000) => {
      const device = daemon.db.devices.get(deviceId);
      if (!device) throw new Error(`no device ${deviceId}`);
      return createCommand({
        store: daemon.db, clock: systemClock, log: silentLogger(), ttlMs, commandCreated: (command) => daemon.runtime.commandCreated(command),
      }, device, type, payload, 'test');
    },
    device: (id) => daemon.db.devices.get(id),
  };
}

/** An import record of a device reached through a driver binding. */
export function drivenRecord(kind: string, id: string, vendor: string, driver: Record<string, unknown> | null, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kind, id, userId: 'household-1', isOnline: false, lastUpdated: '2026-11-01T00:00:00Z',
    staticData: { vendor, name: `${vendor} ${kind}`, model: 'test' }, ...(driver ? { driver } : {}), ...extra,
  };
}
