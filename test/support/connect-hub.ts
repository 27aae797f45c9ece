// The whole hub for the vehicle connect tests: the real daemon on a loopback socket, configured to
// reach BMW's and Volvo's simulators over HTTPS (a throwaway CA it is told to trust), with one
// charger of user-1 on it; and the partner's call that opens a connect session.
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon } from '../../src/daemon.ts';
import { ConfigSchema } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { prepareImport } from '../../src/domain/import.ts';
import type { DeviceRecord } from '../../src/domain/device.ts';
import { CardataAuthSim } from '../../src/sim/cloud/cardata-auth-sim.ts';
import { VolvoApiSim } from '../../src/sim/cloud/volvo-api-sim.ts';
import { makeCertificates, type TestCertificates } from './tls.ts';
import { keyedApi } from './keyed-api.ts';

export const KEY = 'vehicle-connect-test-key-0123456789';
export const REDIRECT = 'https://app.example/cars?from=hub';
export const CHARGER = '4b9a6e5c-be8f-4dbc-9f7c-5e6f7a8b9c01';
export const BMW = { clientId: '8f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f', gcid: '34ddc38-93220-423330-93101-fcd292373', vin: 'WBY11HH0000000001' };
export const VOLVO = { clientId: 'volvo-app', clientSecret: 'volvo-secret-value', vccApiKey: 'vcckey0123456789', vin: 'YV1XZK9V0R0000001' };
const volvoFixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/volvo/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;

export interface ConnectHub {
  daemon: Daemon;
  url: string;
  ca: string;
  bmw: CardataAuthSim;
  volvo: VolvoApiSim;
  api(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  /** Resolves once the device's stored record satisfies `check`, on the hub's own events. */
  until(id: string, check: (device: DeviceRecord) => boolean): Promise<DeviceRecord>;
}

/** The test CA and the makers' server certificate (BMW's broker's too, when a test starts one). */
export function certificates(t: TestContext): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'hub-connect-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return makeCertificates(dir);
}

export async function startConnectHub(t: TestContext, options: { streamUrl?: string; certs?: TestCertificates } = {}): Promise<ConnectHub> {
  const certs = options.certs ?? certificates(t);
  const tls = { cert: readFileSync(certs.serverCertFile), key: readFileSync(certs.serverKeyFile) };
  const bmw = new CardataAuthSim({ clientId: BMW.clientId, gcid: BMW.gcid, idTokens: ['id-token-1'] });
  bmw.vehicleMappings = [{ vin: BMW.vin, mappingType: 'PRIMARY' }];
  bmw.telematicData = { 'vehicle.drivetrain.batteryManagement.header': '47', 'vehicle.body.chargingPort.status': 'CONNECTED' };
  await bmw.start({ tls });
  const volvo = new VolvoApiSim({ ...VOLVO, energyState: volvoFixture('xc40-energy-state.json'), odometer: volvoFixture('odometer.json') });
  await volvo.start({ tls });
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-connect-data-'));
  const bmwUrl = `https://localhost:${bmw.port}`;
  const volvoUrl = `https://localhost:${volvo.port}`;
  const config = ConfigSchema.parse({
    dataDir, http: { port: 0 }, apiKey: KEY,
    cloud: {
      // No broker unless the test starts one: a closed port.
      bmwCardata: { authUrl: bmwUrl, apiUrl: bmwUrl, streamUrl: options.streamUrl ?? 'mqtts://localhost:9', caFile: certs.caFile },
      volvo: { authUrl: volvoUrl, apiUrl: volvoUrl, caFile: certs.caFile },
    },
  });
  const daemon = new Daemon({
    config, log: silentLogger(),
    beforeListen: (store) => {
      const prepared = prepareImport([
        { kind: 'charger', id: CHARGER, userId: 'user-1', isOnline: true, staticData: { vendor: 'GO_E', name: 'Garage', model: 'Gemini' } },
      ], Date.now(), () => undefined);
      store.importDevices(prepared.devices, prepared.images, Date.now());
    },
  });
  t.after(async () => {
    await daemon.stop().catch(() => {});
    await Promise.allSettled([bmw.stop(), volvo.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  });
  await daemon.start();
  const url = daemon.url!;
  return {
    daemon, url, ca: readFileSync(certs.caFile, 'utf8'), bmw, volvo,
    api: keyedApi(() => url, KEY),
    until: async (id, check) => {
      const now = daemon.db.devices.get(id);
      if (now && check(now)) return now;
      await daemon.events.next((e) => 'device' in e && e.device.id === id && check(daemon.db.devices.get(id) ?? e.device), 10_000);
      return daemon.db.devices.get(id)!;
    },
  };
}

/** The partner's call: the page's URL for a new session. */
export async function connect(hub: ConnectHub, body: Record<string, unknown>, query = ''): Promise<string> {
  const res = await hub.api(`/connections/vehicles${query}`, { method: 'POST', json: { redirectUrl: REDIRECT, userId: 'user-1', ...body } });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json() as { url: string }).url;
}
