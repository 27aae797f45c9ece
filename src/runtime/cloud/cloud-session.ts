// What the cloud runtime needs of one maker account's session, whatever its maker's way (BMW's
// stream, Volvo's polling), and the states a session tells its owner about, per car. The cars of
// one account share one session: BMW allows one stream connection per account, and both makers
// rotate the refresh token that the account's cars would otherwise each hold a copy of
// (account-login.ts).
import type { DeviceRecord, DriverBinding } from '../../domain/device.ts';
import type { Clock } from '../../domain/time.ts';
import type { Logger } from '../../log.ts';
import type { CloudDefinition } from './definition.ts';

export type CloudStatus =
  | { state: 'connecting' }
  /** Reading: the stream is connected, or the last poll was answered. */
  | { state: 'streaming' }
  | { state: 'retrying'; reason: string }
  /** BMW: another client of the account holds the one stream. */
  | { state: 'takenOver'; reason: string }
  /** Volvo: the day's call quota is used up; reading resumes when the maker said it is replenished. */
  | { state: 'waitingForQuota'; reason: string; untilMs: number }
  /** The maker refused the login: the owner has to connect the car again. */
  | { state: 'loginDue'; reason: string }
  | { state: 'stopped' };

export interface CloudAccountSession {
  /** How many cars the session reads. */
  readonly size: number;
  /** Adds a car of the account (a car that brings a newer login starts the session over with it). */
  add(device: DeviceRecord): void;
  remove(id: string): void;
  /** The binding the session holds for a car (with the refresh token it last stored), if it reads the car. */
  bindingOf(id: string): DriverBinding | undefined;
  status(id: string): CloudStatus | undefined;
  /**
   * Reads one car from its maker now, where the maker's way allows it (Volvo's API answers a read at
   * any time; BMW's stream brings only what the car sends, so BMW's session has none). Throws the
   * reason, in words, when the car cannot be read now (the quota spent, a new login due).
   */
  readNow?(id: string): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}

/** What a session is given: the definition, and per car where its values, reachability and status go. */
export interface CloudAccountDeps {
  definition: CloudDefinition;
  clock: Clock;
  log: Logger;
  /** Keeps rotated refresh tokens (and what else the cars share) in their bindings, all in one transaction. */
  saveBindings(bindings: ReadonlyMap<string, DriverBinding>): void;
  /** A car's fields (all that the definition maps; the rest of the stored state stays). */
  report(deviceId: string, values: Record<string, unknown>, mapped: readonly string[]): void;
  reportOnline(deviceId: string, isOnline: boolean): void;
  /** Every change of a car's status (tests, the log). */
  onStatus?(deviceId: string, status: CloudStatus): void;
}

/**
 * Which account a car's binding belongs to: BMW's CarData client id and GCID (the stream's user);
 * Volvo's API application (its client id: the owner registers it with their Volvo ID).
 */
export function accountKey(definition: CloudDefinition, binding: DriverBinding): string {
  return definition.protocol === 'bmw-cardata'
    ? JSON.stringify([definition.type, binding['clientId'], binding['gcid']])
    : JSON.stringify([definition.type, binding['clientId']]);
}
