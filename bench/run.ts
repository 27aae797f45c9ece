// `npm run bench`: measures the hub against its performance targets in one run and prints a table
// (figure, value, target, PASS/MISSED), also written to .bench/results.json.
//
//   1. import of 10,000 generated devices with `npm run hub -- import` (seconds)
//   2. the hub as a gateway runs it: built with `tsc -p tsconfig.build.json` and started as the
//      systemd unit starts it (`node dist/src/main.js` with the unit's NODE_ENV, NODE_OPTIONS and
//      MALLOC_ARENA_MAX); start-up, spawn to first successful API answer (target < 1 s), idle RSS
//   3. a bare Hono baseline server answering bodies of the same sizes
//   4. (a) detail read and (b) default list page at saturation, hub vs baseline in alternating
//      rounds (median), as a ratio (targets >= 60% and >= 40%); beside them in the same rounds the
//      reference build c3b534a (bench/reference.ts: built from git history, seeded through its own
//      import), and current / reference for each (target >= 100%; left out, with a note, when git
//      history lacks c3b534a); (a2) the detail read of every other
//      kind against the battery's, alternating rounds (target >= 90%); (c) text-filtered list at a fixed
//      200 req/s (p99 < 20 ms); (d) command submission at a fixed 100 req/s (p99 < 25 ms); and the
//      hub's peak RSS during all of it (< 100 MB). Next to (c) and (d), their floors on this
//      machine: the baseline at the same fixed rate, and a bare durable SQLite insert (bench/disk.ts)
//   5. for reference, the same hub run from source through tsx (as `npm start` does): start-up,
//      memory and CPU per request; tsx's loader costs start-up time and memory no gateway pays
//   6. the figures of bench/modbus.ts, when that module exists
//   7. command latency over MQTT and Modbus and event throughput (bench/commands.ts)
//   8. OCPP: command submission to the charger's Accepted, RSS with 50 idle chargers (bench/ocpp.ts)
//   9. bytes written to storage per hour with 10 and 100 devices polled every second, telemetry held
//      in memory vs written at every change (bench/disk-writes.ts; about 12 minutes)
//  10. RSS before, at the peak of and 60 s after 10,000 bad requests, bodies of 200 KB to 20 MB
//      among them (bench/bad-requests.ts; target: back within 15% of before)
//  11. RSS with 20 /home/live streams that never read against 20 that read, 150 MQTT meters
//      publishing once a second, for 10 minutes (bench/live-streams.ts; target: within 10 MB)
//
// The machine is small and shared, so absolute figures are noisy: throughput is only judged as a
// ratio against the baseline measured minutes apart in the same run. It is a measurement, not a
// test: it exits 0 when targets are missed (and says MISSED), 1 only when it could not measure.
// BENCH_SECONDS (default 8) and BENCH_ROUNDS (default 3) shorten or lengthen the saturation runs;
// BENCH_DISK_WRITES=0 leaves out section 9 (about 12 minutes; it measures no CPU, so a run on a busy
// machine keeps its figures). BENCH_ONLY=bad-requests builds the hub and runs section 10 alone;
// BENCH_ONLY=live-streams section 11 alone, which BENCH_LIVE_SECONDS (default 600) or `--quick` (180 s)
// shortens: `BENCH_ONLY=live-streams npm run bench -- --quick`. BENCH_ONLY=lists builds the hub and
// the reference, seeds both and runs (a) and (b) alone, with the reference beside the current hub.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { writeSeed, type SeedResult } from './seed.ts';
import { durableInsertLatency } from './disk.ts';
import { benchDiskWrites } from './disk-writes.ts';
import { benchBadRequests } from './bad-requests.ts';
import { benchLiveStreams, liveStreamSeconds } from './live-streams.ts';
import { fixedRate, maxThroughput, median, type FixedRateResult, type ThroughputResult } from './load.ts';
import { buildReference, importIntoReference, REFERENCE_COMMIT, type ReferenceBuild } from './reference.ts';
import {
  buildHub, cpuSecondsOf, firstOk, installCleanup, memoryOf, removeOnExit, RssSampler, runCommand, startServer, stop, stopAll, systemdUnitEnvironment, type Server,
} from './processes.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS_FILE = join(ROOT, '.bench', 'results.json');
const API = '/v1.0.0';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 8);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const CONNECTIONS = 10;
const WARMUP_SECONDS = 3;
const FILTER_RATE = 200;
const COMMAND_RATE = 100;
const FIXED_RATE_SECONDS = 10;

interface Figure {
  figure: string;
  value: number | string;
  unit: string;
  /** Shown in the table, e.g. "< 1000 ms"; absent for figures reported for information. */
  target?: string;
  pass?: boolean;
}

const figures: Figure[] = [];
const notes: string[] = [];
const details: Record<string, unknown> = {};

function report(figure: string, value: number | string, unit: string, target?: { text: string; pass: boolean }): void {
  figures.push({ figure, value, unit, ...(target ? { target: target.text, pass: target.pass } : {}) });
}

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

type Endpoints = Record<'detail' | 'list', { hub: string[]; baseline: string[] }>;

/** A server in the saturation rounds, with what it is asked for. */
interface Contender {
  server: Server;
  paths: string[];
  headers: Record<string, string>;
}
type Role = 'hub' | 'reference' | 'baseline';
type Contenders = { hub: Contender; baseline: Contender; reference?: Contender };

