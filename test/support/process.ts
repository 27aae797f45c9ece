// Runs the real daemon as a child process and waits for its "hub listening" log line.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

export interface RunningHub {
  child: ChildProcess;
  url: string;
  /** Ends the process (SIGKILL unless told otherwise) and waits for it to exit. */
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `entry`: the script to run instead of the hub's own (test/support/hub-at.ts sets its clock); a
 * compiled one (`.js`, the built hub in dist/) runs without tsx, as installed. */
export async function startHubProcess(env: Record<string, string>, args: string[] = [], timeoutMs = 20_000, entry = 'src/main.ts'): Promise<RunningHub> {
  const child = spawn(process.execPath, [...(entry.endsWith('.js') ? [] : ['--import', 'tsx']), entry, ...args], {
    env: { ...process.env, HUB_HTTP_PORT: '0', HUB_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    const [code] = (await exited) as [number | null];
    return code;
  };
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hub did not start within ${timeoutMs} ms: ${stderr}`)), timeoutMs);
    lines.on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'hub listening' && entry.url) {
          clearTimeout(timer);
          resolve(entry.url);
        }
      } catch {
        // not a log line (the demo banner)
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`hub exited with ${code} before listening: ${stderr}`));
    });
  });
  return { child, url, kill };
}

/**
 * Polls what a hub process shows (over its API, or a peer's record) until `probe` gives a value, one
 * event-loop turn apart: a process in another address space sends no events to wait on. No sleeps.
 */
export async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
