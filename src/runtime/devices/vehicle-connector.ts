// What the vehicle connect page (src/api/pairing/) needs from a family that reads cars from their
// makers' clouds: which makers it can connect, the fields the owner fills in for each (BMW CarData's
// client id; Volvo's VCC API key, client id and secret), and the maker's login, run for one connect
// session at a time. The page knows nothing of OAuth; the cloud family implements this
// (src/runtime/cloud/cloud-connector.ts).
//
// A login goes: begin() → the owner acts at the maker (BMW: enters the shown code on BMW's page,
// while the connector polls BMW's token endpoint in the background; Volvo: the browser is sent to
// Volvo ID and comes back to the hub's callback, handed to callback()) → progress() is 'loggedIn'
// with the account's cars, each with the binding that reads it → the page adds the chosen car.
// Logins live in memory only: a hub restarted meanwhile has forgotten them, and the owner starts again.
import type { DriverBinding } from '../../domain/device.ts';
import type { PairingForm } from './pairing-prober.ts';

/** What the page shows once a login has begun. */
export type VehicleLoginStart =
  /** BMW: the owner enters `userCode` at `verificationUri` (or opens `verificationUriComplete`). */
  | { kind: 'deviceCode'; userCode: string; verificationUri: string; verificationUriComplete: string | undefined; expiresAtMs: number }
  /** Volvo: the browser goes to `url`; the maker sends it back to the callback URL given to begin(). */
  | { kind: 'redirect'; url: string };

/** A car of the logged-in account, and how the hub reads it (the binding has everything but `chargerId`). */
export interface ConnectableCar {
  vin: string;
  /** The maker's name of the model (BMW's basic data, Volvo's description), when it said one. */
  model: string | null;
  driver: DriverBinding;
}

/**
 * Why a login failed, as the owner can act on it; each has a translated message on the page.
 * REFUSED: the maker refused the credentials (an unknown client id, a wrong client secret or key).
 * DECLINED: the owner declined (or did not finish) the login at the maker. EXPIRED: BMW's code ran
 * out before it was entered. UNREACHABLE: the maker's service did not answer. NO_CAR: the account
 * has no car this hub can read (or not the one with the session's VIN). QUOTA: the maker's call
 * quota is used up for today.
 */
export const VEHICLE_LOGIN_ERRORS = ['REFUSED', 'DECLINED', 'EXPIRED', 'UNREACHABLE', 'NO_CAR', 'QUOTA'] as const;
export type VehicleLoginError = (typeof VEHICLE_LOGIN_ERRORS)[number];

export type VehicleLoginState =
  | { state: 'none' }
  | { state: 'waiting'; start: VehicleLoginStart }
  | { state: 'loggedIn'; cars: ConnectableCar[] }
  | { state: 'failed'; error: VehicleLoginError };

export class VehicleLoginFailed extends Error {
  constructor(readonly code: VehicleLoginError, message?: string) {
    super(message ?? code);
    this.name = 'VehicleLoginFailed';
  }
}

export interface VehicleConnector {
  /** The vehicle vendors this hub can connect, with the form fields each needs. */
  forms(): ReadonlyMap<string, PairingForm>;
  /**
   * Begins the maker's login for the connect session `key` (replacing one in progress there), with
   * the owner's fields (checked against the vendor's form and trimmed). `callbackUrl` is where a
   * maker that redirects sends the browser back (the hub's fixed callback address, which the owner
   * registers with the maker). `vin`: the one car the session is for, when the partner named it.
   * Throws VehicleLoginFailed when the maker refuses or cannot be reached.
   */
  begin(key: string, login: { vendor: string; fields: Record<string, string>; callbackUrl: string; vin: string | null }): Promise<VehicleLoginStart>;
  /** Where the login of session `key` stands. */
  progress(key: string): VehicleLoginState;
  /**
   * The maker's redirect back to the callback URL, with its query (`state`, and `code` or `error`).
   * Resolves the key of the session the login belongs to (its progress now 'loggedIn' or 'failed'),
   * or undefined when the state belongs to no login in progress (an old or forged link). `key`: the
   * session whose login the browser began; a state of another session's login is then left as it
   * is (undefined), for the browser that did begin it.
   */
  callback(query: URLSearchParams, key?: string): Promise<string | undefined>;
  /** Forgets the login of session `key` (the car was added, the owner cancelled, the session ended). */
  end(key: string): void;
  /** Stops every login in progress (the hub stops). */
  stop(): void;
}
