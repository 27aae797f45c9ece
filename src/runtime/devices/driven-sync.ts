// Both runtimes keep one session per device they drive and re-read the store now and then: devices
// added elsewhere (import, CLI, pairing) get a session, changed bindings a new one, deleted ones none.
import type { DeviceRecord } from '../../domain/device.ts';

export interface SessionTable {
  handles(device: DeviceRecord): boolean;
  /** The binding a device's session was opened with, if it has one. */
  bindingOf(id: string): DeviceRecord['driver'] | undefined;
  ids(): Iterable<string>;
  open(device: DeviceRecord): unknown;
  remove(id: string): void;
}

export function syncSessions(driven: readonly DeviceRecord[], table: SessionTable): void {
  const seen = new Set<string>();
  for (const device of driven) {
    if (!table.handles(device)) continue;
    seen.add(device.id);
    const binding = table.bindingOf(device.id);
    if (binding !== undefined && JSON.stringify(binding) === JSON.stringify(device.driver)) continue;
    if (binding !== undefined) table.remove(device.id);
    table.open(device);
  }
  for (const id of [...table.ids()]) if (!seen.has(id)) table.remove(id);
}

/** The session table of a runtime that keeps its sessions by device id, each with the device it was opened for. */
export function sessionTable(
  sessions: ReadonlyMap<string, { device: DeviceRecord }>,
  runtime: { handles(device: DeviceRecord): boolean; open(device: DeviceRecord): unknown; remove(id: string): void },
): SessionTable {
  return {
    handles: (device) => runtime.handles(device),
    bindingOf: (id) => sessions.get(id)?.device.driver,
    ids: () => sessions.keys(),
    open: (device) => runtime.open(device),
    remove: (id) => runtime.remove(id),
  };
}
