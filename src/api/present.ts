// Turns the hub's records into the exact JSON shapes of the specification. Absent values are left
// out rather than sent as null.
import type { DeviceRecord, DeviceSummary } from '../domain/device.ts';
import type { CommandRecord } from '../store/commands.ts';
import type { Page } from '../store/devices.ts';
import { formatTimestamp } from '../domain/time.ts';

type Json = Record<string, unknown>;

function compact(object: Json): Json {
  for (const key of Object.keys(object)) if (object[key] === null || object[key] === undefined) delete object[key];
  return object;
}

function time(ms: number | null): string | undefined {
  return ms === null ? undefined : formatTimestamp(ms);
}

function core(device: DeviceRecord): Json {
  return compact({
    id: device.id,
    userId: device.userId,
    isOnline: device.isOnline,
    lastUpdated: time(device.lastUpdatedMs),
    locationId: device.locationId,
  });
}

/** staticData with vendor, name and model put back in, in the specification's field order. */
function staticData(device: DeviceRecord, order: readonly string[]): Json {
  const merged: Json = { ...device.staticData, vendor: device.vendor, name: device.name, model: device.model };
  const out: Json = {};
  for (const key of order) if (merged[key] !== null && merged[key] !== undefined) out[key] = merged[key];
  return out;
}

export function batteryDetail(device: DeviceRecord): Json {
  return {
    ...core(device),
    staticData: staticData(device, ['lastUpdated', 'vendor', 'name', 'model', 'siteName', 'batteryCapacity']),
    chargeState: device.state ?? {},
  };
}

export function chargerDetail(device: DeviceRecord): Json {
  return {
    ...core(device),
    chargeState: device.state ?? {},
    staticData: staticData(device, ['lastUpdated', 'vendor', 'model', 'name']),
  };
}

export function pvInverterDetail(device: DeviceRecord): Json {
  return {
    ...core(device),
    staticData: staticData(device, ['lastUpdated', 'vendor', 'name', 'model', 'siteName']),
    powerState: device.state ?? {},
  };
}

export function tariffDetail(device: DeviceRecord): Json {
  return {
    ...core(device),
    staticData: staticData(device, ['vendor', 'countryCode', 'name', 'currency', 'lastUpdated']),
  };
}

export function listItem(summary: DeviceSummary, extra: 'chargingState' | 'type' | null): Json {
  const item: Json = {
    id: summary.id,
    userId: summary.userId,
    vendor: summary.vendor,
    name: summary.name,
    isOnline: summary.isOnline,
    model: summary.model,
    lastUpdated: time(summary.lastUpdatedMs),
  };
  if (extra === 'chargingState') item['chargingState'] = summary.chargingState;
  if (extra === 'type') item['type'] = summary.hvacType;
  return compact(item);
}

export function page(result: Page<DeviceSummary>, size: number, extra: 'chargingState' | 'type' | null): Json {
  return {
    content: result.items.map((s) => listItem(s, extra)),
    totalElements: result.total,
    totalPages: Math.ceil(result.total / size),
  };
}

export function command(record: CommandRecord): Json {
  return compact({
    id: record.id,
    createdAt: formatTimestamp(record.createdAtMs),
    state: record.state,
    type: record.type,
    userId: record.userId,
    deviceId: record.deviceId,
    lastUpdated: formatTimestamp(record.lastUpdatedMs),
    failedReason: record.failedReason,
  });
}
