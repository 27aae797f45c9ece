// The connect_sessions table: single-use pairing sessions. The token is in the pairing URL; only its
// hash is stored, so a copy of the database does not let anyone finish a session.
import { randomBytes } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.ts';
import { hashKey } from './api-keys.ts';

export interface ConnectSession {
  userId: string;
  vendor: string;
  redirectUrl: string;
  theme: string | null;
  language: string | null;
  /** The car a vehicle session binds (POST /connections/vehicles' optional `vin`); null otherwise. */
  vin: string | null;
  /** The domain of available-vendors the session connects (hvac, homePower, tariffs…); null for a
   * session from before the column (a charger's or a car's, as its vendor says). */
  kind: string | null;
  createdAtMs: number;
  expiresAtMs: number;
  usedAtMs: number | null;
}

interface SessionRow {
  user_id: string;
  vendor: string;
  redirect_url: string;
  theme: string | null;
  language: string | null;
  vin: string | null;
  kind: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export class ConnectSessionRepository {
  private readonly insert: Statement;
  private readonly byHash: Statement<[Buffer]>;
  private readonly use: Statement;
  private readonly purge: Statement<[number]>;

  constructor(db: Db) {
    this.insert = db.prepare(`INSERT INTO connect_sessions (token_hash, user_id, vendor, redirect_url, theme, language,
      vin, kind, created_at, expires_at) VALUES (@hash, @userId, @vendor, @redirectUrl, @theme, @language, @vin, @kind, @createdAtMs, @expiresAtMs)`);
    this.byHash = db.prepare('SELECT * FROM connect_sessions WHERE token_hash = ?');
    this.use = db.prepare('UPDATE connect_sessions SET used_at = @now WHERE token_hash = @hash AND used_at IS NULL AND expires_at > @now');
    this.purge = db.prepare('DELETE FROM connect_sessions WHERE expires_at < ?');
  }

  /** Creates a session and returns its token (the only copy). */
  create(session: Omit<ConnectSession, 'usedAtMs' | 'vin' | 'kind'> & { vin?: string | null; kind?: string | null }): string {
    const token = randomBytes(24).toString('base64url');
    this.purge.run(session.createdAtMs - 24 * 3600_000);
    this.insert.run({ ...session, vin: session.vin ?? null, kind: session.kind ?? null, hash: hashKey(token) });
    return token;
  }

  find(token: string): ConnectSession | undefined {
    const row = this.byHash.get(hashKey(token)) as SessionRow | undefined;
    if (!row) return undefined;
    return {
      userId: row.user_id,
      vendor: row.vendor,
      redirectUrl: row.redirect_url,
      theme: row.theme,
      language: row.language,
      vin: row.vin,
      kind: row.kind,
      createdAtMs: row.created_at,
      expiresAtMs: row.expires_at,
      usedAtMs: row.used_at,
    };
  }

  /** Marks a live, unused session as used; false when it was used already or has expired. */
  consume(token: string, nowMs: number): boolean {
    return this.use.run({ hash: hashKey(token), now: nowMs }).changes > 0;
  }
}
