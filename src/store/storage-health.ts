// Whether the data file system takes writes, as the write paths found it. A write that fails with a
// storage fault (storage-fault.ts) reports it here; from then on the store counts as not writable,
// and a probe (a real write, with back-off) finds when it is again: then whoever waits (the command
// worker's finished commands, the state writers' batches, the telemetry) writes what it kept. The API,
// /health, /metrics, the systemd status and the watchdog read it. One log line when it starts, one
// when it recovers: never one per write.
//
// It also watches the free space: below a threshold it warns once (log, health, metrics), and the
// telemetry interval widens (daemon.ts) so that the card fills more slowly.
import type { Logger } from '../log.ts';
import type { Db } from './db.ts';
import { classifyStorageFault, describeStorageFault, freeSpace, isStorageError, StorageUnavailable, type FreeSpace, type StorageFaultKind } from './storage-fault.ts';

export interface StorageSettings {
  /** Free space below this (bytes) is low… */
  lowSpaceBytes: number;
  /** …or below this share of the file system (percent), whichever is smaller. */
  lowSpacePercent: number;
  /** The probe's first and longest wait after a fault. */
  probeMinMs: number;
  probeMaxMs: number;
  /** A probe succeeds only with at least this much free space: a write into the WAL's slack on a
   * full card would succeed and the next one fail again. */
  reserveBytes: number;
}

export const DEFAULT_STORAGE_SETTINGS: StorageSettings = {
  lowSpaceBytes: 50 * 1024 * 1024,
  lowSpacePercent: 5,
  probeMinMs: 100,
  probeMaxMs: 1_000,
  reserveBytes: 256 * 1024,
};

/** How often the free space is looked at while nothing is wrong. */
const SPACE_CHECK_MS = 60_000;

export class StorageHealth {
  private fault: StorageFaultKind | undefined;
  private faultSince = 0;
  private low = false;
  private log: Logger | undefined;
  private settings = DEFAULT_STORAGE_SETTINGS;
  private probeTimer: NodeJS.Timeout | undefined;
  private spaceTimer: NodeJS.Timeout | undefined;
  private probeMs = 0;
  private readonly waiting = new Set<() => void>();
  /** Writes refused by the storage since start (each failed transaction counts once). */
  writeErrors = 0;
  /** Times the storage became writable again after a fault. */
  recoveries = 0;

  constructor(private readonly db: Db, readonly dir: string) {}

  /** From here on faults are probed and logged (the daemon; the CLI only classifies). */
  start(log: Logger, settings: Partial<StorageSettings> = {}): void {
    this.log = log.child({ part: 'storage' });
    this.settings = { ...DEFAULT_STORAGE_SETTINGS, ...settings };
    this.checkSpace();
    this.spaceTimer = setInterval(() => this.checkSpace(), SPACE_CHECK_MS);
    this.spaceTimer.unref();
  }

  stop(): void {
    clearInterval(this.spaceTimer);
    clearTimeout(this.probeTimer);
    this.spaceTimer = undefined;
    this.probeTimer = undefined;
  }

  get writable(): boolean {
    return this.fault === undefined;
  }

  /** Why writes fail now (full, read-only, failing), or undefined while the store takes them. */
  get faultKind(): StorageFaultKind | undefined {
    return this.fault;
  }

  /** Whether free space is below the threshold (the card is filling up). */
  get lowOnSpace(): boolean {
    return this.low;
  }

  space(): FreeSpace | undefined {
    return freeSpace(this.dir);
  }

  /**
   * Takes an error a write threw: true when it was a storage fault (now reported; the caller keeps
   * what it wrote and waits for whenWritable), false for anything else (the caller rethrows).
   */
  report(err: unknown): boolean {
    if (!isStorageError(err)) return false;
    if (err instanceof StorageUnavailable) return true; // refused before writing: already counted
    this.writeErrors++;
    if (this.fault !== undefined) return true;
    this.fault = classifyStorageFault(err, this.dir);
    this.faultSince = performance.now(); // a duration's start: monotonic, the wall clock steps
    const space = this.space();
    this.log?.error({ fault: this.fault, code: (err as { code?: string }).code, freeBytes: space?.freeBytes, dir: this.dir },
      `${describeStorageFault(this.fault)}: writes are kept in memory and refused with 503 until it takes writes again`);
    this.probeMs = this.settings.probeMinMs;
    this.scheduleProbe();
    return true;
  }

