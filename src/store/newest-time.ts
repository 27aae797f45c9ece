// The newest time the hub itself has stored: a wall clock behind it is known to be wrong (a gateway
// without a battery clock boots at the last time it saved, behind what it wrote before the power cut).
// Only times the hub stamps from its own clock count: a device's lastUpdated may come from an import
// and a tariff's prices are published ahead.
import type { Db } from './db.ts';

/** Epoch ms of the newest time the hub stamped on something it stored; 0 for a new store. One query. */
export function newestStoredTime(db: Db): number {
  // Each part is read through its primary key (or a table of a row per device): cheap at start.
  const row = db.prepare(`SELECT max(
      coalesce((SELECT last_updated FROM commands ORDER BY seq DESC LIMIT 1), 0),
      coalesce((SELECT max(created_at) FROM api_keys), 0),
      coalesce((SELECT max(stored_at) FROM hub_schedules), 0),
      coalesce((SELECT max(start_at) FROM household_points), 0),
      coalesce((SELECT max(hour_at) FROM meter_hours), 0)) AS newest`).get() as { newest: number };
  return row.newest;
}
