// The behaviour that several resources share: list pages, ownership-aware lookup, deletion,
// refresh, and command submission. Resource files stay a list of operations. Every lookup and list
// takes the request's Reach (reach.ts): what its key may see is decided here, once for all kinds.
import type { ApiDeps } from './deps.ts';
import { badRequest, disconnected, notFound } from './errors.ts';
import { refusal } from '../runtime/commands/command-check.ts';
import * as present from '../runtime/values/present.ts';
import { json, jsonText } from './respond.ts';
import type { DeviceRecord } from '../domain/device.ts';
import type { CommandType, DeviceKind, SortField, SortOrder, HvacType } from '../domain/vocabulary.ts';
import type { DeviceFilter } from '../store/devices.ts';
import { DeviceUnreachableError } from '../runtime/devices/live.ts';
import { createCommand } from '../runtime/commands/create-command.ts';
import type { CommandState } from '../domain/vocabulary.ts';
import type { CommandRecord } from '../store/commands.ts';
import type { Reach } from './reach.ts';

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
  vin?: string;
}

const NOTHING = { items: [], total: 0 };

/** A page of the kind's devices within reach: another household's list is empty, as an unknown user's is. */
export function listPage(deps: ApiDeps, kind: DeviceKind, query: ListQuery, reach: Reach): Response {
  if (reach.foreign) return jsonText(present.pageJson(NOTHING, query.size));
  const filter: DeviceFilter = {
    kind,
    ownerId: reach.owner,
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
    vin: query.vin,
  };
  return jsonText(present.pageJson(deps.store.devices.list(filter, query), query.size));
}

/** The device, or the kind's not-found error, also when it lies outside the request's reach (another household). */
export function findOr404(deps: ApiDeps, kind: DeviceKind, id: string, reach: Reach): DeviceRecord {
  const device = reach.foreign ? undefined : deps.store.devices.find(kind, id, reach.owner);
  if (!device) throw notFound(kind, id);
  return device;
}

export function deleteDevice(deps: ApiDeps, kind: DeviceKind, id: string, reach: Reach): Response {
  const device = findOr404(deps, kind, id, reach);
  const failed = deps.store.deleteDevice(device, deps.clock.now());
  deps.log.info({ device: device.id, kind, failedCommands: failed }, 'device deleted');
  deps.runtime.deviceDeleted(device);
  return json({ success: true });
}

/** The device's detail body (its driver's offers asked only when it is rendered anew). */
export function detail(deps: ApiDeps, device: DeviceRecord): Response {
  return jsonText(present.detailJson(device, deps.runtime.offers && ((d) => deps.runtime.offers!(d))));
}

/** Reads the device live through its driver; 503 when it cannot be reached. */
export async function refreshDevice(deps: ApiDeps, kind: DeviceKind, id: string, reach: Reach): Promise<DeviceRecord> {
  const device = findOr404(deps, kind, id, reach);
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

/**
 * Submits a command as the origin does (decisions §5): a well-formed command for an existing device
 * is accepted (200). One its driver does not offer (no driver, a capability the device lacks) is
 * stored FAILED at once with the reason, listed and told like any other; a value outside what the
 * device takes (a temperature out of its range, a mode it does not have) is the client's mistake:
 * 400 naming the field, nothing stored (the same check as Home Assistant's commands).
 */
export function submitOfferedCommand(
  deps: ApiDeps, device: DeviceRecord, type: CommandType, payload?: unknown, bodyField: Record<string, string> = {},
): Response {
  const offers = deps.runtime.offers?.(device);
  const refused = offers && refusal(offers, type, payload);
  if (refused && refused.field !== undefined) throw badRequest([{ field: bodyField[refused.field] ?? refused.field, message: refused.message }]);
  if (refused) return failAtOnce(deps, device, type, payload, `${refused.message}.`);
  return submitCommand(deps, device, type, payload);
}

/** Stores a PENDING command (durably, before the response), then hands it to the runtime. */
export function submitCommand(deps: ApiDeps, device: DeviceRecord, type: CommandType, payload?: unknown): Response {
  return json(present.command(storeCommand(deps, device, type, payload, (command) => deps.runtime.commandCreated(command))));
}

function storeCommand(deps: ApiDeps, device: DeviceRecord, type: CommandType, payload: unknown, created: (command: CommandRecord) => void): CommandRecord {
  return createCommand({ store: deps.store, clock: deps.clock, clockWatch: deps.clockWatch, log: deps.log, ttlMs: deps.settings.commandTtlMs, commandCreated: created }, device, type, payload);
}

/**
 * A command only some devices can carry out (a vehicle's charging schedule): submitted when the
 * device's driver offers it; otherwise stored and FAILED at once with the reason, so that the
 * client sees at once that nothing will happen, and never left PENDING.
 */
export function submitOrFailCommand(deps: ApiDeps, device: DeviceRecord, type: CommandType, payload: unknown, noPath: string): Response {
  const offers = deps.runtime.offers?.(device);
  if (offers?.has(type)) return submitCommand(deps, device, type, payload);
  const reason = offers ? `${noPath} (${refusal(offers, type, payload)?.message ?? 'not offered'}).` : `${noPath}.`;
  return failAtOnce(deps, device, type, payload, reason);
}

/** Stores the command and ends it FAILED with the reason at once (told as an event like any other). */
function failAtOnce(deps: ApiDeps, device: DeviceRecord, type: CommandType, payload: unknown, reason: string): Response {
  const record = storeCommand(deps, device, type, payload, () => {});
  if (deps.runtime.commandFailed) deps.runtime.commandFailed(record, reason);
  else deps.store.commands.complete(record.id, 'FAILED', reason, deps.clock.now());
  deps.log.info({ command: record.id, device: device.id, type, reason }, 'command failed at once: the device cannot carry it out');
  return json(present.command(deps.store.commands.get(record.id) ?? record));
}

export function listCommands(deps: ApiDeps, kind: DeviceKind, id: string, reach: Reach, state: CommandState | 'ALL'): Response {
  findOr404(deps, kind, id, reach);
  return json(deps.store.commands.ofDeviceId(id, state).map(present.command));
}