async function main(): Promise<number> {
  installCleanup();
  const work = mkdtempSync(join(tmpdir(), 'hub-bench-'));
  removeOnExit(work);
  const dataDir = join(work, 'data');
  const apiKey = `bench_${randomBytes(24).toString('base64url')}`;
  const auth = { 'x-api-key': apiKey };
  details['machine'] = { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version, loadavgAtStart: loadavg().map((l) => round(l, 2)), tmp: work };
  details['config'] = { seconds: SECONDS, rounds: ROUNDS, connections: CONNECTIONS, warmupSeconds: WARMUP_SECONDS };
  let exitCode = 0;
  try {
    if (process.env['BENCH_ONLY'] === 'bad-requests') {
      log('building the hub as a gateway runs it (tsc -p tsconfig.build.json)');
      const main = await buildHub(work);
      if (!(await badRequestSection(main, work))) exitCode = 1;
      return finish(exitCode, work);
    }
    if (process.env['BENCH_ONLY'] === 'lists') {
      if (!(await listsAlone(work, apiKey))) exitCode = 1;
      return finish(exitCode, work);
    }
    if (process.env['BENCH_ONLY'] === 'live-streams') {
      log('building the hub as a gateway runs it (tsc -p tsconfig.build.json)');
      if (!(await liveStreamSection(await buildHub(work)))) exitCode = 1;
      return finish(exitCode, work);
    }
    // ---- 1. seed and import ----
    const { seed, imported } = await seedAndImport(work, dataDir);
    const inProcessMs = Number(/in (\d+) ms/.exec(imported.stdout)?.[1] ?? NaN);
    report(`import ${seed.total.toLocaleString('en')} devices (npm run hub -- import, whole command)`, round(imported.ms / 1000, 2), 's');
    report('  of which parse + validate + write (as the CLI reports it)', round(inProcessMs / 1000, 2), 's');
    details['import'] = { ...seed, batteryIds: seed.batteryIds.length, vehicleIds: seed.vehicleIds.length, output: imported.stdout.trim() };

    // ---- 2. the hub, built and started as the systemd unit does ----
    log('building the hub as a gateway runs it (tsc -p tsconfig.build.json)');
    const main = await buildHub(work);
    const reference = await referenceSeeded(work, seed);
    const unitEnv = systemdUnitEnvironment(['NODE_ENV', 'NODE_OPTIONS', 'MALLOC_ARENA_MAX']);
    details['unitEnvironment'] = unitEnv;
    log(`starting the hub: node ${main} with ${Object.entries(unitEnv).map(([k, v]) => `${k}=${v}`).join(' ')}`);
    const hubEnv = { ...process.env, HUB_DATA_DIR: dataDir, HUB_HTTP_HOST: '127.0.0.1', HUB_HTTP_PORT: '0', HUB_API_KEY: apiKey, HUB_LOG_LEVEL: 'info', HUB_CONFIG: '' };
    const hub = await startServer({ name: 'hub', readyMsg: 'hub listening', cwd: ROOT, args: [main], env: { ...hubEnv, ...unitEnv } });
    const detailPaths = seed.batteryIds.map((id) => `${API}/batteries/${id}`);
    const hubReadyMs = await firstOk(hub.url + detailPaths[0], auth, hub.spawnedAt);
    const hubAtReady = memoryOf(hub.pid);
    report(`the hub as deployed: node dist/src/main.js, ${Object.entries(unitEnv).map(([k, v]) => `${k}=${v}`).join(' ')}`, '', '');
    report('hub start: spawn → first 200 on GET /batteries/{id}', Math.round(hubReadyMs), 'ms', { text: '< 1000 ms', pass: hubReadyMs < 1000 });
    report('  of which spawn → "hub listening" log line', Math.round(hub.listeningMs), 'ms');

    const sizes = await checkHub(hub, seed, auth);

    // ---- 3. the baseline ----
    const { baseline, baselineReadyMs } = await startBaseline(sizes);
    report('baseline start (bare Hono via tsx): spawn → first 200', Math.round(baselineReadyMs), 'ms');

    // ---- warm-up, then idle memory ----
    const endpoints: Endpoints = {
      detail: { hub: detailPaths, baseline: [`/static/${sizes.detail}`] },
      list: { hub: [`${API}/batteries`], baseline: [`/static/${sizes.list}`] },
    };
    log(`warming up (${WARMUP_SECONDS} s per endpoint and server)`);
    for (const endpoint of Object.values(endpoints)) {
      await maxThroughput({ base: hub.url, paths: endpoint.hub, headers: auth, connections: CONNECTIONS, seconds: WARMUP_SECONDS });
      await maxThroughput({ base: baseline.url, paths: endpoint.baseline, connections: CONNECTIONS, seconds: WARMUP_SECONDS });
    }
    await sleep(2000);
    const hubIdle = memoryOf(hub.pid);
    const baselineIdle = memoryOf(baseline.pid);
    report('hub RSS at ready, before any load (VmRSS)', round(hubAtReady.rssMb), 'MB');
    report('hub idle RSS after warm-up (VmRSS)', round(hubIdle.rssMb), 'MB', { text: '< 70 MB', pass: hubIdle.rssMb < 70 });
    report('  baseline idle RSS after warm-up, for comparison', round(baselineIdle.rssMb), 'MB');
    const stackMemory = await stackFloor(join(dataDir, 'hub.db'), unitEnv, detailPaths);
    report('  the fixed stack\'s floor (bench/stack-floor.mjs, started as the hub): idle / peak under detail reads', `${round(stackMemory.idleMb)} / ${round(stackMemory.peakMb)}`, 'MB');
    report('  hub idle RSS above that floor', round(hubIdle.rssMb - stackMemory.idleMb), 'MB');
    details['memory'] = { hubAtReady, hubIdle, baselineIdle, stackFloor: stackMemory };

    // ---- 4. load ----
    const sampler = new RssSampler(hub.pid).start();
    // A reference that does not start is a note: the current hub's figures are still measured.
    const referenceHub = reference
      ? await startReference(reference, { ...hubEnv, ...unitEnv }, auth, endpoints).catch((err: Error) => void notes.push(`the reference build could not be measured: ${err.message}`))
      : undefined;
    for (const name of ['detail', 'list'] as const) {
      await saturation(name, {
        hub: { server: hub, paths: endpoints[name].hub, headers: auth },
        baseline: { server: baseline, paths: endpoints[name].baseline, headers: {} },
        ...(referenceHub ? { reference: { server: referenceHub, paths: endpoints[name].hub, headers: auth } } : {}),
      });
    }
    if (referenceHub) await stop(referenceHub.child);

    // The detail reads of the other kinds against the battery's, in alternating rounds (issue 23:
    // each within 10% of the battery detail's throughput, same run).
    const kindRounds: Record<string, { battery: number; kind: number; ratio: number }[]> = {};
    for (const [name, paths] of Object.entries(seed.detailPaths)) {
      const rounds: { battery: number; kind: number; ratio: number }[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        log(`${name} vs battery detail: round ${r + 1}/${ROUNDS}`);
        const run = (list: string[]) => maxThroughput({ base: hub.url, paths: list.map((path) => `${API}${path}`), headers: auth, connections: CONNECTIONS, seconds: SECONDS });
        const first = r % 2 === 0 ? await run(paths) : await run(seed.batteryIds.map((id) => `/batteries/${id}`));
        const second = r % 2 === 0 ? await run(seed.batteryIds.map((id) => `/batteries/${id}`)) : await run(paths);
        const [kind, battery] = r % 2 === 0 ? [first, second] : [second, first];
        if (kind.non2xx > 0 || kind.errors > 0) notes.push(`${name}: a run had ${kind.non2xx} non-2xx answers and ${kind.errors} errors`);
        rounds.push({ battery: battery.rps, kind: kind.rps, ratio: kind.rps / battery.rps });
      }
      kindRounds[name] = rounds;
      const ratio = median(rounds.map((r) => r.ratio));
      report(`(a2) ${name}: throughput / GET /batteries/{id}`, `${Math.round(ratio * 100)}%`, '', { text: '>= 90%', pass: ratio >= 0.9 });
      report('  req/s, kind / battery (median of rounds)', `${Math.round(median(rounds.map((r) => r.kind)))} / ${Math.round(median(rounds.map((r) => r.battery)))}`, 'req/s');
    }
    details['detailKinds'] = kindRounds;

    log(`filtered list at ${FILTER_RATE} req/s for ${FIXED_RATE_SECONDS} s`);
    const filterPaths = seed.filters.map((f) => `${API}/batteries?${f.query}`);
    const filtered = await measuredFixed(hub.pid, () => fixedRate({
      base: hub.url, paths: filterPaths, headers: auth, rate: FILTER_RATE, seconds: FIXED_RATE_SECONDS, warmupSeconds: 1,
    }));
    details['filtered'] = filtered;
    report(`(c) text-filtered list GET /batteries?name=…&model=… at ${FILTER_RATE} req/s: p99`, round(filtered.p99Ms), 'ms', { text: '< 20 ms', pass: filtered.p99Ms < 20 && filtered.non2xx === 0 && filtered.errors === 0 });
    report('  p50 / max; achieved rate', `${round(filtered.p50Ms, 2)} / ${round(filtered.maxMs)} ms; ${Math.round(filtered.achievedRps)} req/s`, '');
    const floor = await fixedRate({
      base: baseline.url, paths: [`/static/${sizes.list}`], rate: FILTER_RATE, seconds: FIXED_RATE_SECONDS, warmupSeconds: 1,
    });
    details['filteredFloor'] = floor;
    report(`  for reference: baseline p99 at ${FILTER_RATE} req/s (machine floor)`, round(floor.p99Ms), 'ms');

    log(`command submission at ${COMMAND_RATE} req/s for ${FIXED_RATE_SECONDS} s`);
    const commandPaths = seed.vehicleIds.map((id) => `${API}/vehicles/${id}/commands/charging-stop`);
    const commands = await measuredFixed(hub.pid, () => fixedRate({
      base: hub.url, paths: commandPaths, method: 'POST', headers: auth, rate: COMMAND_RATE, seconds: FIXED_RATE_SECONDS, warmupSeconds: 1,
    }));
    details['commands'] = commands;
    report(`(d) command POST /vehicles/{id}/commands/charging-stop at ${COMMAND_RATE} req/s: p99`, round(commands.p99Ms), 'ms', { text: '< 25 ms', pass: commands.p99Ms < 25 && commands.non2xx === 0 && commands.errors === 0 });
    report('  p50 / max; achieved rate', `${round(commands.p50Ms, 2)} / ${round(commands.maxMs)} ms; ${Math.round(commands.achievedRps)} req/s`, '');
    const disk = await durableInsertLatency(work, COMMAND_RATE, 5);
    details['commandsFloor'] = disk;
    report(`  for reference: bare SQLite insert (WAL, FULL) p99 at ${COMMAND_RATE}/s (disk floor)`, round(disk.p99Ms), 'ms');
    for (const [name, r] of [['filtered', filtered], ['commands', commands]] as const) {
      if (r.non2xx > 0 || r.errors > 0) notes.push(`${name}: ${r.non2xx} non-2xx answers (${JSON.stringify(r.statuses)}) and ${r.errors} errors`);
    }

    const peakMb = sampler.stop();
    const hubAfter = memoryOf(hub.pid);
    report('hub peak RSS under load (a)-(d), VmRSS every 50 ms', round(peakMb), 'MB', { text: '< 90 MB', pass: peakMb < 90 });
    report('  hub VmHWM (kernel high-water mark since start)', round(hubAfter.hwmMb), 'MB');
    (details['memory'] as Record<string, unknown>)['hubAfterLoad'] = hubAfter;
    (details['memory'] as Record<string, unknown>)['baselineAfterLoad'] = memoryOf(baseline.pid);
    details['hubLogLines'] = hub.logLines.count;
    details['rssSamples'] = sampler.samples;

    // ---- 5. for reference: the hub run from source through tsx, as `npm start` runs it ----
    await stopAll();
    await fromSource(hubEnv, auth, endpoints);

    // ---- 6. the Modbus figures, when another module provides them ----
    const modbusModule = join(ROOT, 'bench', 'modbus.ts');
    if (existsSync(modbusModule)) {
      log('running bench/modbus.ts');
      try {
        const mod = (await import(pathToFileURL(modbusModule).href)) as { benchModbus?: () => Promise<Record<string, number | string>> };
        if (typeof mod.benchModbus !== 'function') throw new Error('bench/modbus.ts does not export benchModbus()');
        const modbus = await mod.benchModbus();
        details['modbus'] = modbus;
        for (const [name, value] of Object.entries(modbus)) report(`modbus: ${name}`, value, '');
      } catch (err) {
        notes.push(`bench/modbus.ts failed: ${(err as Error).message}`);
        exitCode = 1;
      }
    }
    // ---- 7. commands and events (bench/commands.ts) ----
    if (!(await commandSection('commands', 'benchCommands'))) exitCode = 1;
    // ---- 8. OCPP chargers: command latency and the memory of idle connections (bench/ocpp.ts) ----
    if (!(await commandSection('ocpp', 'benchOcpp'))) exitCode = 1;
    // ---- 9. writes to storage with 10 and 100 devices polled every second (bench/disk-writes.ts) ----
    if (process.env['BENCH_DISK_WRITES'] === '0') notes.push('section 9 (writes to storage) left out: BENCH_DISK_WRITES=0');
    else try {
      const runs = await benchDiskWrites(main, unitEnv);
      details['diskWrites'] = runs;
      for (const devices of [10, 100]) {
        const held = runs.find((r) => r.devices === devices && r.persistIntervalSeconds > 0)!;
        const every = runs.find((r) => r.devices === devices && r.persistIntervalSeconds === 0)!;
        const target = devices === 10 ? 2 : 10;
        report(`writes to storage, ${devices} devices polled every second (telemetry every ${held.persistIntervalSeconds} s)`, held.mbPerHour, 'MB/h', { text: `<= ${target} MB/h`, pass: held.mbPerHour <= target });
        report(`  baseline: every change written at once, same run`, every.mbPerHour, 'MB/h');
        report(`  ratio held / baseline`, round(held.mbPerHour / every.mbPerHour, 3), '');
      }
    } catch (err) {
      notes.push(`bench/disk-writes.ts failed: ${(err as Error).message}`);
      exitCode = 1;
    }
    // ---- 10. memory through a flood of bad requests, and after (bench/bad-requests.ts) ----
    if (!(await badRequestSection(main, work))) exitCode = 1;
    // ---- 11. memory with live streams that never read (bench/live-streams.ts) ----
    if (!(await liveStreamSection(main))) exitCode = 1;
  } catch (err) {
    notes.push(`the run stopped early: ${(err as Error).stack ?? String(err)}`);
    exitCode = 1;
  }
  return finish(exitCode, work);
}

