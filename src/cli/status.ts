// `hub status`: is the hub of this data directory running, and healthy? It finds the running hub by
// its data directory's lock (which names its PID and where it listens), asks its /health, and says
// what it answers: up or down, and each problem in words (storage not writable (full), a stalled
// poller…), with the free space of the data file system. Exit 0: up; 1: down, not running or not
// answering (a script can act on it).
import { request as httpsRequest } from 'node:https';
import { resolve } from 'node:path';
import { runningHub } from '../store/data-dir-lock.ts';
import { freeSpace } from '../store/storage-fault.ts';
import { DEFAULT_SPACE_AT_START } from '../store/space-at-start.ts';
import type { CliIo } from './io.ts';

const ASK_TIMEOUT_MS = 5_000;

interface Health {
  status: number;
  body: { status?: string; problems?: string[]; warnings?: string[] };
}

/** A hub listening on every address is asked on loopback. */
function localUrl(url: string): URL {
  const at = new URL(url);
  if (at.hostname === '0.0.0.0') at.hostname = '127.0.0.1';
  if (at.hostname === '[::]') at.hostname = '[::1]';
  return at;
}

async function askHealth(base: URL): Promise<Health> {
  const url = new URL('/health', base);
  if (url.protocol === 'http:') {
    const res = await fetch(url, { signal: AbortSignal.timeout(ASK_TIMEOUT_MS) });
    return { status: res.status, body: (await res.json()) as Health['body'] };
  }
  // The hub's own certificate may be self-signed: this asks this machine's hub, found by its lock,
  // over loopback, and sends nothing secret (/health needs no key).
  return new Promise((done, fail) => {
    const req = httpsRequest(url, { rejectUnauthorized: false, timeout: ASK_TIMEOUT_MS }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { text += chunk; });
      res.on('end', () => {
        try {
          done({ status: res.statusCode ?? 0, body: JSON.parse(text) as Health['body'] });
        } catch (err) {
          fail(err);
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${ASK_TIMEOUT_MS / 1000} s`)));
    req.on('error', fail);
    req.end();
  });
}

function spaceLine(dir: string): string {
  const space = freeSpace(dir);
  if (!space) return `data file system: ${dir} (its free space cannot be read)`;
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `data file system: ${mb(space.freeBytes)} free of ${mb(space.totalBytes)} (${dir})`;
}

export async function runStatus(args: string[], io: CliIo, dataDir: string): Promise<number> {
  if (args.length > 0) {
    io.err('usage: npm run hub -- status   (takes no options)');
    return 2;
  }
  const dir = resolve(dataDir);
  const hub = runningHub(dir);
  if (!hub) {
    io.out(`no hub runs on ${dir}`);
    io.out(spaceLine(dir));
    // A hub started on a full card waits for space before it takes the directory's lock (which
    // needs a write): it is not found here, but its /health and its log say so.
    const space = freeSpace(dir);
    if (space && space.freeBytes < DEFAULT_SPACE_AT_START.neededBytes) {
      io.out('the data file system is full: a hub started on it waits (answering 503, its log says so every minute) '
        + `until ${Math.round(DEFAULT_SPACE_AT_START.neededBytes / 1024)} kB are free, then starts; free space on it`);
    }
    return 1;
  }
  if (!hub.url) {
    io.out(`hub PID ${hub.pid} runs on ${dir}, but its lock does not say where it listens (a hub older than this command)`);
    return 1;
  }
  const at = localUrl(hub.url);
  let health: Health;
  try {
    health = await askHealth(at);
  } catch (err) {
    io.out(`hub PID ${hub.pid} at ${at.origin} does not answer: ${(err as Error).message}`);
    io.out(spaceLine(dir));
    return 1;
  }
  const up = health.status === 200 && health.body.status === 'up';
  io.out(`hub PID ${hub.pid} at ${at.origin}: ${up ? 'up' : 'down'}`);
  for (const problem of health.body.problems ?? []) io.out(`  problem: ${problem}`);
  for (const warning of health.body.warnings ?? []) io.out(`  warning: ${warning}`);
  io.out(spaceLine(dir));
  return up ? 0 : 1;
}
