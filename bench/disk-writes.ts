// Writes to the gateway's storage (issue: years on an SD card). The built hub, started as the systemd
// unit starts it, polls Modbus devices every second (the bench's simulators, in their own process,
// whose values change at every poll), and the bytes the hub process causes to be written to storage
// are read from /proc/PID/io (write_bytes) over a window after a warm-up. Each device count runs
// twice in the same bench: with telemetry held in memory and written every BENCH_TELEMETRY_SECONDS
// (default 300, the hub's default; the window is one interval long, so it holds exactly one write of
// the held telemetry), and as a baseline with persistIntervalSeconds 0, which writes every change at
// once (what the hub did before), over 30 s.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { Store } from '../src/store/store.ts';
import { prepareImport } from '../src/domain/import.ts';
import { writtenBytes } from '../src/runtime/observability/disk-writes.ts';
import { buildHub, memoryOf, startServer, stop, systemdUnitEnvironment } from './processes.ts';
import { benchDeviceRecords } from './modbus.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const KEY = 'bench-disk-key-0123456789abcdef0123';
const WARMUP_MS = 10_000;

export interface DiskWriteRun {
  devices: number;
  persistIntervalSeconds: number;
  windowS: number;
  bytes: number;
  mbPerHour: number;
  rssMb: number;
}

async function startSims(count: number): Promise<{ ports: number[]; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'modbus-sims.ts'), String(count)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return { ports: (JSON.parse(line) as { ports: number[] }).ports, child };
}

/** One run: N devices polled every second by the built hub, bytes written over the window. */
export async function measureDiskWrites(main: string, unitEnv: Record<string, string>, devices: number, persistIntervalSeconds: number, windowMs: number): Promise<DiskWriteRun> {
  const sims = await startSims(devices);
  const dir = mkdtempSync(join(tmpdir(), 'hub-bench-disk-'));
  try {
    const store = Store.open(join(dir, 'hub.db'));
    const prepared = prepareImport(benchDeviceRecords(sims.ports), Date.now(), () => undefined);
    store.importDevices(prepared.devices, prepared.images, Date.now());
    store.close();
    const config = join(dir, 'hub.yaml');
    writeFileSync(config, `telemetry:\n  persistIntervalSeconds: ${persistIntervalSeconds}\n`);
    const hub = await startServer({
      name: `hub (${devices} devices)`, readyMsg: 'hub listening', cwd: ROOT, args: [main],
      env: { ...process.env, HUB_DATA_DIR: dir, HUB_HTTP_HOST: '127.0.0.1', HUB_HTTP_PORT: '0', HUB_API_KEY: KEY, HUB_LOG_LEVEL: 'info', HUB_CONFIG: config, ...unitEnv },
    });
    try {
      await new Promise((r) => setTimeout(r, WARMUP_MS));
      const before = writtenBytes(hub.pid);
      if (before === undefined) throw new Error('/proc/PID/io cannot be read here');
      const started = Date.now();
      await new Promise((r) => setTimeout(r, windowMs));
      const bytes = writtenBytes(hub.pid)! - before;
      const elapsed = Date.now() - started;
      return {
        devices, persistIntervalSeconds, windowS: Math.round(elapsed / 100) / 10, bytes,
        mbPerHour: Math.round((bytes / elapsed) * 3_600_000 / 1e4) / 100,
        rssMb: Math.round(memoryOf(hub.pid).rssMb * 10) / 10,
      };
    } finally {
      await stop(hub.child);
    }
  } finally {
    sims.child.stdin!.end();
    await once(sims.child, 'exit').catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The four runs: 10 and 100 devices, held telemetry and the write-every-change baseline. */
export async function benchDiskWrites(main: string, unitEnv: Record<string, string>): Promise<DiskWriteRun[]> {
  const interval = Number(process.env['BENCH_TELEMETRY_SECONDS'] ?? 300);
  const runs: DiskWriteRun[] = [];
  for (const devices of [10, 100]) {
    runs.push(await measureDiskWrites(main, unitEnv, devices, 0, 30_000));
    runs.push(await measureDiskWrites(main, unitEnv, devices, interval, interval * 1000));
  }
  return runs;
}

/** `npx tsx bench/disk-writes.ts`: this section alone, on a fresh build. */
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = mkdtempSync(join(tmpdir(), 'hub-bench-build-'));
  try {
    const runs = await benchDiskWrites(await buildHub(out), systemdUnitEnvironment());
    for (const run of runs) process.stdout.write(`${JSON.stringify(run)}\n`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
