// Tells whether another process (the hub CLI: an import, a revoked key) has committed to the database
// since the last look. SQLite's PRAGMA data_version says so exactly, but it is a read transaction:
// in WAL mode two fcntl() locks and a look at the WAL index, about 15 µs inside a busy server, which
// was a sixth of a detail read. So a cheaper sign is read first: the WAL-index header at the start of
// the -shm file, which every commit by any connection rewrites (its change counter, last frame and
// checksums; https://www.sqlite.org/walformat.html). While those bytes are the same as at the last
// look, nobody has committed; when they differ (a commit here or elsewhere, or a read that caught
// SQLite rewriting them), data_version decides. The -shm layout is fixed for every SQLite since 3.7.0,
// because different versions must share one database; without a -shm file (an in-memory database,
// or another journal mode) every look asks data_version.
//
// The -shm file is only read (pread), never locked. Its descriptor must be closed after SQLite's
// connection: POSIX locks belong to the process, and closing any descriptor of a file drops them all.
import { closeSync, openSync, readSync } from 'node:fs';
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.ts';

/** The two copies of the 48-byte WAL-index header that start the -shm file. */
const HEADER_BYTES = 96;

export class ExternalWrites {
  private readonly dataVersion: Statement<[]>;
  private seenVersion: number;
  private shm: number | undefined;
  private readonly header = Buffer.alloc(HEADER_BYTES);
  private readonly seenHeader = Buffer.alloc(HEADER_BYTES);

  constructor(db: Db) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    if (!db.memory && db.pragma('journal_mode', { simple: true }) === 'wal') {
      try {
        this.shm = openSync(`${db.name}-shm`, 'r');
      } catch {
        this.shm = undefined; // not there (yet): ask data_version every time
      }
    }
    this.readHeader(this.seenHeader);
    this.seenVersion = this.dataVersion.get() as number;
  }

  /** True when another connection committed since the last call (or since construction). */
  happened(): boolean {
    if (this.shm !== undefined) {
      if (this.readHeader(this.header) && this.header.equals(this.seenHeader)) return false;
      this.header.copy(this.seenHeader); // read before data_version: a commit in between shows next time
    }
    const version = this.dataVersion.get() as number;
    if (version === this.seenVersion) return false;
    this.seenVersion = version;
    return true;
  }

  close(): void {
    if (this.shm !== undefined) closeSync(this.shm);
    this.shm = undefined;
  }

  /** Reads the header into `into`; false when it could not be read whole. */
  private readHeader(into: Buffer): boolean {
    if (this.shm === undefined) return false;
    try {
      return readSync(this.shm, into, 0, HEADER_BYTES, 0) === HEADER_BYTES;
    } catch {
      return false;
    }
  }
}
