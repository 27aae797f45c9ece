import { readFileSync } from 'node:fs';
import type { Store } from '../store/store.ts';
import { ImportError, prepareImport, type BoundDevices } from '../domain/import.ts';
import { describeBinding, devicesByIdentity, identityWith, type BindingDefaults } from '../domain/binding-identity.ts';
import { builtInBindingDefaults } from '../binding-defaults.ts';
import type { DeviceRecord, DriverBinding } from '../domain/device.ts';
import { openSecrets, SealedFormatError, SecretsNotOpenedError, type DeviceSecrets } from '../domain/sealed-secrets.ts';
import { canonicalJson, withoutSecrets } from '../domain/secrets.ts';
import type { CliIo } from './io.ts';
import { SEALED_EXPORT_FORMAT } from './export.ts';
import { PASSPHRASE_ENV, passphraseOf, takeOption } from './passphrase.ts';

const MAX_PROBLEMS_SHOWN = 50;
const USAGE = `usage: npm run hub -- import FILE [--update] [--passphrase-file F | --without-secrets]
  FILE: a JSON array of device records, or an export with sealed secrets (hub export --with-secrets)
  --update: a record that is a stored device, by its id or by its binding, updates that device in place (--replace is its older name)
  --passphrase-file F (or ${PASSPHRASE_ENV}): the passphrase that opens an export's sealed secrets
  --without-secrets: import such an export without its secrets (the devices are offline until given them again)`;

/** The stored device each binding reaches (by `bindingIdentity`, the drivers' defaults applied), for `prepareImport`. */
export function boundDevices(store: Store, defaults: BindingDefaults = builtInBindingDefaults()): BoundDevices {
  const identityOf = identityWith(defaults);
  const byIdentity = devicesByIdentity(store.devices.all(), identityOf);
  return { identityOf, deviceAt: (identity) => byIdentity.get(identity)?.id };
}

/** One stored device in a message: its id, kind, maker, name and owner. */
export function describeDevice(d: DeviceRecord): string {
  return `${d.id}  ${d.kind} ${d.vendor}${d.name ? ` "${d.name}"` : ''} of ${d.userId}`;
}

export async function runImport(store: Store, args: string[], io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const update = args.includes('--update') || args.includes('--replace');
  const leaveSecretsOut = args.includes('--without-secrets');
  const { value: passphraseFile, rest } = takeOption(args.filter((a) => a !== '--update' && a !== '--replace' && a !== '--without-secrets'), 'passphrase-file');
  const [file] = rest;
  if (!file || rest.length > 1 || file.startsWith('--') || (leaveSecretsOut && passphraseFile !== undefined)) {
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
  if (isSealedExport(records)) {
    let passphrase: string | undefined;
    try {
      passphrase = leaveSecretsOut ? undefined : passphraseOf(passphraseFile, env);
    } catch (err) {
      io.err(`${(err as Error).message}; nothing was imported`);
      return 1;
    }
    if (!leaveSecretsOut && passphrase === undefined) {
      io.err(`${file} carries device secrets sealed with a passphrase: give it with --passphrase-file FILE or ${PASSPHRASE_ENV}, `
        + 'or give --without-secrets to import the devices without them (offline until each is given its secret again with `hub devices secret`). Nothing was imported.');
      return 1;
    }
    try {
      records = passphrase === undefined ? records.devices : withSecrets(records, await openSecrets(records.secrets, passphrase), io);
    } catch (err) {
      // Each says what is wrong in its own words, none of them with a secret.
      if (!(err instanceof SecretsNotOpenedError || err instanceof SealedMismatchError || err instanceof SealedFormatError)) throw err;
      io.err(`${err.message}. Nothing was imported.`);
      return 1;
    }
  } else if (passphraseFile !== undefined || leaveSecretsOut) {
    io.err(`${file} holds no sealed secrets (a plain export has none): --${leaveSecretsOut ? 'without-secrets' : 'passphrase-file'} changes nothing`);
  }
  const started = performance.now();
  const now = Date.now();
  try {
    const prepared = prepareImport(records, now, (id) => store.devices.get(id)?.kind, (cp) => store.ocpp.credential(cp)?.deviceId, boundDevices(store));
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

interface SealedExport {
  format: string;
  devices: unknown;
  secrets: unknown;
}

function isSealedExport(value: unknown): value is SealedExport {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && (value as Record<string, unknown>)['format'] === SEALED_EXPORT_FORMAT;
}

class SealedMismatchError extends Error {}

/** The export's records, each given back the secrets sealed for it, when its binding is still the one they were sealed with. */
function withSecrets(file: SealedExport, sealed: Record<string, DeviceSecrets>, io: CliIo): unknown {
  if (!Array.isArray(file.devices)) return file.devices;
  let given = 0;
  const records = file.devices.map((raw: unknown, index) => {
    const record = raw as Record<string, unknown> | null;
    const id = typeof record?.['id'] === 'string' ? record['id'] : undefined;
    const secrets = id !== undefined ? sealed[id] : undefined;
    if (!secrets) return raw;
    const driver = record!['driver'];
    // The file's binding may have been edited (another host): the secret is not sent where it was not meant to go.
    if (!isObject(driver) || canonicalJson(withoutSecrets(driver as DriverBinding)) !== canonicalJson(secrets.binding)) {
      throw new SealedMismatchError(`record ${index}: its driver binding is not the one its secrets were sealed with (was the file edited?); `
        + 'import with --without-secrets and give the secrets again with `hub devices secret`');
    }
    given++;
    return { ...record, driver: { ...driver, ...secrets.secrets } };
  });
  io.err(`the passphrase opened the secrets of ${given} device${given === 1 ? '' : 's'}`);
  return records;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
