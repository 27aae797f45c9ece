// The api_keys table. A key is shown once when created; only its SHA-256 is kept.
import * as crypto from 'node:crypto';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.ts';

export interface ApiKeyInfo {
  id: string;
  name: string;
  createdAtMs: number;
  revokedAtMs: number | null;
}

interface KeyRow {
  id: string;
  name: string;
  hash: Buffer;
  created_at: number;
  revoked_at: number | null;
}

/** Keys supplied from outside (HUB_API_KEY) must be at least this long. */
export const MIN_KEY_LENGTH = 24;
const KEY_PREFIX = 'heh_';

// Every API request hashes its key: crypto.hash (Node 20.12 and later) does it in one native call,
// createHash in three.
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'buffer' | 'base64') => Buffer | string }).hash;

/** The SHA-256 of a key, as stored. */
export function hashKey(key: string): Buffer {
  return oneShotHash ? oneShotHash('sha256', key, 'buffer') as Buffer : createHash('sha256').update(key, 'utf8').digest();
}

/**
 * The same digest as base64 text, for the check on every request: a string costs far less than a
 * Buffer (whose backing store is allocated outside the heap and freed by the collector); this was
 * a tenth of a detail read's CPU.
 */
function digestText(key: string): string {
  return oneShotHash ? oneShotHash('sha256', key, 'base64') as string : createHash('sha256').update(key, 'utf8').digest('base64');
}

/**
 * Compares two digests in constant time: every character is visited and no branch depends on
 * them, as timingSafeEqual does for buffers. Both are 44-character base64 SHA-256 digests.
 */
function sameDigest(a: string, b: string): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

export class ApiKeyRepository {
  private readonly insert: Statement;
  private readonly all: Statement<[]>;
  private readonly active: Statement<[]>;
  private readonly revokeStmt: Statement;
  private readonly byHash: Statement<[Buffer]>;
  /** Digests (base64) of the active keys, reloaded after a change here or by another process (Store.sync()). */
  private cache: string[] = [];
  private dirty = true;

  constructor(db: Db) {
    this.insert = db.prepare('INSERT INTO api_keys (id, name, hash, created_at) VALUES (?, ?, ?, ?)');
    this.all = db.prepare('SELECT id, name, created_at, revoked_at FROM api_keys ORDER BY created_at, id');
    this.active = db.prepare('SELECT hash FROM api_keys WHERE revoked_at IS NULL');
    this.revokeStmt = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE (id = ? OR name = ?) AND revoked_at IS NULL');
    this.byHash = db.prepare('SELECT id, revoked_at FROM api_keys WHERE hash = ?');
  }

  /** Creates a random key; the returned secret is never stored and cannot be shown again. */
  create(name: string, nowMs: number): { id: string; key: string } {
    const key = KEY_PREFIX + randomBytes(32).toString('base64url');
    const id = this.add(name, key, nowMs);
    return { id, key };
  }

  /** Makes sure the given key (HUB_API_KEY) is active; returns its id. */
  ensure(name: string, key: string, nowMs: number): string {
    const existing = this.byHash.get(hashKey(key)) as { id: string; revoked_at: number | null } | undefined;
    if (existing && existing.revoked_at === null) return existing.id;
    return this.add(name, key, nowMs);
  }

  private add(name: string, key: string, nowMs: number): string {
    const id = randomUUID();
    this.insert.run(id, name, hashKey(key), nowMs);
    this.dirty = true;
    return id;
  }

  list(): ApiKeyInfo[] {
    return (this.all.all() as KeyRow[]).map((row) => ({
      id: row.id,
      name: row.name,
      createdAtMs: row.created_at,
      revokedAtMs: row.revoked_at,
    }));
  }

  /** Revokes keys by id or name; returns how many were revoked. */
  revoke(idOrName: string, nowMs: number): number {
    const changes = this.revokeStmt.run(nowMs, idOrName, idOrName).changes;
    this.dirty = true;
    return changes;
  }

  /**
   * True when the key is active. The presented key's hash is compared with every active hash in
   * constant time, and the loop never stops early, so timing says nothing about which key matched.
   */
  verify(key: string): boolean {
    if (this.dirty) this.load();
    const presented = digestText(key);
    let match = false;
    for (const stored of this.cache) {
      if (sameDigest(presented, stored)) match = true;
    }
    return match;
  }

  /** Another process may have added or revoked keys: read them again before the next check. */
  forgetAll(): void {
    this.dirty = true;
  }

  private load(): void {
    this.cache = (this.active.all() as Pick<KeyRow, 'hash'>[]).map((row) => row.hash.toString('base64'));
    this.dirty = false;
  }
}
