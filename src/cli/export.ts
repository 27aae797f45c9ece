import { writeFileSync } from 'node:fs';
import type { Store } from '../store/store.ts';
import { toImportRecord } from '../domain/export.ts';
import type { CliIo } from './io.ts';

/** `hub export FILE`: every device as an import record (with vehicle images); `-` for stdout. */
export function runExport(store: Store, args: string[], io: CliIo): number {
  const [file] = args;
  if (!file) {
    io.err('usage: npm run hub -- export FILE   (- for standard output)');
    return 2;
  }
  const records = store.devices.all().map((d) => toImportRecord(
    d, d.kind === 'vehicle' ? store.vehicleImages.get(d.id)?.png : undefined, store.ocpp.credentialOfDeviceId(d.id)?.passwordHash));
  const text = `${JSON.stringify(records, null, 2)}\n`;
  if (file === '-') {
    process.stdout.write(text);
  } else {
    writeFileSync(file, text, { mode: 0o600 });
    io.out(`Exported ${records.length} device${records.length === 1 ? '' : 's'} to ${file}.`);
  }
  return 0;
}
