// `hub export FILE`: every device as an import record, without its secrets (src/domain/export.ts).
// With --with-secrets the file is an object: the same records under `devices`, and the device
// secrets sealed with a passphrase under `secrets` (src/domain/sealed-secrets.ts).
import { writeFileSync } from 'node:fs';
import type { Store } from '../store/store.ts';
import { sealableSecrets, toImportRecord } from '../domain/export.ts';
import { splitSecrets } from '../domain/secrets.ts';
import { isOcppBinding } from '../domain/ocpp-binding.ts';
import { MIN_PASSPHRASE_LENGTH, sealSecrets, type DeviceSecrets } from '../domain/sealed-secrets.ts';
import type { CliIo } from './io.ts';
import { PASSPHRASE_ENV, passphraseOf, takeOption } from './passphrase.ts';

/** What names an export with sealed secrets, so that `hub import` tells it from a plain list. */
export const SEALED_EXPORT_FORMAT = 'home-energy-hub export with sealed secrets';

const USAGE = `usage: npm run hub -- export FILE [--with-secrets [--passphrase-file F]]   (- for standard output)
  without --with-secrets no device secret is written (tokens, passwords, an OCPP charger's password hash)
  --with-secrets: the secrets sealed with a passphrase (AES-256-GCM, scrypt) from --passphrase-file or ${PASSPHRASE_ENV}`;

export async function runExport(store: Store, args: string[], io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const withSecrets = args.includes('--with-secrets');
  const { value: passphraseFile, rest } = takeOption(args.filter((a) => a !== '--with-secrets'), 'passphrase-file');
  const [file] = rest;
  if (!file || rest.length > 1 || (file.startsWith('--') && file !== '-') || (passphraseFile !== undefined && !withSecrets)) {
    io.err(USAGE);
    return 2;
  }
  let passphrase: string | undefined;
  if (withSecrets) {
    try {
      passphrase = passphraseOf(passphraseFile, env);
    } catch (err) {
      io.err((err as Error).message);
      return 1;
    }
    if (passphrase === undefined || passphrase.length < MIN_PASSPHRASE_LENGTH) {
      io.err(`--with-secrets needs a passphrase of at least ${MIN_PASSPHRASE_LENGTH} characters, from --passphrase-file FILE or ${PASSPHRASE_ENV}; nothing was exported`);
      return 2;
    }
  }
  const devices = store.devices.all();
  const records = devices.map((d) => toImportRecord(d, store.deviceImages.get(d.id)?.png));
  let document: unknown = records;
  let sealed = 0;
  if (passphrase !== undefined) {
    const secrets: Record<string, DeviceSecrets> = {};
    for (const device of devices) {
      const carried = sealableSecrets(device, store.ocpp.credentialOfDeviceId(device.id)?.passwordHash);
      if (carried) secrets[device.id] = carried;
    }
    sealed = Object.keys(secrets).length;
    document = { format: SEALED_EXPORT_FORMAT, version: 1, devices: records, secrets: await sealSecrets(secrets, passphrase) };
  }
  const text = `${JSON.stringify(document, null, 2)}\n`;
  if (file === '-') {
    process.stdout.write(text);
  } else {
    writeFileSync(file, text, { mode: 0o600 });
    const withSome = devices.filter((d) => d.driver && (Object.keys(splitSecrets(d.driver).secrets).length > 0 || isOcppBinding(d.driver))).length;
    io.out(`Exported ${records.length} device${records.length === 1 ? '' : 's'} to ${file}${passphrase !== undefined
      ? `, with the secrets of ${sealed} sealed with the passphrase (keep it apart from the file)`
      : withSome > 0 ? `; ${withSome} of them without their secrets (tokens, passwords): an import shows them offline until they are given again` : ''}.`);
  }
  return 0;
}
