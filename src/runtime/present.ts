// Turns the hub's records into the exact JSON shapes of the specification. Absent values are left
// out rather than sent as null.
import type { DeviceRecord } from '../domain/device.ts';
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

const DETAIL: Partial<Record<DeviceRecord['kind'], (device: DeviceRecord) => Json>> = {
  battery: batteryDetail, charger: chargerDetail, pvInverter: pvInverterDetail, tariff: tariffDetail,
};
const detailTexts = new WeakMap<DeviceRecord, string>();

/**
 * A device's detail body as JSON text, remembered per record: the store hands out the same frozen
 * record until the device changes (DeviceRepository.get), and a changed device is a new record, so
 * a remembered text is never stale. A record not from the store is rendered and soon forgotten.
 */
export function detailJson(device: DeviceRecord): string {
  let text = detailTexts.get(device);
  if (text === undefined) {
    const present = DETAIL[device.kind];
    if (!present) throw new TypeError(`no detail view for ${device.kind}`);
    text = JSON.stringify(present(device));
    detailTexts.set(device, text);
  }
  return text;
}

/** A list item: the summary fields, with the battery's chargingState or the HVAC's type. */
export function listItem(device: DeviceRecord): Json {
  const item: Json = { id: device.id, userId: device.userId, vendor: device.vendor };
  set(item, 'name', device.name);
  item['isOnline'] = device.isOnline;
  set(item, 'model', device.model);
  set(item, 'lastUpdated', time(device.lastUpdatedMs));
  if (device.kind === 'battery') {
    const chargingState = device.state?.['chargingState'];
    if (typeof chargingState === 'string') item['chargingState'] = chargingState;
  }
  if (device.kind === 'hvac') set(item, 'type', device.hvacType);
  return item;
}

const itemTexts = new WeakMap<DeviceRecord, string>();

/** A list page as JSON text; each item rendered once per record, as detailJson() does. */
export function pageJson(result: Page<DeviceRecord>, size: number): string {
  let content = '';
  for (const device of result.items) {
    let text = itemTexts.get(device);
    if (text === undefined) {
      text = JSON.stringify(listItem(device));
      itemTexts.set(device, text);
    }
    content += content === '' ? text : `,${text}`;
  }
  return `{"content":[${content}],"totalElements":${result.total},"totalPages":${Math.ceil(result.total / size)}}`;
}

/**
 * A Command. Its times are kept to the millisecond and shown in whole seconds, like every time of
 * the API (formatTimestamp); nothing orders or filters commands by time (their order is `seq`).
 */
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
  set(out, 'waitingReason', record.waitingReason);
  return out;
}
