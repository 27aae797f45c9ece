// Child processes of the benchmark and what is measured about them: how long a server takes from
// spawn to ready, and how much memory it holds (VmRSS from /proc/PID/status, sampled while load
// runs, plus the kernel's own high-water mark VmHWM). Servers run as separate processes so their
// memory and CPU are their own, never mixed with the load generator's.
//
// Every child is spawned in its own process group and registered here; stopAll() (called in
// run.ts's finally) and the exit/signal handlers below kill each group by its id, so nothing the
// benchmark started outlives it, even when a step throws or the run is interrupted; scratch
// directories registered with removeOnExit() go the same way.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';

export interface Server {
  name: string;
  child: ChildProcess;
  pid: number;
  url: string;
  /** performance.now() just before spawn(). */
  spawnedAt: number;
  /** ms from spawn() to the "listening" line on stdout. */
  listeningMs: number;
  /** Lines written to stderr (and stdout lines that were not JSON), the last few kept for errors. */
  stderrTail: string[];
  /** How many log lines the server wrote to stdout. */
  logLines: { count: number };
}

const children = new Set<ChildProcess>();
const scratch = new Set<string>();

/** Deletes `dir` when this process exits, however it exits (short of SIGKILL). */
export function removeOnExit(dir: string): void {
  scratch.add(dir);
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal); // the group we created with detached: true
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

let cleanupInstalled = false;
/** Kills every registered child when this process exits or is interrupted. */
export function installCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.on('exit', () => {
    for (const child of children) killGroup(child, 'SIGKILL');
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      process.stderr.write(`\nbench: ${signal}, stopping child processes\n`);
      for (const child of children) killGroup(child, 'SIGKILL');
      process.exit(130);
    });
  }
}

function track(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
}

/** Stops every child still running: SIGTERM, then SIGKILL after `graceMs`. */
export async function stopAll(graceMs = 2000): Promise<void> {
  await Promise.all([...children].map((child) => stop(child, graceMs)));
}

export async function stop(child: ChildProcess, graceMs = 2000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  killGroup(child, 'SIGTERM');
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a command to completion (e.g. `npm run hub -- import FILE`) and times it. */
export function runCommand(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<RunResult> {
  const started = performance.now();
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  track(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr, ms: performance.now() - started }));
  });
}

export interface StartOptions {
  name: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The `msg` of the JSON line on stdout that says the server listens; it must carry `url`. */
  readyMsg: string;
  timeoutMs?: number;
}

/**
 * Spawns `node ARGS` and resolves when the server logs its ready line. Its stdout is read to the
 * end for as long as it runs: pino writes synchronously, so an undrained pipe would stall it.
 */
export function startServer(options: StartOptions): Promise<Server> {
  const started = performance.now();
  const child = spawn(process.execPath, options.args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  track(child);
  const stderrTail: string[] = [];
  const keep = (line: string) => {
    stderrTail.push(line);
    if (stderrTail.length > 20) stderrTail.shift();
  };
  const logLines = { count: 0 };
  createInterface({ input: child.stderr! }).on('line', keep);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`${options.name} did not log "${options.readyMsg}" within ${options.timeoutMs ?? 15_000} ms:\n${stderrTail.join('\n')}`));
    }, options.timeoutMs ?? 15_000);
    let ready = false;
    createInterface({ input: child.stdout! }).on('line', (line) => {
      logLines.count++;
      if (ready) return;
      let entry: { msg?: unknown; url?: unknown };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        keep(line);
        return;
      }
      if (entry.msg === options.readyMsg && typeof entry.url === 'string') {
        ready = true;
        clearTimeout(timer);
        resolve({ name: options.name, child, pid: child.pid!, url: entry.url, spawnedAt: started, listeningMs: performance.now() - started, stderrTail, logLines });
      }
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (!ready) reject(new Error(`${options.name} exited (${code ?? signal}) before it was ready:\n${stderrTail.join('\n')}`));
    });
  });
}

/** Polls `url` until it answers 200; returns ms since `sinceMs` (a performance.now() value). */
export async function firstOk(url: string, headers: Record<string, string>, sinceMs: number, timeoutMs = 10_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url, { headers });
      await response.arrayBuffer();
      if (response.status === 200) return performance.now() - sinceMs;
    } catch {
      // not accepting yet
    }
    if (performance.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export interface Memory {
  /** Resident set size now, MB. */
  rssMb: number;
  /** The kernel's high-water mark of the resident set since the process started, MB. */
  hwmMb: number;
}

/** VmRSS and VmHWM of a process, from /proc/PID/status. */
export function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
}

let clockTicks: number | undefined;
/** CPU time (user + system, all threads) a process has used so far, in seconds, from /proc/PID/stat. */
export function cpuSecondsOf(pid: number): number {
  clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at ") "; utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

/** Samples VmRSS of a process every `intervalMs` and keeps the peak. */
export class RssSampler {
  private timer: NodeJS.Timeout | undefined;
  peakMb = 0;
  samples = 0;

  constructor(private readonly pid: number, private readonly intervalMs = 50) {}

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    return this;
  }

  stop(): number {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.sample();
    return this.peakMb;
  }

  private sample(): void {
    try {
      const { rssMb } = memoryOf(this.pid);
      this.samples++;
      if (rssMb > this.peakMb) this.peakMb = rssMb;
    } catch {
      // the process is gone; the run will fail on its own
    }
  }
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Builds the hub as install.sh does (tsc -p tsconfig.build.json) into `work`/dist and returns its
 * entry point. A build that fails is no measurement: the caller stops.
 */
export async function buildHub(work: string): Promise<string> {
  const outDir = join(work, 'dist');
  if (!existsSync(join(work, 'node_modules'))) symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'), 'dir');
  const built = await runCommand(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: ROOT, env: process.env });
  const main = join(outDir, 'src', 'main.js');
  if (built.code !== 0 || !existsSync(main)) throw new Error(`tsc -p tsconfig.build.json failed (${built.code}):\n${built.stdout.slice(0, 2000)}${built.stderr.slice(0, 2000)}`);
  return main;
}

/** The named Environment= settings of the systemd unit, so a bench runs the hub as it is deployed. */
export function systemdUnitEnvironment(names: string[] = ['NODE_ENV', 'NODE_OPTIONS', 'MALLOC_ARENA_MAX']): Record<string, string> {
  const unit = join(ROOT, 'systemd', 'home-energy-hub.service');
  const env: Record<string, string> = {};
  if (!existsSync(unit)) return env;
  for (const line of readFileSync(unit, 'utf8').split('\n')) {
    // Environment=NAME=value or Environment="NAME=value with spaces" (one assignment per line here)
    const match = /^Environment=(?:"([A-Z_]+)=(.*)"|([A-Z_]+)=(.*))$/.exec(line.trim());
    const name = match?.[1] ?? match?.[3];
    if (name && names.includes(name)) env[name] = match![2] ?? match![4]!;
  }
  return env;
}