/** Writes the 10,000 devices and imports them into `dataDir` with `npm run hub -- import`. */
async function seedAndImport(work: string, dataDir: string): Promise<{ seed: SeedResult; imported: Awaited<ReturnType<typeof runCommand>> }> {
  log('generating 10,000 devices');
  const seed = writeSeed(join(work, 'devices.json'));
  log(`importing ${seed.file}`);
  const imported = await runCommand('npm', ['run', '--silent', 'hub', '--', 'import', seed.file], {
    cwd: ROOT, env: { ...process.env, HUB_DATA_DIR: dataDir },
  });
  if (imported.code !== 0) throw new Error(`import failed (${imported.code}):\n${imported.stderr}${imported.stdout}`);
  return { seed, imported };
}

/** The bare Hono baseline, answering bodies of the hub's detail and list sizes. */
async function startBaseline(sizes: { detail: number; list: number }): Promise<{ baseline: Server; baselineReadyMs: number }> {
  log('starting the baseline');
  const baseline = await startServer({
    name: 'baseline', readyMsg: 'baseline listening', cwd: ROOT,
    args: ['--import', 'tsx', 'bench/baseline-server.ts'],
    env: { ...process.env, BASELINE_SIZES: `${sizes.detail},${sizes.list}` },
  });
  return { baseline, baselineReadyMs: await firstOk(`${baseline.url}/static/${sizes.detail}`, {}, baseline.spawnedAt) };
}

