// What the cloud runtime needs of one car's session, whatever its maker's way (BMW's stream, Volvo's
// polling), and the states a session tells its owner about.
import type { DeviceRecord } from '../../domain/device.ts';

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

export interface CloudSession {
  readonly device: DeviceRecord;
  readonly status: CloudStatus;
  start(): void;
  stop(): Promise<void>;
}
