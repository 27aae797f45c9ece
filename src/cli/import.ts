import { readFileSync } from 'node:fs';
import type { Store } from '../store/store.ts';
import { ImportError, prepareImport } from '../domain/import.ts';
import { bindingIdentity, describeBinding } from '../domain/binding-identity.ts';
import type { DeviceRecord } from '../domain/device.ts';
import type { CliIo } from './io.ts';

const MAX_PROBLEMS_SHOWN = 50;
const USAGE = 'usage: npm run hub -- import FILE [--update]   (a JSON array of device records; --update: a record that is a stored device, by its id or by its binding, updates that device in place; --replace is its older name)';

/** The stored device each binding reaches (by `bindingIdentity`), for `prepareImport`. */
export function boundDeviceLookup(store: Store): (identity: string) => string | undefined {
  const byIdentity = new Map<string, string>();
  for (const device of store.devices.all()) {
    const identity = device.driver ? bindingIdentity(device.kind, device.driver) : null;
    if (identity !== null && !byIdentity.has(identity)) byIdentity.set(identity, device.id);
  }
  return (identity) => byIdentity.get(identity);
}

/** One stored device in a message: its id, kind, maker, name and owner. */
export function describeDevice(d: DeviceRecord): string {
  return `${d.id}  ${d.kind} ${d.vendor}${d.name ? ` "${d.name}"` : ''} of ${d.userId}`;
}

export function runImport(store: Store, args: string[], io: CliIo): number {
  const update = args.includes('--update') || args.includes('--replace');
  const rest = args.filter((a) => a !== '--update' && a !== '--replace');
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
    const prepared = prepareImport(records, now, (id) => store.devices.get(id)?.kind, (cp) => store.ocpp.credential(cp)?.deviceId, boundDeviceLookup(store));
    // A record that is a stored device, by its id or by its binding (the same driver and address,
    // for the same kind), takes that device over (its name, owner, binding and state): never silently.
    const byBinding = new Set(prepared.sameBinding.map((m) => m.id));
    const replaced = prepared.devices.map((d) => store.devices.get(d.id)).filter((d) => d !== undefined && !byBinding.has(d.id)) as DeviceRecord[];
    if ((replaced.length > 0 || byBinding.size > 0) && !update) {
      if (replaced.length > 0) {
        io.err(replaced.length === 1 ? '1 record has the id of an existing device, which importing would replace:'
          : `${replaced.length} records have the ids of existing devices, which importing would replace:`);
        for (const d of replaced.slice(0, MAX_PROBLEMS_SHOWN)) io.err(`  ${describeDevice(d)}`);
        if (replaced.length > MAX_PROBLEMS_SHOWN) io.err(`  … and ${replaced.length - MAX_PROBLEMS_SHOWN} more`);
      }
      if (byBinding.size > 0) {
        io.err(byBinding.size === 1 ? '1 record is bound to a device the hub has already (same driver and address, same kind):'
          : `${byBinding.size} records are bound to devices the hub has already (same driver and address, same kind):`);
        for (const { index, id } of prepared.sameBinding.slice(0, MAX_PROBLEMS_SHOWN)) {
          const d = store.devices.get(id)!;
          io.err(`  record ${index}: ${describeDevice(d)}, at ${d.driver ? describeBinding(d.driver) : '?'}`);
        }
        if (byBinding.size > MAX_PROBLEMS_SHOWN) io.err(`  … and ${byBinding.size - MAX_PROBLEMS_SHOWN} more`);
      }
      io.err(`Nothing was imported. Give --update to update ${replaced.length + byBinding.size === 1 ? 'that device' : 'those devices'} in place${replaced.length > 0 ? ' (--replace does the same), or leave out the ids to add new devices' : ''}.`);
      return 1;
    }
    store.importDevices(prepared.devices, prepared.images, now, prepared.ocppCredentials);
    const ms = Math.round(performance.now() - started);
    io.out(`Imported ${prepared.devices.length} device${prepared.devices.length === 1 ? '' : 's'} (${prepared.images.size} image${prepared.images.size === 1 ? '' : 's'})`
      + `${replaced.length > 0 ? `, ${replaced.length} of them replacing existing devices,` : ''}`
      + `${byBinding.size > 0 ? `, ${byBinding.size} updating the device${byBinding.size === 1 ? '' : 's'} bound there already,` : ''} in ${ms} ms.`);
    for (const { index, id } of prepared.sameBinding) io.out(`  record ${index} updated device ${id} (bound to it already)`);
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