/**
 * The reference build, built and seeded with the same devices (bench/reference.ts), or undefined
 * with a note when this checkout's history lacks it. A reference that fails to build or import is
 * a note too: the rest of the bench still measures the current hub.
 */
async function referenceSeeded(work: string, seed: SeedResult): Promise<{ build: ReferenceBuild; dataDir: string } | undefined> {
  log(`building the reference ${REFERENCE_COMMIT} from git history`);
  const prepared = await buildReference(work);
  if ('skipped' in prepared) {
    notes.push(prepared.skipped);
    details['reference'] = { commit: REFERENCE_COMMIT, skipped: prepared.skipped };
    return undefined;
  }
  if ('failed' in prepared) {
    notes.push(`the reference build could not be measured: ${prepared.failed}`);
    details['reference'] = { commit: REFERENCE_COMMIT, failed: prepared.failed };
    return undefined;
  }
  const dataDir = join(work, 'data-reference');
  log(`importing ${seed.file} into the reference with its own import`);
  try {
    await importIntoReference(prepared.build, seed.file, dataDir);
  } catch (err) {
    notes.push(`the reference build could not be measured: ${(err as Error).message}`);
    return undefined;
  }
  details['reference'] = { commit: REFERENCE_COMMIT, dir: prepared.build.dir };
  return { build: prepared.build, dataDir };
}

