// The behaviour that several resources share: list pages, ownership-aware lookup, deletion,
// refresh, and command submission. Resource files stay a list of operations.
import type { ApiDeps } from './deps.ts';
import { disconnected, notFound } from './errors.ts';
import * as present from '../runtime/present.ts';
import { json, jsonText } from './respond.ts';
import type { DeviceRecord } from '../domain/device.ts';
import type { CommandType, DeviceKind, SortField, SortOrder, HvacType } from '../domain/vocabulary.ts';
import type { DeviceFilter } from '../store/devices.ts';
import { DeviceUnreachableError } from '../runtime/live.ts';
import { createCommand } from '../runtime/commands/create-command.ts';
import type { CommandState } from '../domain/vocabulary.ts';

export interface ListQuery {
  sortField: SortField;
  sortOrder: SortOrder;
  page: number;
  size: number;
  uuid?: string;
  userId?: string;
  isOnline?: boolean;
  name?: string;
  model?: string;
  vendor?: string;
  lastUpdatedFrom?: number;
  lastUpdatedTo?: number;
  chargingState?: string;
  type?: HvacType;
}

export function listPage(deps: ApiDeps, kind: DeviceKind, query: ListQuery, ownerId?: string): Response {
  const filter: DeviceFilter = {
    kind,
    ownerId,
    uuid: query.uuid,
    userId: query.userId,
    isOnline: query.isOnline,
    name: query.name,
    model: query.model,
    vendor: query.vendor,
    lastUpdatedFromMs: query.lastUpdatedFrom,
    lastUpdatedToMs: query.lastUpdatedTo,
    chargingState: query.chargingState,
    hvacType: query.type,
  };
  return jsonText(present.pageJson(deps.store.devices.list(filter, query), query.size));
}

/** The device, or the kind's not-found error (also when it belongs to another user than `ownerId`). */
export function findOr404(deps: ApiDeps, kind: DeviceKind, id: string, ownerId?: string): DeviceRecord {
  const device = deps.store.devices.find(kind, id, ownerId);
  if (!device) throw notFound(kind, id);
  return device;
}

export function deleteDevice(deps: ApiDeps, kind: DeviceKind, id: string, ownerId?: string): Response {
  const device = findOr404(deps, kind, id, ownerId);
  const failed = deps.store.deleteDevice(device, deps.clock.now());
  deps.log.info({ device: device.id, kind, failedCommands: failed }, 'device deleted');
  deps.runtime.deviceDeleted(device);
  return json({ success: true });
}

/** Reads the device live through its driver; 503 when it cannot be reached. */
export async function refreshDevice(deps: ApiDeps, kind: DeviceKind, id: string): Promise<DeviceRecord> {
  const device = findOr404(deps, kind, id);
  try {
    return await deps.runtime.refresh(device);
  } catch (err) {
    if (err instanceof DeviceUnreachableError) {
      deps.log.warn({ device: id, reason: err.message }, 'refresh: device unreachable');
      throw disconnected(kind, id, err.message);
    }
    throw err;
  }
}

/** Stores a PENDING command (durably, before the response), then hands it to the runtime. */
export function submitCommand(deps: ApiDeps, device: DeviceRecord, type: CommandType, payload?: unknown): Response {
  const record = createCommand({
    store: deps.store, clock: deps.clock, log: deps.log, ttlMs: deps.settings.commandTtlMs,
    commandCreated: (command) => deps.runtime.commandCreated(command),
  }, device, type, payload);
  return json(present.command(record));
}

export function listCommands(deps: ApiDeps, kind: DeviceKind, id: string, ownerId: string, state: CommandState | 'ALL'): Response {
  findOr404(deps, kind, id, ownerId);
  return json(deps.store.commands.ofDeviceId(id, state).map(present.command));
}
