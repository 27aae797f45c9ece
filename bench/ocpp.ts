// OCPP bench (`npx tsx bench/ocpp.ts`, and part of `npm run bench`):
//   1. command latency: from the HTTP submission of a vehicle's charging stop to the charger's
//      Accepted (the simulator answering RemoteStopTransaction), and on to EXECUTED (its
//      StopTransaction taken); p50 and p99, beside the simulator's own round trip measured the same
//      way without the hub (a bare ocpp-rpc server calling RemoteStopTransaction on it);
//   2. memory: the hub as a process of its own (from source through tsx, as npm start runs it) with
//      50 OCPP chargers imported, its RSS with none connected and then with all 50 connected idle.
// Target: p50 under 20 ms beyond the simulator's own delay.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { RPCServer } from 'ocpp-rpc';
import { Daemon } from '../src/daemon.ts';
import { ConfigSchema } from '../src/config.ts';
import { silentLogger } from '../src/log.ts';
import { prepareImport } from '../src/domain/import.ts';
import { Store } from '../src/store/store.ts';
import { ChargePointSim } from '../src/sim/ocpp/charge-point-sim.ts';
import type { HubEvent } from '../src/runtime/events/hub-events.ts';
import { startHubProcess } from '../test/support/process.ts';

const KEY = 'bench-ocpp-key-0123456789abcdef';
const PASSWORD = 'bench-password-0123456789';
const SAMPLES = Number(process.env['BENCH_COMMANDS'] ?? 300);
const IDLE_CHARGERS = 50;
const CHARGER = '6f1c2a4e-0000-4000-8000-0000000dc001';
const VEHICLE = '6f1c2a4e-0000-4000-8000-0000000de001';

const charger = (id: string, chargePointId: string) => ({
  kind: 'charger', id, userId: 'bench', staticData: { vendor: 'ZAPTEC', model: 'Go' },
  driver: { type: 'ocpp', chargePointId, password: PASSWORD, freeCharging: true },
});

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
const round = (ms: number) => Math.round(ms * 100) / 100;

/** The time from `start` until the simulator is asked `action` (it answers Accepted at once). */
function asked(sim: ChargePointSim, action: string): Promise<number> {
  return new Promise((resolve) => {
    const onCall = ({ outbound, payload }: { outbound: boolean; payload: unknown[] }) => {
      if (outbound || payload[2] !== action) return;
      sim.client.off('call', onCall);
      resolve(performance.now());
    };
    sim.client.on('call', onCall);
  });
}

