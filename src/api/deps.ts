import type { Logger } from 'pino';
import type { Store } from '../store/store.ts';
import type { Clock } from '../domain/time.ts';
import type { VendorCatalog } from '../domain/vendors.ts';
import type { Runtime } from '../runtime/devices/live.ts';
import type { ChargerProber } from '../runtime/devices/pairing-prober.ts';
import type { DeviceProber } from '../runtime/devices/device-prober.ts';
import type { VehicleConnector } from '../runtime/devices/vehicle-connector.ts';
import type { AuthFailures } from '../runtime/auth-failures.ts';
import type { ClockWatch } from '../runtime/clock/clock-watch.ts';
import type { HouseholdSource } from './household/live.ts';
import type { BindingDefaults } from '../domain/binding-identity.ts';

export interface ApiSettings {
  /** Absolute base address of the hub as clients reach it, e.g. http://127.0.0.1:8080 (no trailing slash). */
  publicUrl: string;
  /** A command not carried out within this time fails as expired. */
  commandTtlMs: number;
  connectSessionTtlMs: number;
  bodyLimitBytes: number;
  /** Failed key checks allowed per client address per minute before 429. */
  authFailuresPerMinute: number;
  /**
   * How this hub was started, for the commands the page at / shows: the demo or a hub run from a
   * checkout (`npm run hub -- …`), or the installed service (`sudo home-energy-hub …`).
   */
  startedAs?: StartedAs;
}

export type StartedAs = 'demo' | 'checkout' | 'installed';

export const DEFAULT_API_SETTINGS: Omit<ApiSettings, 'publicUrl'> = {
  commandTtlMs: 15 * 60_000,
  connectSessionTtlMs: 15 * 60_000,
  bodyLimitBytes: 64 * 1024,
  authFailuresPerMinute: 30,
};

export interface ApiDeps {
  store: Store;
  log: Logger;
  clock: Clock;
  vendors: VendorCatalog;
  runtime: Runtime;
  settings: ApiSettings;
  /** The driver definitions' defaults, for telling whether a paired charger is one the hub has (src/binding-defaults.ts). */
  bindingDefaults: BindingDefaults;
  /** Reaches chargers for the pairing page; without it no charger vendor can be paired. */
  pairing?: ChargerProber;
  /** Reaches HVAC units, home-power devices and tariffs for their connect page; without it none can be connected. */
  devicePairing?: DeviceProber;
  /** Runs the makers' logins for the vehicle connect page; without it no car maker can be connected. */
  vehicles?: VehicleConnector;
  /** Failed authentications per client address, shared with the OCPP endpoint; else each key check counts its own. */
  authFailures?: AuthFailures;
  /** The hub's watch on the wall clock: a step is noticed before a command is dated. */
  clockWatch?: Pick<ClockWatch, 'check'>;
  /** The household page's live stream (the daemon's events and flows); without it /home/live is a 404. */
  household?: HouseholdSource;
}
