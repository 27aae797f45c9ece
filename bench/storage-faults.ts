// `npm run bench:storage` (root: it mounts a tmpfs): the card filling up under load. The hub is built
// as for the gateway (`node dist/src/main.js --demo`), its data on a 6 MB tmpfs; commands arrive every
// 40 ms, the tmpfs is filled with dd, left full for BENCH_FULL_MS (default 2000), then freed. Per
// cycle: commands acknowledged, refused with 503, answered otherwise, whether the hub exited,
// acknowledged commands lost (not in the database after a clean stop) or stranded (still PENDING),
// and how long after the space was freed the first command was acknowledged again. A last cycle kills
// the hub (SIGKILL) while the card is full and counts the same after a restart.
// BENCH_CYCLES (default 3) sets the number of fill/free cycles.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { buildHub } from './processes.ts';
import { startHubProcess, until, type RunningHub } from '../test/support/process.ts';
import { commandCounts, fillFreeCycle } from '../test/support/storage-cycle.ts';
import { fill } from '../test/support/mounts.ts';
import { Store } from '../src/store/store.ts';

const KEY = 'bench-storage-key-0123456789abcdef';
const VEHICLE = '5cab7f6d-cf9a-4ecd-8a8d-6f7a8b9cad01';
const COMMAND_PATH = `/v1.0.0/vehicles/${VEHICLE}/commands/charging-stop`;
const CYCLES = Number(process.env['BENCH_CYCLES'] ?? 3);
const FULL_MS = Number(process.env['BENCH_FULL_MS'] ?? 2_000);

interface Row {
  cycle: string;
  acknowledged: number;
  refused503: number;
  other: number;
  exited: boolean;
  lost: number;
  stranded: number;
  recoveredMs: number;
}

function mountTmpfs(root: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=6m', 'tmpfs', dir], { encoding: 'utf8' });
  if (mounted.status !== 0) throw new Error(`mount -t tmpfs failed (needs root): ${mounted.stderr}`);
  return dir;
}

/** What became of the acknowledged commands, read from the database after the hub stopped. */
function outcome(dataDir: string, acknowledged: string[]): { lost: number; stranded: number } {
  const store = Store.open(join(dataDir, 'hub.db'));
  try {
    const stored = new Map(store.commands.ofDeviceId(VEHICLE, 'ALL').map((c) => [c.id, c.state]));
    return {
      lost: acknowledged.filter((id) => !stored.has(id)).length,
      stranded: acknowledged.filter((id) => stored.get(id) === 'PENDING').length,
    };
  } finally {
    store.close();
  }
}

async function settledAndStopped(hub: RunningHub): Promise<boolean> {
  await until('no command PENDING', async () => ((await commandCounts(hub.url, KEY))['PENDING'] === 0 ? true : undefined), 60_000).catch(() => undefined);
  return (await hub.kill('SIGTERM')) === 0;
}

async function fillFree(main: string, root: string, index: number): Promise<Row> {
  const mount = mountTmpfs(root, `cycle-${index}`);
  const dataDir = join(mount, 'data');
  const hub = await startHubProcess({ HUB_DATA_DIR: dataDir, HUB_API_KEY: KEY }, ['--demo'], 60_000, main);
  let exited = false;
  hub.child.once('exit', () => (exited = true));
  try {
    const cycle = await fillFreeCycle({ url: hub.url, key: KEY, mount, commandPath: COMMAND_PATH, fullMs: FULL_MS });
    const exitedDuring = exited;
    const clean = await settledAndStopped(hub);
    return {
      cycle: `fill/free ${index}`, acknowledged: cycle.acknowledged.length, refused503: cycle.refused, other: cycle.unexpected.length,
      exited: exitedDuring || !clean, ...outcome(dataDir, cycle.acknowledged), recoveredMs: cycle.recoveredMs,
    };
  } finally {
    await hub.kill();
  }
}

async function killWhileFull(main: string, root: string): Promise<Row> {
  const mount = mountTmpfs(root, 'kill');
  const dataDir = join(mount, 'data');
  const first = await startHubProcess({ HUB_DATA_DIR: dataDir, HUB_API_KEY: KEY }, ['--demo'], 60_000, main);
  const acknowledged: string[] = [];
  let refused = 0;
  const submit = async () => {
    const res = await fetch(`${first.url}${COMMAND_PATH}`, { method: 'POST', headers: { 'x-api-key': KEY } });
    if (res.status === 200) acknowledged.push(((await res.json()) as { id: string }).id);
    else if (res.status === 503) refused++;
  };
  for (let i = 0; i < 25; i++) await submit();
  const filler = fill(mount);
  for (let i = 0; i < 25; i++) await submit();
  await first.kill('SIGKILL');
  rmSync(filler);
  const second = await startHubProcess({ HUB_DATA_DIR: dataDir, HUB_API_KEY: KEY }, ['--demo'], 60_000, main);
  try {
    const clean = await settledAndStopped(second);
    return { cycle: 'SIGKILL while full', acknowledged: acknowledged.length, refused503: refused, other: 0, exited: !clean, ...outcome(dataDir, acknowledged), recoveredMs: -1 };
  } finally {
    await second.kill();
  }
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'hub-bench-storage-'));
  const rows: Row[] = [];
  try {
    process.stdout.write('building the hub (tsc -p tsconfig.build.json)…\n');
    const built = await buildHub(root);
    for (let i = 1; i <= CYCLES; i++) rows.push(await fillFree(built, root, i));
    rows.push(await killWhileFull(built, root));
  } finally {
    for (const dir of ['kill', ...Array.from({ length: CYCLES }, (_, i) => `cycle-${i + 1}`)]) spawnSync('umount', ['-l', join(root, dir)]);
    rmSync(root, { recursive: true, force: true });
  }
  console.table(rows.map((r) => ({
    cycle: r.cycle, acknowledged: r.acknowledged, 'refused 503': r.refused503, 'other answers': r.other,
    'hub exited': r.exited ? 'YES' : 'no', lost: r.lost, stranded: r.stranded, 'recovered in ms': r.recoveredMs < 0 ? '-' : r.recoveredMs,
  })));
  const bad = rows.some((r) => r.exited || r.lost > 0 || r.stranded > 0 || r.other > 0);
  process.stdout.write(bad ? 'MISSED: the hub exited, lost or stranded a command, or answered otherwise\n' : 'PASS: nothing lost, nothing stranded, the hub never exited\n');
}

main().catch((err: Error) => {
  process.stderr.write(`bench:storage could not measure: ${err.message}\n`);
  process.exit(1);
});
