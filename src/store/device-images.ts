// The device_images table: one PNG per device (a vehicle, an HVAC unit), with the ETag it is served under.
import { createHash } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.ts';
import { isPng } from '../domain/png.ts';

export interface DeviceImage {
  png: Buffer;
  etag: string;
}

export const MAX_IMAGE_BYTES = 2 * 1024 * 1024;

export class DeviceImageRepository {
  private readonly upsert: Statement;
  private readonly byId: Statement<[string]>;
  private readonly remove: Statement<[string]>;

  constructor(db: Db) {
    this.upsert = db.prepare(`INSERT INTO device_images (device_id, png, etag, updated_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (device_id) DO UPDATE SET png = excluded.png, etag = excluded.etag, updated_at = excluded.updated_at`);
    this.byId = db.prepare('SELECT png, etag FROM device_images WHERE device_id = ?');
    this.remove = db.prepare('DELETE FROM device_images WHERE device_id = ?');
  }

  /** Stores a PNG; throws on anything that is not one. */
  set(deviceId: string, png: Buffer, nowMs: number): DeviceImage {
    if (!isPng(png)) throw new TypeError('not a PNG image');
    if (png.length > MAX_IMAGE_BYTES) throw new RangeError(`image larger than ${MAX_IMAGE_BYTES} bytes`);
    const etag = `"${createHash('sha256').update(png).digest('base64url').slice(0, 27)}"`;
    this.upsert.run(deviceId, png, etag, nowMs);
    return { png, etag };
  }

  get(deviceId: string): DeviceImage | undefined {
    return this.byId.get(deviceId) as DeviceImage | undefined;
  }

  delete(deviceId: string): void {
    this.remove.run(deviceId);
  }
}
