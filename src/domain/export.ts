// Export: each device as an import record (the API's detail shape plus `kind`), so that
// `hub export` then `hub import` on another hub gives the same devices, without their secrets.
import { STATE_KEY, type DeviceRecord } from './device.ts';
import { isOcppBinding } from './ocpp-binding.ts';
import { isSingleUseSecret, splitSecrets } from './secrets.ts';
import type { DeviceSecrets } from './sealed-secrets.ts';
import { formatTimestamp } from './time.ts';

/**
 * An export is a file that travels (by mail, on a stick, into a support ticket), so no device
 * secret is in it in the clear (src/domain/secrets.ts says what one is): an Envoy's token, a
 * Powerwall's password, a car's cloud login are left out of the binding. A device that had one is
 * exported offline: the hub that imports it cannot reach it until the secret is given again, and
 * says so as its offline reason (also when the secrets travel sealed beside the records, `hub export
 * --with-secrets`: an import may leave them out; one that gives them back finds the device online at
 * its first read). An OCPP charger's password is stored only as its hash, and even that is left out:
 * scrypt at N=2^12 makes an installer's password guessable offline from a file that travels. It
 * travels only sealed (sealableSecrets).
 */
export function toImportRecord(device: DeviceRecord, image?: Buffer): Record<string, unknown> {
  const record: Record<string, unknown> = { kind: device.kind, id: device.id, userId: device.userId, isOnline: device.isOnline };
  if (device.lastUpdatedMs !== null) record['lastUpdated'] = formatTimestamp(device.lastUpdatedMs);
  if (device.locationId !== null) record['locationId'] = device.locationId;
  if (device.hvacType !== null) record['type'] = device.hvacType;
  const staticData: Record<string, unknown> = { ...device.staticData, vendor: device.vendor };
  if (device.name !== null) staticData['name'] = device.name;
  if (device.model !== null) staticData['model'] = device.model;
  record['staticData'] = staticData;
  const stateKey = STATE_KEY[device.kind];
  if (stateKey && device.state) record[stateKey] = device.state;
  if (device.driver) {
    const { binding, secrets } = splitSecrets(device.driver);
    if (Object.keys(secrets).length > 0 || isOcppBinding(device.driver)) record['isOnline'] = false;
    record['driver'] = binding;
  }
  if (image) record['image'] = image.toString('base64');
  return record;
}

/**
 * The secrets of a device that may travel sealed (all but a single-use refresh token), with the
 * binding they belong to as exported; undefined when it has none. `ocppPasswordHash`: an OCPP
 * charger's stored password hash, sealed as its binding's `passwordHash`, so that an import on
 * another hub lets the same charger in.
 */
export function sealableSecrets(device: DeviceRecord, ocppPasswordHash?: string): DeviceSecrets | undefined {
  if (!device.driver) return undefined;
  const { binding, secrets } = splitSecrets(device.driver);
  if (ocppPasswordHash !== undefined && isOcppBinding(device.driver)) secrets['passwordHash'] = ocppPasswordHash;
  const carried = Object.fromEntries(Object.entries(secrets).filter(([name]) => !isSingleUseSecret(name)));
  return Object.keys(carried).length > 0 ? { binding, secrets: carried } : undefined;
}
