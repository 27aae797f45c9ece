// Modbus bench: 100 simulated TCP devices (40 inverters, 30 batteries, 30 meters, in a separate
// process) polled every second by the hub's scheduler. Reports the hub's CPU share of one core over
// a fixed wall window, its RSS, and Modbus transactions per device poll beside the minimum: the
// fewest reads of at most 125 registers that cover the registers each poll needs.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { Store } from '../src/store/store.ts';
import { prepareImport } from '../src/domain/import.ts';
import { silentLogger } from '../src/log.ts';
import { systemClock } from '../src/domain/time.ts';
import { ModbusRuntime } from '../src/runtime/modbus/modbus-runtime.ts';
import { builtInDrivers } from '../drivers/modbus/index.ts';

const DEVICES = 100;
const WARMUP_MS = 4000;
const WINDOW_MS = 15_000;

/** The simulators' devices as import records (the kinds modbus-sims.ts serves), polled every second. */
export function benchDeviceRecords(ports: readonly number[]): unknown[] {
  return ports.map((port, i) => ({
    kind: i % 10 < 4 ? 'pvInverter' : i % 10 < 7 ? 'battery' : 'meter',
    userId: `bench-${i % 7}`,
    staticData: { vendor: 'FRONIUS', model: 'Bench device' },
    driver: { type: 'fronius', host: '127.0.0.1', port, unitId: 1, pollIntervalMs: 1000 },
  }));
}

export async function benchModbus(): Promise<Record<string, number | string>> {
  const sims = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./modbus-sims.ts', import.meta.url)), String(DEVICES)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: sims.stdout! }), 'line')) as [string];
  const { ports } = JSON.parse(line) as { ports: number[] };
  const dir = mkdtempSync(join(tmpdir(), 'hub-bench-modbus-'));
  const store = Store.open(join(dir, 'hub.db'));
  const prepared = prepareImport(benchDeviceRecords(ports), Date.now(), () => undefined);
  store.importDevices(prepared.devices, prepared.images, Date.now());
  const runtime = new ModbusRuntime({ store, registry: builtInDrivers(), log: silentLogger(), clock: systemClock });
  try {
    runtime.start();
    await new Promise((r) => setTimeout(r, WARMUP_MS));
    const { scheduler, pool } = runtime;
    const polls0 = scheduler.polls;
    const tx0 = pool.transactions();
    const rows0 = scheduler.writer.rowsWritten;
    const flushes0 = scheduler.writer.transactions;
    const cpu0 = process.cpuUsage();
    const wall0 = performance.now();
    await new Promise((r) => setTimeout(r, WINDOW_MS));
    const cpu = process.cpuUsage(cpu0);
    const wallMs = performance.now() - wall0;
    const polls = scheduler.polls - polls0;
    const transactions = pool.transactions() - tx0;
    const minimum = minimumReadsPerPoll(runtime);
    return {
      devices: DEVICES,
      pollIntervalMs: 1000,
      windowS: Math.round(wallMs / 100) / 10,
      cpuPctOfOneCore: Math.round(((cpu.user + cpu.system) / 1000 / wallMs) * 1000) / 10,
      rssMb: Math.round(process.memoryUsage().rss / 1e5) / 10,
      pollsPerS: Math.round((polls / wallMs) * 10_000) / 10,
      transactionsPerPoll: Math.round((transactions / polls) * 100) / 100,
      minimumTransactionsPerPoll: minimum,
      sqliteRowsPerS: Math.round(((scheduler.writer.rowsWritten - rows0) / wallMs) * 10_000) / 10,
      sqliteTransactionsPerS: Math.round(((scheduler.writer.transactions - flushes0) / wallMs) * 10_000) / 10,
    };
  } finally {
    await runtime.stop();
    store.close();
    rmSync(dir, { recursive: true, force: true });
    sims.stdin!.end();
    await once(sims, 'exit');
  }
}

/** Per device, the registers its poll needed, covered by windows of 125 (a lower bound no reader can beat). */
function minimumReadsPerPoll(runtime: ModbusRuntime): number {
  const sessions = (runtime.scheduler as unknown as { sessions: Map<string, { reader: { lastBlocks: { start: number; length: number }[] } }> }).sessions;
  let total = 0;
  for (const { reader } of sessions.values()) {
    const blocks = reader.lastBlocks;
    if (blocks.length === 0) continue;
    const first = Math.min(...blocks.map((b) => b.start));
    const last = Math.max(...blocks.map((b) => b.start + b.length));
    total += Math.ceil((last - first) / 125);
  }
  return Math.round((total / sessions.size) * 100) / 100;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await benchModbus();
  for (const [key, value] of Object.entries(result)) process.stdout.write(`${key.padEnd(28)} ${value}\n`);
}
