// The hub's own record of a device, shared by the store, the API presenters and the drivers.
import type { DeviceKind, HvacType } from './vocabulary.ts';

/** How the hub reaches a device: a driver type and its settings (address, unit id, topic…). */
export interface DriverBinding {
  type: string;
  [setting: string]: unknown;
}

export interface DeviceRecord {
  id: string;
  kind: DeviceKind;
  userId: string;
  vendor: string;
  name: string | null;
  model: string | null;
  isOnline: boolean;
  /** Last change of any variable of the device, epoch ms. */
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
