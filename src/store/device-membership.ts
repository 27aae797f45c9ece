// Which devices the hub has told the world about, kept in a TEMP table (in memory, never on the
// card: temp_store = MEMORY, db.ts) so that the event watcher can learn what another process added
// or removed by one query each way. Held in JavaScript, 10,000 identities cost about 1.7 MB of heap
// (ids, user ids, a Map); here they are about 0.6 MB of SQLite pages.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.ts';
import type { DeviceKind } from '../domain/vocabulary.ts';

export interface DeviceIdentity {
  id: string;
  kind: DeviceKind;
  userId: string;
}

export class DeviceMembership {
  private readonly reset: Statement<[]>;
  private readonly addMissing: Statement<[]>;
  private readonly count: Statement<[]>;
  private readonly appeared: Statement<[]>;
  private readonly gone: Statement<[]>;
  private readonly add: Statement<[string, string, string]>;
  private readonly remove: Statement<[string]>;
  private readonly known: Statement<[string]>;

  constructor(private readonly db: Db) {
    db.exec('CREATE TEMP TABLE IF NOT EXISTS known_device (id TEXT PRIMARY KEY, kind TEXT NOT NULL, user_id TEXT NOT NULL) WITHOUT ROWID');
    this.reset = db.prepare('DELETE FROM temp.known_device');
    this.addMissing = db.prepare(`INSERT INTO temp.known_device (id, kind, user_id)
      SELECT id, kind, user_id FROM devices d WHERE NOT EXISTS (SELECT 1 FROM temp.known_device k WHERE k.id = d.id)`);
    this.count = db.prepare('SELECT COUNT(*) FROM temp.known_device').pluck();
    this.appeared = db.prepare('SELECT id FROM devices d WHERE NOT EXISTS (SELECT 1 FROM temp.known_device k WHERE k.id = d.id)').pluck();
    this.gone = db.prepare('SELECT id, kind, user_id AS userId FROM temp.known_device k WHERE NOT EXISTS (SELECT 1 FROM devices d WHERE d.id = k.id)');
    this.add = db.prepare('INSERT OR REPLACE INTO temp.known_device (id, kind, user_id) VALUES (?, ?, ?)');
    this.remove = db.prepare('DELETE FROM temp.known_device WHERE id = ?');
    this.known = db.prepare('SELECT 1 FROM temp.known_device WHERE id = ?').pluck();
  }

  /** Takes every stored device as known. */
  startFromStored(): void {
    this.db.transaction(() => {
      this.reset.run();
      this.addMissing.run();
    })();
  }

  get size(): number {
    return this.count.get() as number;
  }

  has(id: string): boolean {
    return this.known.get(id) !== undefined;
  }

  /** Records a device as known; false when it already was. */
  note(device: DeviceIdentity): boolean {
    if (this.has(device.id)) return false;
    this.add.run(device.id, device.kind, device.userId);
    return true;
  }

  forget(id: string): void {
    this.remove.run(id);
  }

  /** Stored devices not yet known, and known ones no longer stored (as they were); both become known. */
  changes(): { appeared: string[]; gone: DeviceIdentity[] } {
    return this.db.transaction(() => {
      const appeared = this.appeared.all() as string[];
      const gone = this.gone.all() as DeviceIdentity[];
      for (const { id } of gone) this.remove.run(id);
      if (appeared.length > 0) this.addMissing.run();
      return { appeared, gone };
    })();
  }
}
