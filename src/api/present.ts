// Turns the hub's records into the exact JSON shapes of the specification. Absent values are left
// out rather than sent as null.
import type { DeviceRecord, DeviceSummary } from '../domain/device.ts';
import type { CommandRecord } from '../store/commands.ts';
import type { Page } from '../store/devices.ts';
import { formatTimestamp } from '../domain/time.ts';

type Json = Record<string, unknown>;

// Absent fields are not added rather than deleted afterwards: `delete` turns an object into a slow
// dictionary, which then costs more to fill and to serialise on every request.
function set(object: Json, key: string, value: unknown): void {
  if (value !== null && value !== undefined) object[key] = value;
}

function time(ms: number | null): string | undefined {
  return ms === null ? undefined : formatTimestamp(ms);
}

function core(device: DeviceRecord): Json {
  const out: Json = { id: device.id, userId: device.userId, isOnline: device.isOnline };
  set(out, 'lastUpdated', time(device.lastUpdatedMs));
  set(out, 'locationId', device.locationId);
  return out;
}

/** staticData with vendor, name and model put back in, in the specification's field order. */
function staticData(device: DeviceRecord, order: readonly string[]): Json {
  const out: Json = {};
  for (const key of order) {
    set(out, key, key === 'vendor' ? device.vendor : key === 'name' ? device.name : key === 'model' ? device.model : device.staticData[key]);
  }
  return out;
}

export function batteryDetail(device: DeviceRecord): Json {
  const out = core(device);
  out['staticData'] = staticData(device, ['lastUpdated', 'vendor', 'name', 'model', 'siteName', 'batteryCapacity']);
  out['chargeState'] = device.state ?? {};
  return out;
}

export function chargerDetail(device: DeviceRecord): Json {
  const out = core(device);
  out['chargeState'] = device.state ?? {};
  out['staticData'] = staticData(device, ['lastUpdated', 'vendor', 'model', 'name']);
  return out;
}

export function pvInverterDetail(device: DeviceRecord): Json {
  const out = core(device);
  out['staticData'] = staticData(device, ['lastUpdated', 'vendor', 'name', 'model', 'siteName']);
  out['powerState'] = device.state ?? {};
  return out;
}

export function tariffDetail(device: DeviceRecord): Json {
  const out = core(device);
  out['staticData'] = staticData(device, ['vendor', 'countryCode', 'name', 'currency', 'lastUpdated']);
  return out;
}

export function listItem(summary: DeviceSummary, extra: 'chargingState' | 'type' | null): Json {
  const item: Json = { id: summary.id, userId: summary.userId, vendor: summary.vendor };
  set(item, 'name', summary.name);
  item['isOnline'] = summary.isOnline;
  set(item, 'model', summary.model);
  set(item, 'lastUpdated', time(summary.lastUpdatedMs));
  if (extra === 'chargingState') set(item, 'chargingState', summary.chargingState);
  if (extra === 'type') set(item, 'type', summary.hvacType);
  return item;
}

export function page(result: Page<DeviceSummary>, size: number, extra: 'chargingState' | 'type' | null): Json {
  return {
    content: result.items.map((s) => listItem(s, extra)),
    totalElements: result.total,
    totalPages: Math.ceil(result.total / size),
  };
}

export function command(record: CommandRecord): Json {
  const out: Json = {
    id: record.id,
    createdAt: formatTimestamp(record.createdAtMs),
    state: record.state,
    type: record.type,
    userId: record.userId,
    deviceId: record.deviceId,
    lastUpdated: formatTimestamp(record.lastUpdatedMs),
  };
  set(out, 'failedReason', record.failedReason);
  return out;
}
