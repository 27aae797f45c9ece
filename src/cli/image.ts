import { readFileSync } from 'node:fs';
import type { Store } from '../store/store.ts';
import type { CliIo } from './io.ts';
import { resolveDeviceId } from './device-id.ts';
import type { DeviceKind } from '../domain/vocabulary.ts';

/** The kinds the API serves a picture of (/users/{u}/vehicles/{id}/image.png, …/hvacs/{id}/image.png). */
const PICTURED: readonly DeviceKind[] = ['vehicle', 'hvac'];
const LABEL: Partial<Record<DeviceKind, string>> = { vehicle: 'vehicle', hvac: 'HVAC unit' };

export function runImage(store: Store, args: string[], io: CliIo): number {
  const [action, givenId, file] = args;
  if (action !== 'set' || !givenId || !file) {
    io.err('usage: npm run hub -- image set DEVICE_ID FILE.png   (a vehicle or an HVAC unit)');
    return 2;
  }
  const found = resolveDeviceId(store, givenId, PICTURED, 'vehicle or HVAC unit');
  if ('problem' in found) {
    io.err(found.problem);
    return 1;
  }
  const deviceId = found.id;
  let png: Buffer;
  try {
    png = readFileSync(file);
  } catch (err) {
    io.err(`Cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    return 1;
  }
  try {
    const image = store.deviceImages.set(deviceId, png, Date.now());
    const label = LABEL[store.devices.get(deviceId)!.kind] ?? 'device';
    io.out(`Image of ${label} ${deviceId} set (${png.length} bytes, ETag ${image.etag}).`);
    return 0;
  } catch (err) {
    io.err(`${file}: ${(err as Error).message}`);
    return 1;
  }
}
