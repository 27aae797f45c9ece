// What the API needs from the runtime: live reads for refresh, and word of new commands and
// deletions. The daemon wires the scheduler and the command worker in; without drivers the hub
// answers from what it has stored and claims no live contact.
import type { DeviceRecord } from '../../domain/device.ts';
import type { CommandRecord } from '../../store/commands.ts';
import type { CommandType } from '../../domain/vocabulary.ts';
import type { CommandShape } from '../commands/executor.ts';

export class DeviceUnreachableError extends Error {
  constructor(readonly deviceId: string, reason: string) {
    super(reason);
    this.name = 'DeviceUnreachableError';
  }
}

export interface Runtime {
  /** Reads the device now, stores what it read and returns the stored device; throws DeviceUnreachableError. */
  refresh(device: DeviceRecord): Promise<DeviceRecord>;
  commandCreated(command: CommandRecord): void;
  /** A stored command that nothing can carry out: FAILED at once with the reason (and told, as every outcome is). */
  commandFailed?(command: CommandRecord, reason: string): void;
  deviceDeleted(device: DeviceRecord): void;
  /** A device added in this process (pairing): driven and announced at once. */
  deviceAdded?(device: DeviceRecord): void;
  /** Why a device is offline, in the driver's words, when its driver knows more than "no answer" (refused login, changed certificate). */
  offlineReason?(device: DeviceRecord): string | undefined;
  /** The commands the device can be offered and what each takes (none without drivers). */
  offers?(device: DeviceRecord): ReadonlyMap<CommandType, CommandShape>;
}

/** A runtime with no drivers: refresh returns the stored state, unchanged. */
export const storedStateRuntime: Runtime = {
  refresh: async (device) => device,
  commandCreated: () => {},
  deviceDeleted: () => {},
};
