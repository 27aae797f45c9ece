// Memory under a flood of bad requests, and whether it comes back: 10,000 requests the API refuses
// (an unknown key, malformed JSON, an unknown route, and bodies past the 64 KB limit, 200 KB to
// 20 MB, announced by Content-Length or sent chunked), ten connections at a time over raw sockets
// that stop sending once they have the answer, as a client does that reads it. RSS of the hub
// before, at its peak, and 60 s after the last answer (target: within 15% of before). "Before" is
// taken after a warm-up of the same mix (WARMUP requests, then 10 s): a fresh hub first loads and
// compiles its error paths, a one-time cost that is not memory the flood kept; the RSS of the cold
// hub is reported beside it.
//
// Run alone with `BENCH_ONLY=bad-requests npm run bench` (it builds and starts the hub as the
// systemd unit does), or as section 10 of the whole bench.
import { connect } from 'node:net';
import { memoryOf, RssSampler, type Server } from './processes.ts';

const REQUESTS = Number(process.env['BENCH_BAD_REQUESTS'] ?? 10_000);
const CONNECTIONS = 10;
const SETTLE_MS = 60_000;
const WARMUP = 200;
const WARMUP_SETTLE_MS = 10_000;
/** Body sizes of the requests past the limit, in turn. */
const LARGE = [200 * 1024, 1024 * 1024, 5 * 1024 * 1024, 20 * 1024 * 1024];
const CHUNK = Buffer.alloc(64 * 1024, 0x20);

export interface BadRequestFigures {
  requests: number;
  /** RSS of the fresh hub, before the warm-up. */
  coldMb: number;
  beforeMb: number;
  peakMb: number;
  afterMb: number;
  answers: Record<string, number>;
  seconds: number;
}

/** One raw request: headers, then the body in 64 KB chunks until the answer's status line arrives. */
function exchange(port: number, head: string, bodyBytes: number, chunked: boolean): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answered = false;
    let sent = 0;
    const finish = (status: string) => {
      if (answered) return;
      answered = true;
      socket.destroy();
      resolve(status);
    };
    socket.on('data', (data: Buffer) => finish(/^HTTP\/1\.1 (\d{3})/.exec(data.toString('latin1'))?.[1] ?? 'other'));
    socket.on('error', () => finish('reset'));
    socket.on('close', () => finish('closed'));
    const pump = () => {
      while (!answered && sent < bodyBytes) {
        const part = CHUNK.subarray(0, Math.min(CHUNK.length, bodyBytes - sent));
        sent += part.length;
        const framed = chunked ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]) : part;
        if (!socket.write(framed)) {
          socket.once('drain', pump);
          return;
        }
      }
      if (!answered && chunked && sent >= bodyBytes) socket.write('0\r\n\r\n');
    };
    socket.on('connect', () => {
      socket.write(head);
      pump();
    });
  });
}

function request(port: number, apiKey: string, i: number): Promise<string> {
  const host = `Host: 127.0.0.1:${port}\r\n`;
  switch (i % 10) {
    case 0: // a body past the limit, announced
    case 5: { // … or chunked
      const size = LARGE[Math.floor(i / 10) % LARGE.length]!;
      const chunked = i % 10 === 5;
      const framing = chunked ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${size}\r\n`;
      return exchange(port, `POST /v1.0.0/connections/chargers HTTP/1.1\r\n${host}x-api-key: ${apiKey}\r\nContent-Type: application/json\r\n${framing}\r\n`, size, chunked);
    }
    case 1:
    case 2: // a key that is not one
      return exchange(port, `GET /v1.0.0/batteries HTTP/1.1\r\n${host}x-api-key: not-a-key-${i}\r\nConnection: close\r\n\r\n`, 0, false);
    case 3:
    case 4: { // malformed JSON
      const body = '{"redirectUrl": "https://example.com", "vendor": ';
      return exchange(port, `POST /v1.0.0/connections/chargers HTTP/1.1\r\n${host}x-api-key: ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`, 0, false);
    }
    default: // an unknown route
      return exchange(port, `GET /v1.0.0/nothing-here/${i} HTTP/1.1\r\n${host}x-api-key: ${apiKey}\r\nConnection: close\r\n\r\n`, 0, false);
  }
}

export async function benchBadRequests(hub: Server, apiKey: string, log: (line: string) => void): Promise<BadRequestFigures> {
  const port = Number(new URL(hub.url).port);
  const answers: Record<string, number> = {};
  const flood = async (count: number) => {
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const status = await request(port, apiKey, next++);
        answers[status] = (answers[status] ?? 0) + 1;
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  };
  const coldMb = memoryOf(hub.pid).rssMb;
  await flood(WARMUP);
  await new Promise((resolve) => setTimeout(resolve, WARMUP_SETTLE_MS));
  for (const key of Object.keys(answers)) delete answers[key];
  const beforeMb = memoryOf(hub.pid).rssMb;
  const sampler = new RssSampler(hub.pid).start();
  const started = performance.now();
  await flood(REQUESTS);
  const seconds = (performance.now() - started) / 1000;
  const peakMb = sampler.stop();
  log(`${REQUESTS} bad requests in ${seconds.toFixed(1)} s; waiting ${SETTLE_MS / 1000} s for memory to settle`);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  return { requests: REQUESTS, coldMb, beforeMb, peakMb, afterMb: memoryOf(hub.pid).rssMb, answers, seconds };
}
