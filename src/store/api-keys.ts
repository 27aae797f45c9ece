// The api_keys table. A key is shown once when created; only its SHA-256 is kept. A key is the
// partner's (no scope: every household) or scoped to one userId, optionally read-only (decisions §6).
import * as crypto from 'node:crypto';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.ts';

/** What a key may reach: `userId` null is the partner's key (every household). */
export interface KeyScope {
  userId: string | null;
  readOnly: boolean;
}

/** The key a request presented, once verified: its id (for logs and per-key limits) and its scope. */
export interface VerifiedKey extends KeyScope {
  id: string;
}

export interface ApiKeyInfo extends KeyScope {
  id: string;
  name: string;
  createdAtMs: number;
  revokedAtMs: number | null;
}

/** The partner's key: every household, every operation. */
export const UNSCOPED: KeyScope = Object.freeze({ userId: null, readOnly: false });

/** `create` with a name an active key already has. */
export class KeyNameTaken extends Error {
  constructor(readonly keyName: string) {
    super(`An active key is already named "${keyName}"`);
    this.name = 'KeyNameTaken';
  }
}

/** `revoke` by a name that several active keys share (possible only in a database from before names were unique). */
export class AmbiguousKeyName extends Error {
  constructor(readonly keyName: string, readonly ids: string[]) {
    super(`${ids.length} active keys are named "${keyName}"`);
    this.name = 'AmbiguousKeyName';
  }
}

interface KeyRow {
  id: string;
  name: string;
  hash: Buffer;
  created_at: number;
  revoked_at: number | null;
  user_id: string | null;
  read_only: number;
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
  private readonly activeNamed: Statement<[string]>;
  private readonly revokeId: Statement;
  private readonly byHash: Statement<[Buffer]>;
  /** Check and insert, or find and revoke, as one write: the CLI and the daemon may both be at it. */
  private readonly inTransaction: <T>(work: () => T) => T;
  /** The active keys (digests in base64), reloaded after a change here or by another process (Store.sync()). */
  private cache: { digest: string; key: VerifiedKey }[] = [];
  private dirty = true;

  constructor(db: Db) {
    this.insert = db.prepare('INSERT INTO api_keys (id, name, hash, created_at, user_id, read_only) VALUES (?, ?, ?, ?, ?, ?)');
    this.all = db.prepare('SELECT id, name, created_at, revoked_at, user_id, read_only FROM api_keys ORDER BY created_at, id');
    this.active = db.prepare('SELECT id, hash, user_id, read_only FROM api_keys WHERE revoked_at IS NULL');
    this.activeNamed = db.prepare('SELECT id FROM api_keys WHERE name = ? AND revoked_at IS NULL ORDER BY created_at, id');
    this.revokeId = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.byHash = db.prepare('SELECT id, revoked_at FROM api_keys WHERE hash = ?');
    // IMMEDIATE: the write lock is taken before the name is looked at, so two creates cannot both find it free.
    this.inTransaction = (work) => db.transaction(work).immediate();
  }

  /**
   * Creates a random key; the returned secret is never stored and cannot be shown again. Throws
   * KeyNameTaken when an active key has the name (a revoked key's name may be used again).
   */
  create(name: string, nowMs: number, scope: KeyScope = UNSCOPED): { id: string; key: string } {
    const key = KEY_PREFIX + randomBytes(32).toString('base64url');
    const id = this.inTransaction(() => {
      if (this.activeNamed.get(name)) throw new KeyNameTaken(name);
      return this.add(name, key, nowMs, scope);
    });
    return { id, key };
  }

  /**
   * Makes sure the given key (HUB_API_KEY) is active, as the partner's key; returns its id. A
   * different key under the same name is one the configuration no longer gives: it is revoked, so
   * the name stays unique and a changed HUB_API_KEY ends the old one.
   */
  ensure(name: string, key: string, nowMs: number): string {
    return this.inTransaction(() => {
      const existing = this.byHash.get(hashKey(key)) as { id: string; revoked_at: number | null } | undefined;
      if (existing && existing.revoked_at === null) return existing.id;
      for (const { id } of this.activeNamed.all(name) as { id: string }[]) this.revokeId.run(nowMs, id);
      return this.add(name, key, nowMs, UNSCOPED);
    });
  }

  private add(name: string, key: string, nowMs: number, scope: KeyScope): string {
    const id = randomUUID();
    this.insert.run(id, name, hashKey(key), nowMs, scope.userId, scope.readOnly ? 1 : 0);
    this.dirty = true;
    return id;
  }

  list(): ApiKeyInfo[] {
    return (this.all.all() as KeyRow[]).map((row) => ({
      id: row.id,
      name: row.name,
      createdAtMs: row.created_at,
      revokedAtMs: row.revoked_at,
      userId: row.user_id,
      readOnly: row.read_only === 1,
    }));
  }

  /**
   * Revokes one key, by id or by name; returns how many were revoked (0 or 1). A name that several
   * active keys share (a database from before names were unique) revokes none: AmbiguousKeyName
   * names their ids, so that the right one is revoked by its id.
   */
  revoke(idOrName: string, nowMs: number): number {
    return this.inTransaction(() => {
      let changes = this.revokeId.run(nowMs, idOrName).changes;
      if (changes === 0) {
        const named = (this.activeNamed.all(idOrName) as { id: string }[]).map((row) => row.id);
        if (named.length > 1) throw new AmbiguousKeyName(idOrName, named);
        if (named.length === 1) changes = this.revokeId.run(nowMs, named[0]).changes;
      }
      this.dirty = true;
      return changes;
    });
  }

  /** True when the key is active. */
  verify(key: string): boolean {
    return this.identify(key) !== undefined;
  }

  /**
   * The active key presented, with its scope, or undefined. The presented key's hash is compared
   * with every active hash in constant time, and the loop never stops early, so timing says nothing
   * about which key matched.
   */
  identify(key: string): VerifiedKey | undefined {
    if (this.dirty) this.load();
    const presented = digestText(key);
    let match: VerifiedKey | undefined;
    for (const stored of this.cache) {
      if (sameDigest(presented, stored.digest)) match = stored.key;
    }
    return match;
  }

  /** Another process may have added or revoked keys: read them again before the next check. */
  forgetAll(): void {
    this.dirty = true;
  }

  private load(): void {
    this.cache = (this.active.all() as Pick<KeyRow, 'id' | 'hash' | 'user_id' | 'read_only'>[]).map((row) => ({
      digest: row.hash.toString('base64'),
      key: Object.freeze({ id: row.id, userId: row.user_id, readOnly: row.read_only === 1 }),
    }));
    this.dirty = false;
  }
}
