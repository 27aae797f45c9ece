// The floor under figure (d): how long one durable SQLite insert takes on this disk, with nothing
// else around it. A command submission cannot answer before its row is on disk (WAL,
// synchronous = FULL: one fsync per commit), so its p99 can never beat the p99 of a bare insert
// made at the same rate on the same filesystem. Reported next to (d) so that a slow or busy disk
// (common on shared machines) is not mistaken for slow hub code, and the other way round.
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { percentile } from './load.ts';

export interface InsertLatency {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  inserts: number;
}

/** Inserts a command-like row `rate` times a second for `seconds` into a fresh database in `dir`. */
export async function durableInsertLatency(dir: string, rate: number, seconds: number): Promise<InsertLatency> {
  const db = new Database(join(dir, 'disk-floor.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec(`CREATE TABLE commands (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, device_id TEXT NOT NULL,
      state TEXT NOT NULL, created_at INTEGER NOT NULL);
      CREATE INDEX commands_of_device ON commands (device_id, state, seq);
      CREATE INDEX commands_pending ON commands (seq) WHERE state = 'PENDING';`);
    const insert = db.prepare("INSERT INTO commands (id, device_id, state, created_at) VALUES (?, ?, 'PENDING', ?)");
    const devices = Array.from({ length: 100 }, () => randomUUID());
    const times: number[] = [];
    const count = Math.round(rate * seconds);
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const due = started + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const t = performance.now();
      insert.run(randomUUID(), devices[i % devices.length], Date.now());
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    return { p50Ms: percentile(times, 0.5), p99Ms: percentile(times, 0.99), maxMs: times[times.length - 1] ?? NaN, inserts: times.length };
  } finally {
    db.close();
  }
}
