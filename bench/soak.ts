// `npm run soak`: the built hub, started as the systemd unit starts it, through a stretch of a real
// household's life: 100 Modbus devices polled every second (90 inverters, batteries and meters of the
// bench's simulators, of which some drop, some hang and all come back), 10 go-e chargers over a real
// mosquitto broker that is restarted in the middle, a modest API load, and charging stops through the
// chargers now and then (some while the broker is away). It reports RSS after the warm-up and at the
// end, bytes written to storage per hour, command outcomes (every command acknowledged must be listed
// and terminal), and the worst event-loop lag the hub reported. A measurement, not a test: it exits 0
// when it measured (targets missed say MISSED), 1 only when it could not.
//
//   SOAK_MINUTES (default 30)   the run's length; the warm-up is a tenth of it (at least 30 s)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Store } from '../src/store/store.ts';
import { prepareImport } from '../src/domain/import.ts';
import { writtenBytes } from '../src/runtime/observability/disk-writes.ts';
import { ModbusSimServer } from '../src/sim/modbus-sim-server.ts';
import { SiteModel } from '../src/sim/site-model.ts';
import { sunspecBattery, sunspecInverter, sunspecMeter } from '../src/sim/sunspec-sims.ts';
import { GoESim } from '../src/sim/mqtt/go-e-sim.ts';
import { startBroker } from '../test/support/broker.ts';
import { benchDeviceRecords } from './modbus.ts';
import { buildHub, installCleanup, memoryOf, RssSampler, startServer, stopAll, systemdUnitEnvironment } from './processes.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = join(ROOT, '.bench', 'soak.json');
const KEY = 'soak-key-0123456789abcdef0123456789';
const MINUTES = Number(process.env['SOAK_MINUTES'] ?? 30);
const MODBUS_DEVICES = 90;
const CHARGERS = 10;
const API_RATE_PER_S = 20;
const COMMAND_EVERY_MS = 5000;

