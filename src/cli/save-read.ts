// Saving a device `hub devices add` has just read, whatever its transport: the read is a
// measurement, so it stamps the device and its state (whole seconds), and the record goes through
// the importer as any other.
import type { DriverBinding } from '../domain/device.ts';
import { STATE_KEY } from '../domain/device.ts';
import { prepareImport, type ImportError } from '../domain/import.ts';
import { formatTimestamp } from '../domain/time.ts';
import type { DeviceKind } from '../domain/vocabulary.ts';
import type { Store } from '../store/store.ts';
import type { CliIo } from './modbus-args.ts';
import { describeBinding } from '../domain/binding-identity.ts';
import { boundDevices } from './import.ts';

export interface ReadDevice {
  kind: DeviceKind;
  userId: string;
  binding: DriverBinding;
  staticData: { vendor: string; model: string } & Record<string, unknown>;
  state: Record<string, unknown>;
  /** An HVAC's type (AC…). */
  hvacType?: string;
}

/**
 * Imports the device (throws ImportError when the importer refuses it) and says so. A device bound
 * there already (same driver and address, same kind) is not added twice: without `update` nothing
 * changes and the existing device is named (false); with it, that device takes what was just read,
 * keeping its name and place unless new ones are given.
 */
export function saveReadDevice(store: Store, device: ReadDevice, io: CliIo, update = false): boolean {
  const readAt = formatTimestamp(Math.floor(Date.now() / 1000) * 1000);
  const stamped = { lastUpdated: readAt, ...device.state };
  const stateKey = STATE_KEY[device.kind];
  const record = {
    kind: device.kind, userId: device.userId, isOnline: true, driver: device.binding, lastUpdated: readAt,
    ...(device.hvacType ? { type: device.hvacType } : {}),
    staticData: device.staticData,
    ...(stateKey ? { [stateKey]: stamped } : {}),
  };
  const now = Date.now();
  const prepared = prepareImport([record], now, (id) => store.devices.get(id)?.kind, undefined, boundDevices(store));
  const saved = prepared.devices[0]!;
  const existing = prepared.sameBinding.length > 0 ? store.devices.get(saved.id) : undefined;
  if (existing && !update) {
    io.err(`this ${device.kind} is device ${existing.id} already (${existing.vendor}${existing.name ? ` "${existing.name}"` : ''} of ${existing.userId}, at ${describeBinding(device.binding)}): nothing changed; give --update to update it in place`);
    return false;
  }
  // Kinds without a state object in the API (meters, HVACs) keep their readings too.
  if (!stateKey) saved.state = stamped;
  if (existing) {
    saved.name ??= existing.name;
    saved.locationId ??= existing.locationId;
    saved.createdAtMs = existing.createdAtMs;
  }
  store.importDevices(prepared.devices, prepared.images, now);
  io.out(`${existing ? 'updated' : 'added'} ${device.kind} ${saved.id} (${device.staticData.vendor} ${device.staticData.model}) for ${device.userId}`);
  return true;
}

/** Why the importer refused a device `devices add` read: its own reasons, not a count of them. */
export function saveProblem(err: ImportError): string {
  return `cannot save the device: ${err.problems.map((problem) => `${problem.field}: ${problem.message}`).join('; ')}`;
}