/** Starts the seeded reference as the hub is started, checks it answers the same data, warms it up. */
async function startReference(reference: { build: ReferenceBuild; dataDir: string }, env: NodeJS.ProcessEnv, auth: Record<string, string>, endpoints: Endpoints): Promise<Server> {
  log(`starting the reference ${REFERENCE_COMMIT}`);
  const server = await startServer({ name: `reference ${REFERENCE_COMMIT}`, readyMsg: 'hub listening', cwd: reference.build.dir, args: [reference.build.main], env: { ...env, HUB_DATA_DIR: reference.dataDir } });
  await firstOk(server.url + endpoints.detail.hub[0], auth, server.spawnedAt);
  const list = await fetch(server.url + endpoints.list.hub[0], { headers: auth });
  const content = ((await list.json()) as { content?: unknown[] }).content;
  if (list.status !== 200 || content?.length !== 10) throw new Error(`the reference's GET /batteries answered ${list.status} with ${content?.length} items`);
  for (const endpoint of Object.values(endpoints)) {
    await maxThroughput({ base: server.url, paths: endpoint.hub, headers: auth, connections: CONNECTIONS, seconds: WARMUP_SECONDS });
  }
  return server;
}

interface SaturationRound {
  hub: Measured;
  baseline: Measured;
  ratio: number;
  reference?: Measured;
  referenceRatio?: number;
  currentOverReference?: number;
}

const SATURATION = {
  detail: { letter: 'a', figure: 'detail read GET /batteries/{id}', target: 0.6 },
  list: { letter: 'b', figure: 'default list page GET /batteries', target: 0.4 },
} as const;

/**
 * (a) or (b): each contender saturated in turn, ROUNDS times, the order rotated each round so a slow
 * spell on the machine does not always hit the same one; the figures are medians of per-round ratios.
 */
async function saturation(name: 'detail' | 'list', contenders: Contenders): Promise<void> {
  const { letter, figure, target } = SATURATION[name];
  const roles = (['hub', 'reference', 'baseline'] as const).filter((role) => contenders[role]);
  const rounds: SaturationRound[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    log(`${name}: round ${r + 1}/${ROUNDS}`);
    const got: Partial<Record<Role, Measured>> = {};
    for (const role of roles.map((_, i) => roles[(i + r) % roles.length]!)) {
      const { server, paths, headers } = contenders[role]!;
      got[role] = await measured(server.pid, () => maxThroughput({ base: server.url, paths, headers, connections: CONNECTIONS, seconds: SECONDS }));
    }
    const { hub, baseline, reference } = got as Record<Role, Measured>;
    rounds.push({
      hub, baseline, ratio: hub.rps / baseline.rps,
      ...(reference ? { reference, referenceRatio: reference.rps / baseline.rps, currentOverReference: hub.rps / reference.rps } : {}),
    });
  }
  details[name] = rounds;
  const percent = (ratio: number) => `${Math.round(ratio * 100)}%`;
  const ratio = median(rounds.map((r) => r.ratio));
  report(`(${letter}) ${figure}: hub / baseline throughput`, percent(ratio), '', { text: `>= ${percent(target)}`, pass: ratio >= target });
  report('  hub req/s (median of rounds)', Math.round(median(rounds.map((r) => r.hub.rps))), 'req/s');
  report('  baseline req/s (median of rounds)', Math.round(median(rounds.map((r) => r.baseline.rps))), 'req/s');
  report('  per-round ratios', rounds.map((r) => percent(r.ratio)).join(' '), '');
  report('  hub p99 / baseline p99 at saturation', `${median(rounds.map((r) => r.hub.p99Ms))} / ${median(rounds.map((r) => r.baseline.p99Ms))}`, 'ms');
  report('  CPU per request, hub / baseline', `${Math.round(median(rounds.map((r) => r.hub.cpuUsPerRequest)))} / ${Math.round(median(rounds.map((r) => r.baseline.cpuUsPerRequest)))}`, 'µs');
  if (contenders.reference) {
    const current = median(rounds.map((r) => r.currentOverReference!));
    report(`  reference build ${REFERENCE_COMMIT} / baseline, same rounds`, percent(median(rounds.map((r) => r.referenceRatio!))), '');
    report(`(${letter}) ${figure}: current / reference ${REFERENCE_COMMIT} throughput, same rounds`, percent(current), '', { text: '>= 100%', pass: current >= 1 });
    report('  per-round current / reference', rounds.map((r) => percent(r.currentOverReference!)).join(' '), '');
    report('  reference req/s (median of rounds)', Math.round(median(rounds.map((r) => r.reference!.rps))), 'req/s');
    report('  CPU per request, current / reference', `${Math.round(median(rounds.map((r) => r.hub.cpuUsPerRequest)))} / ${Math.round(median(rounds.map((r) => r.reference!.cpuUsPerRequest)))}`, 'µs');
  }
  for (const r of rounds) for (const m of [r.hub, r.baseline, ...(r.reference ? [r.reference] : [])]) {
    if (m.non2xx > 0 || m.errors > 0) notes.push(`${name}: a run had ${m.non2xx} non-2xx answers and ${m.errors} errors`);
  }
}