const log = (text: string) => process.stderr.write(`[soak] ${text}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const uuid = (kind: string, i: number) => `50ac0000-0000-4000-8000-${kind}${String(i).padStart(11, '0')}`;

async function main(): Promise<number> {
  installCleanup();
  const work = mkdtempSync(join(tmpdir(), 'hub-soak-'));
  const sims: ModbusSimServer[] = [];
  const chargers: GoESim[] = [];
  const timers: NodeJS.Timeout[] = [];
  let broker: Awaited<ReturnType<typeof startBroker>> | undefined;
  try {
    log(`building the hub; then ${MINUTES} min with ${MODBUS_DEVICES} Modbus devices and ${CHARGERS} go-e chargers`);
    const hubMain = await buildHub(work);
    broker = await startBroker();
    const site = new SiteModel({ dayLengthMs: 10 * 60_000, startHour: 10 });
    for (let i = 0; i < MODBUS_DEVICES; i++) {
      const unit = i % 10 < 4 ? sunspecInverter(site) : i % 10 < 7 ? sunspecBattery(site) : sunspecMeter(site);
      sims.push(await ModbusSimServer.tcp(new Map([[1, unit]])));
    }
    const chargerIds = Array.from({ length: CHARGERS }, (_, i) => uuid('c', i + 1));
    const vehicleIds = Array.from({ length: CHARGERS }, (_, i) => uuid('e', i + 1));
    const records = [
      ...benchDeviceRecords(sims.map((s) => s.port)),
      ...chargerIds.map((id, i) => ({ id, kind: 'charger', userId: 'soak', staticData: { vendor: 'GO_E', model: 'go-e Charger' }, driver: { type: 'go-e', serial: String(700000 + i) } })),
      ...vehicleIds.map((id, i) => ({ id, kind: 'vehicle', userId: 'soak', staticData: { vendor: 'TESLA', model: 'Model 3', name: `Car ${i + 1}` }, driver: { type: 'charger', chargerId: chargerIds[i] } })),
    ];
    const dataDir = join(work, 'data');
    const store = Store.open(join(dataDir, 'hub.db'));
    const prepared = prepareImport(records, Date.now(), () => undefined);
    store.importDevices(prepared.devices, prepared.images, Date.now());
    store.close();
    const config = join(work, 'hub.yaml');
    writeFileSync(config, `mqtt:\n  url: ${broker.url}\n`);
    for (let i = 0; i < CHARGERS; i++) {
      const sim = new GoESim(broker.url, String(700000 + i), 'go-eCharger', { rbtIntervalMs: 1000 });
      await sim.start();
      await sim.plugIn();
      chargers.push(sim);
    }
    const hub = await startServer({
      name: 'hub', readyMsg: 'hub listening', cwd: ROOT, args: [hubMain],
      env: { ...process.env, HUB_DATA_DIR: dataDir, HUB_HTTP_HOST: '127.0.0.1', HUB_HTTP_PORT: '0', HUB_API_KEY: KEY, HUB_LOG_LEVEL: 'info', HUB_CONFIG: config, ...systemdUnitEnvironment() },
    });
    const headers = { 'X-API-KEY': KEY };
    const api = async (path: string, init: RequestInit = {}) => fetch(`${hub.url}/v1.0.0${path}`, { ...init, headers });

    // API load: detail reads and list pages at a fixed, modest rate.
    let requests = 0;
    let failedRequests = 0;
    const paths = [
      ...prepared.devices.filter((d) => d.kind === 'battery').map((d) => `/batteries/${d.id}`),
      ...chargerIds.map((id) => `/chargers/${id}`),
      '/batteries', '/users/bench-1/pv-inverters', '/users/bench-2/meters',
    ];
    timers.push(setInterval(() => {
      const path = paths[requests++ % paths.length]!;
      api(path).then((r) => r.arrayBuffer().then(() => { if (r.status !== 200) failedRequests++; })).catch(() => failedRequests++);
    }, 1000 / API_RATE_PER_S));

    // Event-loop lag as the hub reports it (worst since its last health check).
    let worstLagS = 0;
    timers.push(setInterval(() => {
      fetch(`${hub.url}/metrics`, { headers }).then((r) => r.text()).then((text) => {
        const lag = Number(/^hub_event_loop_lag_seconds ([\d.e-]+)$/m.exec(text)?.[1] ?? 0);
        worstLagS = Math.max(worstLagS, lag);
      }).catch(() => {});
    }, 5000));

    // Commands: a charging stop through a car's charger every few seconds.
    const acknowledged: { vehicleId: string; id: string }[] = [];
    let refused = 0;
    let n = 0;
    timers.push(setInterval(() => {
      const vehicleId = vehicleIds[n++ % vehicleIds.length]!;
      api(`/vehicles/${vehicleId}/commands/charging-stop`, { method: 'POST' }).then(async (r) => {
        if (r.status === 200) acknowledged.push({ vehicleId, id: ((await r.json()) as { id: string }).id });
        else refused++;
      }).catch(() => refused++);
    }, COMMAND_EVERY_MS));

    const totalMs = MINUTES * 60_000;
    const warmupMs = Math.max(30_000, totalMs / 10);
    const startedAt = Date.now();
    const at = (fraction: number) => startedAt + totalMs * fraction;
    const until = async (ms: number) => { const wait = ms - Date.now(); if (wait > 0) await sleep(wait); };

    await until(startedAt + warmupMs);
    const rssStart = memoryOf(hub.pid).rssMb;
    const bytesStart = writtenBytes(hub.pid);
    const measuredFrom = Date.now();
    const sampler = new RssSampler(hub.pid).start();
    // RSS every 10 s, to tell a heap settling after the warm-up from a leak (a steady climb).
    const rssSeries: [number, number][] = [];
    timers.push(setInterval(() => rssSeries.push([Math.round((Date.now() - measuredFrom) / 1000), round(memoryOf(hub.pid).rssMb)]), 10_000));
    log(`warm-up done: RSS ${rssStart.toFixed(1)} MB`);

    // Faults: a tenth of the Modbus devices hang, another tenth drop their connections, then all come back.
    await until(at(0.3));
    log('faults: 9 devices hang, 9 drop');
    for (let i = 0; i < MODBUS_DEVICES; i += 10) {
      sims[i]!.setFault('all', { kind: 'silence' });
      sims[i + 1]!.setFault('all', { kind: 'drop' });
    }
    await until(at(0.45));
    log('the broker restarts');
    await broker.restart();
    await until(at(0.55));
    log('the faulty devices come back');
    for (const sim of sims) sim.setFault('all', { kind: 'none' });
    await until(at(0.75));
    log('two chargers vanish without a will and come back');
    chargers[0]!.drop();
    chargers[1]!.drop();
    await until(at(0.85));
    await chargers[0]!.start();
    await chargers[1]!.start();
    await until(startedAt + totalMs);

    for (const timer of timers) clearInterval(timer);
    timers.length = 0;
    const rssEnd = memoryOf(hub.pid).rssMb;
    const peakMb = sampler.stop();
    const bytes = (writtenBytes(hub.pid) ?? NaN) - (bytesStart ?? NaN);
    const hours = (Date.now() - measuredFrom) / 3_600_000;

    // Let the last commands finish (their confirmation time), then every acknowledged one must be
    // listed and terminal.
    await sleep(35_000);
    const states = new Map<string, string>();
    for (const vehicleId of vehicleIds) {
      const body = (await (await api(`/users/soak/vehicles/${vehicleId}/commands?state=ALL`)).json()) as { content?: { id: string; state: string }[] } | { id: string; state: string }[];
      const list = Array.isArray(body) ? body : body.content ?? [];
      for (const command of list) states.set(command.id, command.state);
    }
    const outcomes: Record<string, number> = {};
    let lost = 0;
    for (const { id } of acknowledged) {
      const state = states.get(id);
      if (state === undefined) lost++;
      else outcomes[state] = (outcomes[state] ?? 0) + 1;
    }
    const pending = (outcomes['PENDING'] ?? 0) + (outcomes['IN_PROGRESS'] ?? 0);
    const growthPct = ((rssEnd - rssStart) / rssStart) * 100;
    const result = {
      date: new Date().toISOString(), minutes: MINUTES, modbusDevices: MODBUS_DEVICES, chargers: CHARGERS,
      rssStartMb: round(rssStart), rssEndMb: round(rssEnd), rssPeakMb: round(peakMb), rssGrowthPct: round(growthPct),
      writtenMbPerHour: round(bytes / 1e6 / hours), apiRequests: requests, apiFailures: failedRequests,
      commandsAcknowledged: acknowledged.length, commandsRefused: refused, commandOutcomes: outcomes, commandsLost: lost, commandsNotTerminal: pending,
      worstEventLoopLagMs: round(worstLagS * 1000),
      rssSeries,
    };
    const rows: [string, string, string, boolean | undefined][] = [
      ['RSS after warm-up → end (peak)', `${result.rssStartMb} → ${result.rssEndMb} MB (${result.rssPeakMb})`, 'growth < 10%', growthPct < 10],
      ['RSS growth', `${result.rssGrowthPct} %`, '< 10 %', growthPct < 10],
      ['bytes written to storage', `${result.writtenMbPerHour} MB/h`, '', undefined],
      ['commands acknowledged / terminal / lost', `${acknowledged.length} / ${acknowledged.length - pending - lost} / ${lost}`, 'all terminal, none lost', pending === 0 && lost === 0],
      ['command outcomes', JSON.stringify(outcomes), '', undefined],
      ['API requests / failed', `${requests} / ${failedRequests}`, '', undefined],
      ['worst event-loop lag reported', `${result.worstEventLoopLagMs} ms`, '', undefined],
    ];
    process.stdout.write(`\n| figure | value | target | |\n|---|---|---|---|\n`);
    for (const [figure, value, target, pass] of rows) process.stdout.write(`| ${figure} | ${value} | ${target} | ${pass === undefined ? '' : pass ? 'PASS' : 'MISSED'} |\n`);
    mkdirSync(dirname(RESULTS), { recursive: true });
    writeFileSync(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`\nwritten to ${RESULTS}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`soak could not measure: ${(err as Error).stack ?? String(err)}\n`);
    return 1;
  } finally {
    for (const timer of timers) clearInterval(timer);
    await stopAll();
    await Promise.all(chargers.map((c) => c.stop().catch(() => {})));
    await Promise.all(sims.map((s) => s.close().catch(() => {})));
    await broker?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

process.exitCode = await main();
