// The load generators, both running in the bench process (never inside a server under test):
//
// - maxThroughput(): closed-loop saturation with autocannon. N keep-alive connections each send
//   the next request as soon as the previous answer arrives, for a fixed time, cycling through a
//   list of paths. Gives the most requests/s the server manages and the latency at that load.
//   Only meaningful as a ratio against the baseline server measured the same way in the same run.
//
// - fixedRate(): open-loop constant arrival rate, our own (autocannon's "rate" mode sends each
//   second's quota in a burst and then waits, and its coordinated-omission correction assumes a
//   1 ms interval, which distorts p99 at 100-200 req/s). Requests are scheduled every 1000/rate ms
//   whether or not earlier ones have answered, and each latency is taken from the moment the
//   request was *due*, so a stalled server is charged for the queue it causes (as wrk2 does).
//   The latency from the actual send is kept too, to show how much was client-side scheduling.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';

export interface ThroughputResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  requests: number;
  non2xx: number;
  errors: number;
  seconds: number;
}

export interface ThroughputOptions {
  base: string;
  paths: string[];
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
}

/** Saturates the server with `connections` keep-alive connections for `seconds`. */
export async function maxThroughput(options: ThroughputOptions): Promise<ThroughputResult> {
  const result = await autocannon({
    url: options.base,
    connections: options.connections,
    duration: options.seconds,
    pipelining: 1,
    timeout: 10,
    headers: options.headers ?? {},
    requests: options.paths.map((path) => ({ method: 'GET', path })),
  });
  return {
    rps: result['2xx'] / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    requests: result['2xx'] + result.non2xx,
    non2xx: result.non2xx,
    errors: result.errors,
    seconds: result.duration,
  };
}

export interface FixedRateOptions {
  base: string;
  paths: string[];
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  rate: number;
  seconds: number;
  /** Sent first at the same rate, not counted: opens the connections, warms the code paths. */
  warmupSeconds?: number;
  /** At most this many requests in flight (connections); more wait in the agent's queue. */
  maxSockets?: number;
}

export interface FixedRateResult {
  rate: number;
  /** Requests answered per second over the run (should equal `rate` when the server keeps up). */
  achievedRps: number;
  sent: number;
  completed: number;
  non2xx: number;
  errors: number;
  /** From the moment each request was due (includes any queueing the server caused). */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** From the moment each request was actually written (excludes client scheduling lag). */
  p99FromSendMs: number;
  statuses: Record<string, number>;
}

/** Sends requests at a constant `rate` for `seconds`, cycling through `paths`. */
export async function fixedRate(options: FixedRateOptions): Promise<FixedRateResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 64 });
  try {
    if (options.warmupSeconds) await schedule(agent, { ...options, seconds: options.warmupSeconds });
    return await schedule(agent, options);
  } finally {
    agent.destroy();
  }
}

async function schedule(agent: http.Agent, options: FixedRateOptions): Promise<FixedRateResult> {
  const url = new URL(options.base);
  const method = options.method ?? 'GET';
  const headers = { ...options.headers, ...(method === 'POST' ? { 'content-length': '0' } : {}) };
  const interval = 1000 / options.rate;
  const total = Math.round(options.rate * options.seconds);
  const fromDue: number[] = [];
  const fromSend: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let outstanding = 0;
  let allSent = false;
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const settle = () => {
    outstanding--;
    if (allSent && outstanding === 0) finish();
  };

  const send = (index: number, due: number) => {
    const sentAt = performance.now();
    outstanding++;
    const request = http.request(
      { host: url.hostname, port: url.port, path: options.paths[index % options.paths.length], method, headers, agent },
      (response) => {
        response.resume();
        response.on('end', () => {
          const done = performance.now();
          fromDue.push(done - due);
          fromSend.push(done - sentAt);
          const status = String(response.statusCode);
          statuses[status] = (statuses[status] ?? 0) + 1;
          settle();
        });
      },
    );
    request.setTimeout(10_000, () => request.destroy(new Error('timeout')));
    request.on('error', () => {
      errors++;
      settle();
    });
    request.end();
  };

  const started = performance.now();
  await new Promise<void>((resolve) => {
    let next = 0;
    const tick = () => {
      const now = performance.now();
      while (next < total && started + next * interval <= now) {
        send(next, started + next * interval);
        next++;
      }
      if (next < total) setTimeout(tick, Math.max(0, started + next * interval - performance.now()));
      else resolve();
    };
    tick();
  });
  allSent = true;
  if (outstanding > 0) await finished;
  const elapsed = (performance.now() - started) / 1000;

  const ok = Object.entries(statuses).filter(([s]) => s.startsWith('2')).reduce((n, [, c]) => n + c, 0);
  const sortedDue = fromDue.sort((a, b) => a - b);
  return {
    rate: options.rate,
    achievedRps: fromDue.length / elapsed,
    sent: total,
    completed: fromDue.length,
    non2xx: fromDue.length - ok,
    errors,
    p50Ms: percentile(sortedDue, 0.5),
    p99Ms: percentile(sortedDue, 0.99),
    maxMs: sortedDue[sortedDue.length - 1] ?? NaN,
    p99FromSendMs: percentile(fromSend.sort((a, b) => a - b), 0.99),
    statuses,
  };
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** The middle value (the mean of the two middle values for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
