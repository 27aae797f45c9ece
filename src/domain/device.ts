// The hub's own record of a device, shared by the store, the API presenters and the drivers.
import type { DeviceKind, HvacType } from './vocabulary.ts';
import { formatTimestamp } from './time.ts';

/** How the hub reaches a device: a driver type and its settings (address, unit id, topic…). */
export interface DriverBinding {
  type: string;
  [setting: string]: unknown;
}

/**
 * The binding of a vehicle that no driver of the hub reaches (a cloud-only car): `{type: "charger",
 * chargerId}` names the charger it charges at. No runtime drives it; the vehicle's CHARGING_START,
 * CHARGING_STOP and SET_CHARGING_CURRENT go through that charger (see the command worker).
 */
export const CHARGER_BINDING = 'charger';

/** The binding as it is stored: a charger binding names its charger in lower case, as ids are kept. */
export function canonicalBinding(binding: DriverBinding): DriverBinding {
  const chargerId = binding['chargerId'];
  if (binding.type !== CHARGER_BINDING || typeof chargerId !== 'string') return binding;
  return { ...binding, chargerId: chargerId.toLowerCase() };
}

export interface DeviceRecord {
  id: string;
  kind: DeviceKind;
  userId: string;
  vendor: string;
  name: string | null;
  model: string | null;
  isOnline: boolean;
  /** Last change of any variable of the device, epoch ms in whole seconds (what the API shows and filters on). */
  lastUpdatedMs: number | null;
  locationId: string | null;
  hvacType: HvacType | null;
  /** staticData fields other than vendor, name and model (which are columns). */
  staticData: Record<string, unknown>;
  /** chargeState or powerState, in API units; null for kinds without one. */
  state: Record<string, unknown> | null;
  driver: DriverBinding | null;
  createdAtMs: number;
}

/** The JSON key under which each kind keeps its live state. */
export const STATE_KEY: Partial<Record<DeviceKind, 'chargeState' | 'powerState'>> = {
  battery: 'chargeState',
  charger: 'chargeState',
  pvInverter: 'powerState',
};

/** Case folding used by the substring filters, in the store and in anything that must agree with it. */
export function fold(text: string): string {
  return text.toLowerCase();
}

/**
 * The device's staticData with its `lastUpdated`: when its static data (vendor, name, model and the
 * other staticData fields) was last set or changed. `previous` is the device as stored before: while
 * its static data is the same, its stamp and object are kept, so that a reimport or a restart with
 * the same configuration neither moves the stamp nor counts as a change; otherwise it is `nowMs`, in
 * whole seconds. A stamp the record carries already (given by an import) stands.
 */
export function stampedStaticData(device: DeviceRecord, previous: DeviceRecord | undefined, nowMs: number): Record<string, unknown> {
  if (typeof device.staticData['lastUpdated'] === 'string') return device.staticData;
  const stamp = previous?.staticData['lastUpdated'];
  if (typeof stamp === 'string' && staticIdentity(previous!) === staticIdentity(device)) return previous!.staticData;
  return { lastUpdated: formatTimestamp(nowMs), ...device.staticData };
}

function staticIdentity(device: DeviceRecord): string {
  const { lastUpdated: _stamp, ...rest } = device.staticData;
  return JSON.stringify([device.vendor, device.name, device.model, JSON.stringify(rest, Object.keys(rest).sort())]);
}
