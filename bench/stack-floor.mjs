// The memory floor of the project's fixed stack: Node with hono on @hono/node-server, zod, pino and
// better-sqlite3 loaded, the bench's database open, and one route that validates a device id with
// zod and answers that device's row. No hub code. Started exactly as the hub is (node with the
// systemd unit's NODE_OPTIONS and MALLOC_ARENA_MAX, not through tsx) and loaded the same way, its
// RSS is what any hub built on these fixed choices pays before doing anything of its own, so the
// hub's memory is reported against it (bench/run.ts). Plain JavaScript, so no loader is counted.
//
// Usage: node bench/stack-floor.mjs DB_FILE   (prints {"msg":"floor listening","url":…} when ready)
import { createServer } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { z } from 'zod';
import pino from 'pino';
import Database from 'better-sqlite3';

const db = new Database(process.argv[2], { readonly: true, fileMustExist: true });
const row = db.prepare('SELECT * FROM devices WHERE id = ?');
const Params = z.object({ id: z.uuid() });
const log = pino();
const app = new Hono();
app.get('/v1.0.0/batteries/:id', (c) => {
  const { id } = Params.parse({ id: c.req.param('id') });
  const found = row.get(id);
  return found ? c.json(found) : c.json({ code: 'NOT_FOUND' }, 404);
});
const server = createServer(getRequestListener(app.fetch));
server.listen(0, '127.0.0.1', () => {
  log.info({ url: `http://127.0.0.1:${server.address().port}` }, 'floor listening');
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
