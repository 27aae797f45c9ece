import { readFileSync } from 'node:fs';
import type { Store } from '../store/store.ts';
import type { CliIo } from './io.ts';
import { resolveDeviceId } from './device-id.ts';

export function runImage(store: Store, args: string[], io: CliIo): number {
  const [action, givenId, file] = args;
  if (action !== 'set' || !givenId || !file) {
    io.err('usage: npm run hub -- image set VEHICLE_ID FILE.png');
    return 2;
  }
  const found = resolveDeviceId(store, givenId, 'vehicle');
  if ('problem' in found) {
    io.err(found.problem);
    return 1;
  }
  const vehicleId = found.id;
  let png: Buffer;
  try {
    png = readFileSync(file);
  } catch (err) {
    io.err(`Cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    return 1;
  }
  try {
    const image = store.vehicleImages.set(vehicleId, png, Date.now());
    io.out(`Image of vehicle ${vehicleId} set (${png.length} bytes, ETag ${image.etag}).`);
    return 0;
  } catch (err) {
    io.err(`${file}: ${(err as Error).message}`);
    return 1;
  }
}