  /** Throws StorageUnavailable while the store takes no writes: a write refused before it is acknowledged. */
  assertWritable(): void {
    if (this.fault !== undefined) throw this.unavailable();
  }

  /** The error a refused write answers with. */
  unavailable(): StorageUnavailable {
    return new StorageUnavailable(this.fault ?? 'failing', Math.max(1, Math.ceil(this.settings.probeMaxMs / 1000)));
  }

  /** Runs `write`; a storage fault is reported and rethrown as StorageUnavailable, anything else as is. */
  write<T>(write: () => T): T {
    this.assertWritable();
    try {
      return write();
    } catch (err) {
      if (this.report(err)) throw this.unavailable();
      throw err;
    }
  }

  /** Calls `retry` once the store takes writes again (at once when it does now); returns a cancel. */
  whenWritable(retry: () => void): () => void {
    if (this.fault === undefined) {
      queueMicrotask(retry);
      return () => {};
    }
    this.waiting.add(retry);
    return () => this.waiting.delete(retry);
  }

  /** A line for /health, the systemd status and `hub status`: empty when all is well. */
  problems(): string[] {
    const space = this.space();
    const free = space ? `, ${formatBytes(space.freeBytes)} free of ${formatBytes(space.totalBytes)}` : '';
    if (this.fault !== undefined) return [`${describeStorageFault(this.fault)}${free}`];
    if (this.low) return [`storage low on space${free}`];
    return [];
  }

  /** Looks at the free space: warns once when it runs low, says once when it is back. */
  checkSpace(): void {
    const space = this.space();
    if (!space || space.totalBytes === 0) return;
    const threshold = Math.min(this.settings.lowSpaceBytes, space.totalBytes * this.settings.lowSpacePercent / 100);
    const low = space.freeBytes < threshold;
    if (low === this.low) return;
    this.low = low;
    if (low) this.log?.warn({ freeBytes: space.freeBytes, thresholdBytes: Math.round(threshold), dir: this.dir }, 'storage low on space: telemetry is written less often; free space on the data file system');
    else this.log?.info({ freeBytes: space.freeBytes, dir: this.dir }, 'storage has enough free space again');
  }

  private scheduleProbe(): void {
    clearTimeout(this.probeTimer);
    if (!this.log) return; // not started: nobody waits
    this.probeTimer = setTimeout(() => this.probe(), this.probeMs);
    this.probeTimer.unref();
  }

  /** A real write (the header's user_version, rewritten as it is) on a file system with room. */
  private probe(): void {
    this.probeTimer = undefined;
    const space = this.space();
    let ok = space === undefined || space.freeBytes >= this.settings.reserveBytes;
    if (ok) {
      try {
        const version = this.db.pragma('user_version', { simple: true }) as number;
        this.db.pragma(`user_version = ${version}`);
      } catch (err) {
        if (!isStorageError(err)) throw err;
        ok = false;
      }
    }
    if (!ok) {
      this.probeMs = Math.min(this.probeMs * 2, this.settings.probeMaxMs);
      this.scheduleProbe();
      return;
    }
    const fault = this.fault;
    this.fault = undefined;
    this.recoveries++;
    this.log?.info({ fault, afterMs: Math.round(performance.now() - this.faultSince), freeBytes: space?.freeBytes },
      'storage writable again: writing what was kept');
    this.checkSpace();
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const retry of waiting) {
      try {
        retry();
      } catch (err) {
        // Failing again already reported itself; the waiter registers anew.
        if (!this.report(err)) throw err;
      }
    }
  }
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${Math.round(bytes / 1024)} kB`;
}
