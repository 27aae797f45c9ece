// The baseline the hub's throughput is compared with: a bare Hono app on @hono/node-server, started
// the same way as the hub (node --import tsx), answering GET /static/{bytes} with a fixed JSON body
// of exactly that many bytes. It does no auth, no validation, no database and no logging, so it is
// the most this machine, Node, Hono and the load generator can do for a response of that size at
// that moment. Dividing the hub's requests/s by it (measured in the same run, back to back) cancels
// most of the noise of a small machine shared with other work.
//
// Usage: BASELINE_SIZES=412,2033 node --import tsx bench/baseline-server.ts
// Prints one JSON line {"msg":"baseline listening","url":...} on stdout when ready.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';

/** A JSON object whose serialisation is exactly `bytes` long (at least 12: `{"pad":""}`+). */
export function bodyOfSize(bytes: number): Record<string, string> {
  const overhead = JSON.stringify({ pad: '' }).length;
  return { pad: 'x'.repeat(Math.max(0, bytes - overhead)) };
}

const sizes = (process.env['BASELINE_SIZES'] ?? '')
  .split(',')
  .filter((s) => s.trim() !== '')
  .map(Number);

const app = new Hono();
for (const size of sizes) {
  const body = bodyOfSize(size);
  app.get(`/static/${size}`, (c) => c.json(body));
}

const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }) as Server;
server.once('listening', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ msg: 'baseline listening', url: `http://127.0.0.1:${port}`, sizes })}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
