// What the hub process has written to storage, for /metrics and the bench: the kernel's count of
// bytes this process caused to be sent to the block device (`write_bytes` of /proc/<pid>/io, which
// counts page-cache writeback and SQLite's fsyncs alike, not the bytes handed to write()). An SD
// card wears by that figure. Linux only: elsewhere there is nothing to read.
import { readFileSync } from 'node:fs';

/** `write_bytes` of /proc/<pid>/io (this process by default); undefined when it cannot be read. */
export function writtenBytes(pid: number | 'self' = 'self'): number | undefined {
  try {
    const match = /^write_bytes:\s*(\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Bytes written since it was made, and their rate per hour. */
export class DiskWriteMeter {
  private readonly startBytes: number | undefined;
  private readonly startMs: number;

  /** `now`: a monotonic clock in ms (the rate is per elapsed hour, whatever the wall clock does). */
  constructor(private readonly now: () => number = () => performance.now(), private readonly read: () => number | undefined = () => writtenBytes()) {
    this.startBytes = read();
    this.startMs = now();
  }

  get available(): boolean {
    return this.startBytes !== undefined;
  }

  /** Bytes written since start. */
  written(): number {
    const bytes = this.read();
    return bytes === undefined || this.startBytes === undefined ? 0 : bytes - this.startBytes;
  }

  /** The average since start, per hour (0 in the first minute, which says nothing yet). */
  perHour(): number {
    const elapsedMs = this.now() - this.startMs;
    return elapsedMs < 60_000 ? 0 : Math.round((this.written() / elapsedMs) * 3_600_000);
  }
}
