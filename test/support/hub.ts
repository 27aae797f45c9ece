// Test fixtures: an in-process API over a fresh in-memory store, with a key and a controllable clock.
import { createApp } from '../../src/api/app.ts';
import { DEFAULT_API_SETTINGS, type ApiSettings } from '../../src/api/deps.ts';
import { Store } from '../../src/store/store.ts';
import { VendorCatalog } from '../../src/domain/vendors.ts';
import { storedStateRuntime, type Runtime } from '../../src/runtime/devices/live.ts';
import { silentLogger, type Logger } from '../../src/log.ts';
import { prepareImport } from '../../src/domain/import.ts';
import type { Clock } from '../../src/domain/time.ts';
import type { ChargerProber } from '../../src/runtime/devices/pairing-prober.ts';
import type { DeviceProber } from '../../src/runtime/devices/device-prober.ts';
import { builtInBindingDefaults } from '../../src/binding-defaults.ts';

export class TestClock implements Clock {
  constructor(public ms = Date.parse('2026-11-07T05:31:56Z')) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** A TestClock with a monotonic clock of its own: time passes on both, a step moves the wall clock alone. */
export class SteppingClock extends TestClock {
  mono = 1_000;
  monotonicMs(): number {
    return this.mono;
  }
  override advance(ms: number): void {
    this.ms += ms;
    this.mono += ms;
  }
  /** The wall clock is set to `toMs` (NTP, or a bad time source). */
  step(toMs: number): void {
    this.ms = toMs;
  }
}

export interface TestHubOptions {
  runtime?: Runtime;
  settings?: Partial<ApiSettings>;
  vendors?: VendorCatalog;
  dbPath?: string;
  log?: Logger;
  /** The charger prober behind the pairing page; without it no vendor can be paired. */
  pairing?: ChargerProber;
  /** The prober behind the HVAC, home-power and tariff connect pages; without it none can be connected. */
  devicePairing?: DeviceProber;
}

export function createTestHub(options: TestHubOptions = {}) {
  const store = Store.open(options.dbPath ?? ':memory:');
  const clock = new TestClock();
  const vendors = options.vendors ?? new VendorCatalog();
  const key = store.apiKeys.create('test', clock.now()).key;
  const settings: ApiSettings = { ...DEFAULT_API_SETTINGS, publicUrl: 'http://hub.test:8080', ...options.settings };
  const { app, operations } = createApp({
    store, log: options.log ?? silentLogger(), clock, vendors, runtime: options.runtime ?? storedStateRuntime, settings, pairing: options.pairing, devicePairing: options.devicePairing,
    bindingDefaults: builtInBindingDefaults(),
  });

  /** A request with the test key; `init.headers` may override or drop it. */
  function request(path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (!headers.has('x-api-key')) headers.set('x-api-key', key);
    let body = init.body;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }
    return Promise.resolve(app.request(`/v1.0.0${path}`, { ...init, headers, body }));
  }

  /** Imports records through the real importer. */
  function seed(records: unknown[]): void {
    const prepared = prepareImport(records, clock.now(), (id) => store.devices.get(id)?.kind, (cp) => store.ocpp.credential(cp)?.deviceId);
    store.importDevices(prepared.devices, prepared.images, clock.now(), prepared.ocppCredentials);
  }

  return { app, operations, store, clock, key, vendors, request, seed, close: () => store.close() };
}

export type TestHub = ReturnType<typeof createTestHub>;

/** The JSON body of a response, untyped: tests assert on its fields. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function json(res: Response): Promise<any> {
  return res.json();
}

export const ids = {
  battery: '0d5c2a1e-7a4b-4f7e-9b3e-1a2b3c4d5e01',
  battery2: '0d5c2a1e-7a4b-4f7e-9b3e-1a2b3c4d5e02',
  pvInverter: '1e6d3b2f-8b5c-4a8f-8c4f-2b3c4d5e6f01',
  meter: '2f7e4c3a-9c6d-4b9a-9d5a-3c4d5e6f7a01',
  hvac: '3a8f5d4b-ad7e-4cab-8e6b-4d5e6f7a8b01',
  charger: '4b9a6e5c-be8f-4dbc-9f7c-5e6f7a8b9c01',
  vehicle: '5cab7f6d-cf9a-4ecd-8a8d-6f7a8b9cad01',
  tariff: '6dbc8a7e-da8b-4fde-9b9e-7a8b9cadbe01',
  unknown: '99999999-9999-4999-8999-999999999999',
} as const;