async function commandLatency(out: Record<string, number | string>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hub-bench-ocpp-'));
  const daemon = new Daemon({
    config: ConfigSchema.parse({ dataDir: dir, http: { port: 0 }, apiKey: KEY }),
    log: silentLogger(),
    beforeListen: (store) => {
      const records = [charger(CHARGER, 'BENCH-1'), { kind: 'vehicle', id: VEHICLE, userId: 'bench', driver: { type: 'charger', chargerId: CHARGER }, staticData: { vendor: 'BMW', model: 'i4' } }];
      const prepared = prepareImport(records, Date.now(), () => undefined);
      store.importDevices(prepared.devices, prepared.images, Date.now(), prepared.ocppCredentials);
    },
  });
  await daemon.start();
  const sim = new ChargePointSim({ endpoint: `${daemon.url.replace('http', 'ws')}/ocpp`, identity: 'BENCH-1', password: PASSWORD });
  try {
    await sim.connect();
    const accepted: number[] = [];
    const executed: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      await sim.startTransaction('card');
      const start = performance.now();
      const call = asked(sim, 'RemoteStopTransaction');
      const res = await fetch(`${daemon.url}/v1.0.0/vehicles/${VEHICLE}/commands/charging-stop`, { method: 'POST', headers: { 'x-api-key': KEY } });
      const { id } = (await res.json()) as { id: string };
      const done = daemon.events.next((e: HubEvent) => e.type === 'command' && e.command.id === id, 10_000);
      accepted.push((await call) - start);
      const event = await done;
      executed.push(performance.now() - start);
      if (event.type === 'command' && event.command.state !== 'EXECUTED') throw new Error(`command ${event.command.state}: ${event.command.failedReason}`);
    }
    out['stop submitted → charger asked (its Accepted), p50 ms'] = round(percentile(accepted, 50));
    out['stop submitted → charger asked, p99 ms'] = round(percentile(accepted, 99));
    out['stop submitted → EXECUTED (StopTransaction taken), p50 ms'] = round(percentile(executed, 50));
  } finally {
    await sim.close();
    await daemon.stop();
    rmSync(dir, { recursive: true, force: true });
  }

  // The simulator's own round trip: a bare ocpp-rpc server asks it the same thing.
  const server = new RPCServer({ protocols: ['ocpp1.6'], strictMode: true });
  const http = await server.listen(0, '127.0.0.1');
  const port = (http.address() as { port: number }).port;
  const connected = once(server, 'client');
  const bare = new ChargePointSim({ endpoint: `ws://127.0.0.1:${port}`, identity: 'BARE-1' });
  await bare.client.connect();
  const [client] = (await connected) as [{ call(method: string, params: unknown): Promise<unknown> }];
  const own: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    bare.transactionId = 1;
    const start = performance.now();
    await client.call('RemoteStopTransaction', { transactionId: 1 });
    own.push(performance.now() - start);
  }
  await bare.close();
  await server.close({ force: true });
  out['simulator\'s own RemoteStopTransaction round trip, p50 ms'] = round(percentile(own, 50));
  // Submission → the charger's Accepted back at the hub is the time to the ask plus the answer's way
  // back (half the bare round trip); beyond the simulator's own delay (the whole round trip):
  out['command p50 beyond the simulator, ms'] = round(Number(out['stop submitted → charger asked (its Accepted), p50 ms']) - percentile(own, 50) / 2);
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 102.4) / 10;
}

async function idleMemory(out: Record<string, number | string>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hub-bench-ocpp-rss-'));
  const ids = Array.from({ length: IDLE_CHARGERS }, (_, i) => `6f1c2a4e-0000-4000-8000-0000000d${String(i).padStart(4, '0')}`);
  const seed = Store.open(join(dir, 'hub.db'));
  const prepared = prepareImport(ids.map((id, i) => charger(id, `IDLE-${i}`)), Date.now(), () => undefined);
  seed.importDevices(prepared.devices, prepared.images, Date.now(), prepared.ocppCredentials);
  seed.close();
  const hub = await startHubProcess({ HUB_DATA_DIR: dir, HUB_API_KEY: KEY });
  const sims: ChargePointSim[] = [];
  try {
    const settle = async () => {
      for (let i = 0; i < 5; i++) await fetch(`${hub.url}/health`);
      await new Promise((resolve) => setTimeout(resolve, 2000)); // a measurement's settling time, not a wait on an event
    };
    await settle();
    out['hub RSS, 50 OCPP chargers imported, none connected, MB'] = rssMb(hub.child.pid!);
    const endpoint = `${hub.url.replace('http', 'ws')}/ocpp`;
    for (let i = 0; i < IDLE_CHARGERS; i++) sims.push(new ChargePointSim({ endpoint, identity: `IDLE-${i}`, password: PASSWORD }));
    await Promise.all(sims.map((s) => s.connect()));
    await settle();
    out['hub RSS, the same with 50 connected and idle, MB'] = rssMb(hub.child.pid!);
    out['RSS for 50 idle chargers (ocpp-rpc and its schemas included), MB'] = round(Number(out['hub RSS, the same with 50 connected and idle, MB']) - Number(out['hub RSS, 50 OCPP chargers imported, none connected, MB']));
  } finally {
    await Promise.all(sims.map((s) => s.close()));
    await hub.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchOcpp(): Promise<Record<string, number | string>> {
  const out: Record<string, number | string> = { samples: SAMPLES };
  await commandLatency(out);
  await idleMemory(out);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchOcpp().then((out) => {
    for (const [name, value] of Object.entries(out)) process.stdout.write(`${name}: ${value}\n`);
  }, (err: Error) => {
    process.stderr.write(`${err.stack}\n`);
    process.exit(1);
  });
}
