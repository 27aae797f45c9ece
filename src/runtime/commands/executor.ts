// What the command worker needs from a runtime (MQTT, Modbus): whether it drives a device, which
// command types that device's driver supports, and carrying one out until the device confirms.
import type { DeviceRecord } from '../../domain/device.ts';
import type { CommandType } from '../../domain/vocabulary.ts';
import type { CommandValue } from '../families/definition-parts.ts';

/**
 * What a supported command takes, as far as its driver says: where its value comes from (a number's
 * range, an enum's accepted words and the device's word for each) and the state field the device
 * shows the result in. Front ends (Home Assistant) offer the command within these bounds.
 */
export interface CommandShape {
  value?: CommandValue;
  stateField?: string;
  /**
   * For an enum, the word `stateField` shows per accepted payload word, where it is not the device's
   * word from `value.map` (an HTTP Daikin is sent mode 3 and its state shows COOL).
   */
  stateWords?: Readonly<Record<string, string>>;
}

export interface CommandExecutor {
  /** A short name for logs and reasons ("mqtt", "modbus"). */
  readonly name: string;
  handles(device: DeviceRecord): boolean;
  /** The command types the device's driver can carry out (empty when none). */
  supportedCommands(device: DeviceRecord): readonly CommandType[];
  /** What a supported command takes (undefined when the driver says nothing more). */
  commandShape?(device: DeviceRecord, type: CommandType): CommandShape | undefined;
  /** Whether the runtime currently reaches the device (a command for an unreachable one waits). */
  isReachable(device: DeviceRecord): boolean;
  /**
   * Sends the command and resolves once the device has confirmed it. Rejects with a CommandFailure
   * whose message is the reason shown to API clients. `signal` aborts when the command's time is up
   * or the hub stops; whatever was not yet sent must then not be sent later.
   */
  execute(device: DeviceRecord, type: CommandType, payload: unknown, signal: AbortSignal): Promise<void>;
}

/** A command that did not succeed; the message is shown as `failedReason`, so it holds no secret. */
export class CommandFailure extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'CommandFailure';
  }
}

/**
 * The device could not be reached and nothing was sent (its connection cannot be opened): the
 * command has not been tried, so the worker waits for the device and tries again until the
 * command's deadline, as for a device already known to be offline.
 */
export class DeviceNotReached extends CommandFailure {
  constructor(reason: string) {
    super(reason);
    this.name = 'DeviceNotReached';
  }
}

/** Rejects with a CommandFailure once `signal` aborts (its reason, when it is a CommandFailure). */
export function abortedFailure(signal: AbortSignal, fallback: string): CommandFailure {
  return signal.reason instanceof CommandFailure ? signal.reason : new CommandFailure(fallback);
}
