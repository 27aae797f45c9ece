// Export: each device as an import record (the API's detail shape plus `kind`), so that
// `hub export` then `hub import` on another hub gives the same devices.
import { STATE_KEY, type DeviceRecord, type DriverBinding } from './device.ts';
import { formatTimestamp } from './time.ts';

/**
 * `ocppPasswordHash`: an OCPP charger's stored password hash, exported in its binding so that an
 * import on another hub lets the same charger in. The password itself is never stored, so never exported.
 */
export function toImportRecord(device: DeviceRecord, image?: Buffer, ocppPasswordHash?: string): Record<string, unknown> {
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
    const driver = withoutCloudLogin(device.driver);
    record['driver'] = ocppPasswordHash ? { ...driver, passwordHash: ocppPasswordHash } : driver;
  }
  if (image) record['image'] = image.toString('base64');
  return record;
}

/** A car's login to its maker's cloud: BMW CarData's and Volvo's refresh tokens, Volvo's application secrets. */
const CLOUD_SECRETS = ['refreshToken', 'clientSecret', 'vccApiKey'];

/**
 * A car's login to its maker's cloud is not exported: a refresh token is good once (a copy would
 * fight the hub for it), and an export is a file that travels. A car imported without it is shown
 * offline with a new login due.
 */
function withoutCloudLogin(driver: DriverBinding): DriverBinding {
  if (!CLOUD_SECRETS.some((key) => key in driver)) return driver;
  return Object.fromEntries(Object.entries(driver).filter(([key]) => !CLOUD_SECRETS.includes(key))) as DriverBinding;
}
