import { readFileSync } from 'node:fs';
import type { Store } from '../store/store.ts';
import { ImportError, prepareImport } from '../domain/import.ts';
import type { CliIo } from './io.ts';

const MAX_PROBLEMS_SHOWN = 50;
const USAGE = 'usage: npm run hub -- import FILE [--replace]   (a JSON array of device records; --replace: records whose id exists replace those devices)';

export function runImport(store: Store, args: string[], io: CliIo): number {
  const replace = args.includes('--replace');
  const rest = args.filter((a) => a !== '--replace');
  const [file] = rest;
  if (!file || rest.length > 1 || file.startsWith('--')) {
    io.err(USAGE);
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
    // A record with the id of a stored device takes that device over (its name, owner, binding and
    // state): never silently.
    const replaced = prepared.devices.map((d) => store.devices.get(d.id)).filter((d) => d !== undefined);
    if (replaced.length > 0 && !replace) {
      io.err(replaced.length === 1 ? '1 record has the id of an existing device, which importing would replace:'
        : `${replaced.length} records have the ids of existing devices, which importing would replace:`);
      for (const d of replaced.slice(0, MAX_PROBLEMS_SHOWN)) io.err(`  ${d.id}  ${d.kind} ${d.vendor}${d.name ? ` "${d.name}"` : ''} of ${d.userId}`);
      if (replaced.length > MAX_PROBLEMS_SHOWN) io.err(`  … and ${replaced.length - MAX_PROBLEMS_SHOWN} more`);
      io.err('Nothing was imported. Give --replace to replace them, or leave out their ids to add new devices.');
      return 1;
    }
    store.importDevices(prepared.devices, prepared.images, now, prepared.ocppCredentials);
    const ms = Math.round(performance.now() - started);
    io.out(`Imported ${prepared.devices.length} device${prepared.devices.length === 1 ? '' : 's'} (${prepared.images.size} image${prepared.images.size === 1 ? '' : 's'})`
      + `${replaced.length > 0 ? `, ${replaced.length} of them replacing existing devices,` : ''} in ${ms} ms.`);
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
