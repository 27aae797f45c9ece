// The one place that tells a storage fault from a bug. SQLite answers a write on a full card with
// SQLITE_FULL and one on a card that turned read-only (ext4's errors=remount-ro after an I/O error)
// with SQLITE_IOERR_* or SQLITE_READONLY_*; in both the statement's transaction is rolled back and the
// database stays intact, so the hub keeps what it was writing and tries again once the card takes
// writes (storage-health.ts). Anything else is a bug and is left to fail as before.
import { accessSync, constants, mkdirSync, rmdirSync, statfsSync } from 'node:fs';
import { join } from 'node:path';

/** Why the data file system takes no writes. */
export type StorageFaultKind = 'full' | 'read-only' | 'failing';

const STORAGE_CODES = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN)/;

/** Whether an error is the storage refusing a write (not a bug in the hub). */
export function isStorageError(err: unknown): boolean {
  if (err instanceof StorageUnavailable) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && STORAGE_CODES.test(code);
}

/**
 * What kind of fault: full when SQLite says so or the file system has no space left, read-only when
 * the kernel refuses writes to the directory (EROFS), else failing (an I/O error on a card that still
 * counts as writable).
 */
export function classifyStorageFault(err: unknown, dir: string): StorageFaultKind {
  const code = String((err as { code?: unknown } | null)?.code ?? '');
  if (code === 'SQLITE_FULL') return 'full';
  if (isReadOnly(dir)) return 'read-only';
  if (code.startsWith('SQLITE_READONLY')) return 'read-only';
  const space = freeSpace(dir);
  if (space && space.freeBytes === 0) return 'full';
  return 'failing';
}

/** What the installer reads: `storage not writable (full)`. */
export function describeStorageFault(kind: StorageFaultKind): string {
  return `storage not writable (${kind === 'failing' ? 'I/O errors' : kind})`;
}

/** Thrown instead of a write that cannot be stored now; the API answers it with 503 STORAGE_UNAVAILABLE. */
export class StorageUnavailable extends Error {
  constructor(readonly kind: StorageFaultKind, readonly retryAfterSeconds: number) {
    super(kind === 'full'
      ? 'The hub\'s storage is full: nothing was stored. Try again later.'
      : kind === 'read-only'
        ? 'The hub\'s storage is read-only: nothing was stored. Try again later.'
        : 'The hub\'s storage fails to write: nothing was stored. Try again later.');
    this.name = 'StorageUnavailable';
  }
}

export interface FreeSpace {
  freeBytes: number;
  totalBytes: number;
}

/** Free and total bytes of the file system holding `dir` (what an unprivileged process may use). */
export function freeSpace(dir: string): FreeSpace | undefined {
  try {
    const fs = statfsSync(dir);
    return { freeBytes: fs.bavail * fs.bsize, totalBytes: fs.blocks * fs.bsize };
  } catch {
    return undefined;
  }
}

/**
 * Whether the kernel refuses writes there. access(W_OK) sees a read-only mount; an ext4 that went
 * read-only after an error (emergency_ro on newer kernels) still looks writable to it, so a
 * directory is made and removed at once (once per fault, never per write).
 */
function isReadOnly(dir: string): boolean {
  const check = join(dir, `.hub-write-check-${process.pid}`);
  try {
    accessSync(dir, constants.W_OK);
    mkdirSync(check);
    rmdirSync(check);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EROFS';
  }
}