/**
 * BENCH_ONLY=lists: (a) and (b) alone, the current hub and the reference build side by side in the
 * same rounds against the same baseline. False when it could not measure; true, with a note, when
 * the reference is not in this checkout's history (nothing to compare with).
 */
async function listsAlone(work: string, apiKey: string): Promise<boolean> {
  try {
    const dataDir = join(work, 'data');
    const auth = { 'x-api-key': apiKey };
    const { seed } = await seedAndImport(work, dataDir);
    log('building the hub as a gateway runs it (tsc -p tsconfig.build.json)');
    const main = await buildHub(work);
    const reference = await referenceSeeded(work, seed);
    if (!reference) return !notes.some((note) => note.startsWith('the reference build could not be measured'));
    const unitEnv = systemdUnitEnvironment(['NODE_ENV', 'NODE_OPTIONS', 'MALLOC_ARENA_MAX']);
    const env = { ...process.env, HUB_HTTP_HOST: '127.0.0.1', HUB_HTTP_PORT: '0', HUB_API_KEY: apiKey, HUB_LOG_LEVEL: 'info', HUB_CONFIG: '', ...unitEnv };
    const hub = await startServer({ name: 'hub', readyMsg: 'hub listening', cwd: ROOT, args: [main], env: { ...env, HUB_DATA_DIR: dataDir } });
    const endpoints: Endpoints = {
      detail: { hub: seed.batteryIds.map((id) => `${API}/batteries/${id}`), baseline: [] },
      list: { hub: [`${API}/batteries`], baseline: [] },
    };
    await firstOk(hub.url + endpoints.detail.hub[0], auth, hub.spawnedAt);
    const sizes = await checkHub(hub, seed, auth);
    endpoints.detail.baseline = [`/static/${sizes.detail}`];
    endpoints.list.baseline = [`/static/${sizes.list}`];
    const { baseline } = await startBaseline(sizes);
    log(`warming up (${WARMUP_SECONDS} s per endpoint and server)`);
    for (const endpoint of Object.values(endpoints)) {
      await maxThroughput({ base: hub.url, paths: endpoint.hub, headers: auth, connections: CONNECTIONS, seconds: WARMUP_SECONDS });
      await maxThroughput({ base: baseline.url, paths: endpoint.baseline, connections: CONNECTIONS, seconds: WARMUP_SECONDS });
    }
    const referenceHub = await startReference(reference, env, auth, endpoints);
    report(`the hub and the reference ${REFERENCE_COMMIT} as deployed (node dist/src/main.js, the unit's settings), ${seed.total.toLocaleString('en')} devices`, '', '');
    for (const name of ['detail', 'list'] as const) {
      await saturation(name, {
        hub: { server: hub, paths: endpoints[name].hub, headers: auth },
        reference: { server: referenceHub, paths: endpoints[name].hub, headers: auth },
        baseline: { server: baseline, paths: endpoints[name].baseline, headers: {} },
      });
    }
    return true;
  } catch (err) {
    notes.push(`BENCH_ONLY=lists stopped early: ${(err as Error).stack ?? String(err)}`);
    return false;
  }
}

/** A fresh hub as the unit starts it, 10,000 bad requests, its RSS before, at the peak, 60 s after. */
async function badRequestSection(main: string, work: string): Promise<boolean> {
  try {
    const unitEnv = systemdUnitEnvironment(['NODE_ENV', 'NODE_OPTIONS', 'MALLOC_ARENA_MAX']);
    const apiKey = `bench_${randomBytes(24).toString('base64url')}`;
    const dataDir = join(work, 'data-bad-requests');
    const hub = await startServer({
      name: 'hub (bad requests)', readyMsg: 'hub listening', cwd: ROOT, args: [main],
      env: { ...process.env, HUB_DATA_DIR: dataDir, HUB_HTTP_HOST: '127.0.0.1', HUB_HTTP_PORT: '0', HUB_API_KEY: apiKey, HUB_LOG_LEVEL: 'info', HUB_CONFIG: '', ...unitEnv },
    });
    await firstOk(`${hub.url}${API}/batteries`, { 'x-api-key': apiKey }, hub.spawnedAt);
    await sleep(2000);
    const figures = await benchBadRequests(hub, apiKey, log);
    details['badRequests'] = figures;
    const back = figures.afterMb <= figures.beforeMb * 1.15;
    report('hub RSS fresh, before a warm-up of 200 bad requests', round(figures.coldMb, 1), 'MB');
    report(`hub RSS before ${figures.requests.toLocaleString('en')} bad requests (200 KB–20 MB bodies among them)`, round(figures.beforeMb, 1), 'MB');
    report('  at the peak during them', round(figures.peakMb, 1), 'MB');
    report('  60 s after the last answer', round(figures.afterMb, 1), 'MB', { text: `<= ${round(figures.beforeMb * 1.15, 1)} MB (+15%)`, pass: back });
    await stop(hub.child);
    return true;
  } catch (err) {
    notes.push(`bench/bad-requests.ts failed: ${(err as Error).message}`);
    return false;
  }
}

