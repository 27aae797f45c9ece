import { readFileSync } from 'node:fs';
import type { Store } from '../store/store.ts';
import { ImportError, prepareImport } from '../domain/import.ts';
import type { CliIo } from './hub.ts';

const MAX_PROBLEMS_SHOWN = 50;

export function runImport(store: Store, args: string[], io: CliIo): number {
  const [file] = args;
  if (!file) {
    io.err('usage: hub import FILE   (a JSON array of device records)');
    return 2;
  }
  let records: unknown;
  try {
    records = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    io.err(`Cannot read ${file}: ${reason}`);
    return 1;
  }
  const started = performance.now();
  const now = Date.now();
  try {
    const prepared = prepareImport(records, now, (id) => store.devices.get(id)?.kind, (cp) => store.ocpp.credential(cp)?.deviceId);
    store.importDevices(prepared.devices, prepared.images, now, prepared.ocppCredentials);
    const ms = Math.round(performance.now() - started);
    io.out(`Imported ${prepared.devices.length} device${prepared.devices.length === 1 ? '' : 's'} (${prepared.images.size} image${prepared.images.size === 1 ? '' : 's'}) in ${ms} ms.`);
    return 0;
  } catch (err) {
    if (!(err instanceof ImportError)) throw err;
    for (const p of err.problems.slice(0, MAX_PROBLEMS_SHOWN)) {
      io.err(p.index < 0 ? `${p.field}: ${p.message}` : `record ${p.index}: ${p.field}: ${p.message}`);
    }
    if (err.problems.length > MAX_PROBLEMS_SHOWN) io.err(`… and ${err.problems.length - MAX_PROBLEMS_SHOWN} more`);
    io.err(err.message);
    return 1;
  }
}