/** Two hubs with 150 MQTT meters: 20 live streams that read on one, 20 that never read on the other. */
async function liveStreamSection(main: string): Promise<boolean> {
  try {
    const figures = await benchLiveStreams(main, liveStreamSeconds(process.argv), log);
    details['liveStreams'] = figures;
    const gapMb = figures.stalled.endMb - figures.reading.endMb;
    const minutes = round(figures.seconds / 60, 1);
    report(`hub RSS after ${minutes} min of 20 reading live streams (${figures.messagesPerSecond} meter messages/s)`, round(figures.reading.endMb, 1), 'MB');
    report(`  with 20 streams that never read instead (${figures.stalled.reopened} closed by the write timeout, opened again)`, round(figures.stalled.endMb, 1), 'MB',
      { text: `<= ${round(figures.reading.endMb + 10, 1)} MB (+10 MB)`, pass: gapMb <= 10 });
    report('  peak, reading / never reading', `${round(figures.reading.peakMb, 1)} / ${round(figures.stalled.peakMb, 1)}`, 'MB');
    return true;
  } catch (err) {
    notes.push(`bench/live-streams.ts failed: ${(err as Error).message}`);
    return false;
  }
}

async function finish(exitCode: number, work: string): Promise<number> {
  await stopAll();
  rmSync(work, { recursive: true, force: true });
  (details['machine'] as Record<string, unknown>)['loadavgAtEnd'] = loadavg().map((l) => round(l, 2));
  printTable();
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(RESULTS_FILE, `${JSON.stringify({ date: new Date().toISOString(), command: 'npm run bench', figures, notes, details }, null, 2)}\n`);
  process.stdout.write(`\nwritten to ${RESULTS_FILE}\n`);
  return exitCode;
}

/**
 * For reference: the same hub started from source through tsx, as `npm start` and `npm run hub`
 * run it, without the unit's settings: tsx's loader thread and transform step cost start-up time
 * and memory that no gateway pays. No pass/fail here.
 */
async function fromSource(env: NodeJS.ProcessEnv, auth: Record<string, string>, endpoints: Endpoints): Promise<void> {
  log('for reference: the hub from source through tsx');
  const hub = await startServer({ name: 'hub (tsx)', readyMsg: 'hub listening', cwd: ROOT, args: ['--import', 'tsx', 'src/main.ts'], env });
  const readyMs = await firstOk(hub.url + endpoints.detail.hub[0], auth, hub.spawnedAt);
  for (const endpoint of Object.values(endpoints)) {
    await maxThroughput({ base: hub.url, paths: endpoint.hub, headers: auth, connections: CONNECTIONS, seconds: WARMUP_SECONDS });
  }
  await sleep(2000);
  const idle = memoryOf(hub.pid);
  const sampler = new RssSampler(hub.pid).start();
  const detail = await measured(hub.pid, () => maxThroughput({ base: hub.url, paths: endpoints.detail.hub, headers: auth, connections: CONNECTIONS, seconds: SECONDS }));
  const list = await measured(hub.pid, () => maxThroughput({ base: hub.url, paths: endpoints.list.hub, headers: auth, connections: CONNECTIONS, seconds: SECONDS }));
  const peakMb = sampler.stop();
  details['fromSource'] = { readyMs, listeningMs: hub.listeningMs, idle, peakMb, detail, list };
  report('for reference, the hub from source (node --import tsx src/main.ts, no unit settings):', '', '');
  report('  start: spawn → first 200', Math.round(readyMs), 'ms');
  report('  idle RSS after warm-up / peak RSS under (a)+(b) (VmRSS)', `${round(idle.rssMb)} / ${round(peakMb)}`, 'MB');
  report('  req/s, detail / list (no baseline beside it: compare CPU per request)', `${Math.round(detail.rps)} / ${Math.round(list.rps)}`, 'req/s');
  report('  CPU per request, detail / list', `${Math.round(detail.cpuUsPerRequest)} / ${Math.round(list.cpuUsPerRequest)}`, 'µs');
  await stopAll();
}

interface Measured extends ThroughputResult {
  /** CPU time the server process used per answered request, in µs. */
  cpuUsPerRequest: number;
  /** CPU the load generator (this process) used during the run, in % of one core. */
  generatorCpuPercent: number;
}

/** Runs a saturation run and adds what it cost the server and the generator in CPU. */
/**
 * The fixed stack's memory floor (bench/stack-floor.mjs) on the same database, started with the
 * unit's environment and loaded like the hub: idle RSS after the same warm-up, and the peak under a
 * detail-read load. Stopped before the hub's load runs, so the two never share the machine.
 */
async function stackFloor(dbFile: string, unitEnv: Record<string, string>, detailPaths: string[]): Promise<{ idleMb: number; peakMb: number }> {
  const floor = await startServer({
    name: 'floor', readyMsg: 'floor listening', cwd: ROOT, args: ['bench/stack-floor.mjs', dbFile],
    env: { ...process.env, ...unitEnv },
  });
  try {
    await maxThroughput({ base: floor.url, paths: detailPaths, connections: CONNECTIONS, seconds: WARMUP_SECONDS * 2 });
    await sleep(2000);
    const idleMb = memoryOf(floor.pid).rssMb;
    const sampler = new RssSampler(floor.pid).start();
    await maxThroughput({ base: floor.url, paths: detailPaths, connections: CONNECTIONS, seconds: SECONDS });
    return { idleMb, peakMb: sampler.stop() };
  } finally {
    await stop(floor.child);
  }
}

async function measured(pid: number, run: () => Promise<ThroughputResult>): Promise<Measured> {
  const cpuBefore = cpuSecondsOf(pid);
  const selfBefore = process.cpuUsage();
  const result = await run();
  const self = process.cpuUsage(selfBefore);
  return {
    ...result,
    cpuUsPerRequest: ((cpuSecondsOf(pid) - cpuBefore) * 1e6) / Math.max(1, result.requests),
    generatorCpuPercent: round(((self.user + self.system) / 1e6 / result.seconds) * 100),
  };
}

async function measuredFixed(pid: number, run: () => Promise<FixedRateResult>): Promise<FixedRateResult & { serverCpuPercent: number }> {
  const cpuBefore = cpuSecondsOf(pid);
  const started = performance.now();
  const result = await run();
  return { ...result, serverCpuPercent: round(((cpuSecondsOf(pid) - cpuBefore) / ((performance.now() - started) / 1000)) * 100) };
}

/**
 * Checks that the hub answers what the data says before timing it (a fast wrong answer is no
 * figure), and returns the byte sizes of the answers the baseline must match.
 */
async function checkHub(hub: Server, seed: SeedResult, auth: Record<string, string>): Promise<{ detail: number; list: number }> {
  const get = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(hub.url + path, { ...init, headers: auth });
    const text = await response.text();
    return { status: response.status, bytes: Buffer.byteLength(text), json: JSON.parse(text) as Record<string, unknown> };
  };
  const detailBytes: number[] = [];
  for (const id of seed.batteryIds) {
    const r = await get(`${API}/batteries/${id}`);
    if (r.status !== 200 || r.json['id'] !== id) throw new Error(`GET /batteries/${id} answered ${r.status}`);
    detailBytes.push(r.bytes);
  }
  const list = await get(`${API}/batteries`);
  const content = list.json['content'] as unknown[] | undefined;
  if (list.status !== 200 || content?.length !== 10) throw new Error(`GET /batteries answered ${list.status} with ${content?.length} items`);
  if (list.json['totalElements'] !== seed.kinds.battery) notes.push(`GET /batteries: totalElements ${String(list.json['totalElements'])}, expected ${seed.kinds.battery}`);
  const filterChecks = [];
  for (const f of seed.filters) {
    const r = await get(`${API}/batteries?${f.query}`);
    filterChecks.push({ query: f.query, status: r.status, totalElements: r.json['totalElements'], expected: f.expectedTotal, bytes: r.bytes });
    if (r.status !== 200 || r.json['totalElements'] !== f.expectedTotal) {
      notes.push(`GET /batteries?${f.query}: ${r.status}, totalElements ${String(r.json['totalElements'])}, expected ${f.expectedTotal}`);
    }
  }
  const command = await get(`${API}/vehicles/${seed.vehicleIds[0]}/commands/charging-stop`, { method: 'POST' });
  if (command.status !== 200 || command.json['state'] !== 'PENDING') throw new Error(`POST charging-stop answered ${command.status}: ${JSON.stringify(command.json)}`);
  const sizes = { detail: Math.round(detailBytes.reduce((a, b) => a + b, 0) / detailBytes.length), list: list.bytes };
  details['responses'] = {
    detailBytes: { min: Math.min(...detailBytes), max: Math.max(...detailBytes), mean: sizes.detail },
    listBytes: list.bytes, filters: filterChecks, commandBytes: command.bytes,
  };
  return sizes;
}

function printTable(): void {
  const rows = figures.map((f) => [
    f.figure,
    f.value === '' ? '' : `${f.value}${f.unit ? ` ${f.unit}` : ''}`,
    f.target ?? '',
    f.pass === undefined ? '' : f.pass ? 'PASS' : 'MISSED',
  ]);
  const header = ['figure', 'value', 'target', 'result'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const out = [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
  const missed = figures.filter((f) => f.pass === false);
  out.push('');
  out.push(missed.length === 0
    ? `All ${figures.filter((f) => f.pass !== undefined).length} targets met.`
    : `MISSED ${missed.length} of ${figures.filter((f) => f.pass !== undefined).length} targets: ${missed.map((f) => f.figure.replace(/:.*$/, '')).join('; ')}`);
  for (const note of notes) out.push(`NOTE: ${note}`);
  process.stdout.write(`\n${out.join('\n')}\n`);
}

main().then((code) => process.exit(code), (err: Error) => {
  process.stderr.write(`bench failed: ${err.stack ?? err.message}\n`);
  process.exit(1);
});

/**
 * Runs bench/<name>.ts's exported `fn` and reports each of its figures under `<name>: `; a figure of
 * the time beyond the simulator's own delay is held to its target. False when it failed.
 */
async function commandSection(name: string, fn: string): Promise<boolean> {
  log(`running bench/${name}.ts`);
  try {
    const module = (await import(pathToFileURL(join(ROOT, 'bench', `${name}.ts`)).href)) as Record<string, () => Promise<Record<string, number | string>>>;
    const figures = await module[fn]!();
    details[name] = figures;
    for (const [figure, value] of Object.entries(figures)) {
      const target = /beyond the simulator/.test(figure) && typeof value === 'number' ? { text: '< 20 ms', pass: value < 20 } : undefined;
      report(`${name}: ${figure}`, value, '', target);
    }
    return true;
  } catch (err) {
    notes.push(`bench/${name}.ts failed: ${(err as Error).message}`);
    return false;
  }
}
