// Device secrets sealed with a passphrase, for `hub export --with-secrets` and its import: AES-256-GCM
// (NIST SP 800-38D; a fresh 96-bit IV per file) under a key derived from the passphrase by scrypt
// (RFC 7914) with OWASP's Password Storage Cheat Sheet's parameters N=2^15, r=8, p=3 (32 MiB).
// GCM's tag makes a wrong passphrase and a changed file the same refusal. Each device's secrets are
// sealed with its binding (without them): an import gives a secret back only to the binding it was
// taken from, so that an edited file cannot send an Envoy's token to another host.
import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';
import type { DriverBinding } from './device.ts';

export interface SealedSecrets {
  cipher: 'aes-256-gcm';
  kdf: 'scrypt';
  N: number;
  r: number;
  p: number;
  salt: string;
  iv: string;
  tag: string;
  data: string;
}

/** What is sealed for one device: its secrets, and the binding they belong to. */
export interface DeviceSecrets {
  binding: DriverBinding;
  secrets: Record<string, unknown>;
}

/** The shortest passphrase accepted for sealing: it is all that guards the secrets of a file that travels. */
export const MIN_PASSPHRASE_LENGTH = 12;

/**
 * The only parameters accepted from a file, checked before anything is derived: a crafted export
 * with N=2^20, r=16 (within any range loose enough to be useful) made an import spend 2.2 GB and
 * 13 s before refusing. A hub only ever writes these, so nothing else is a hub's export.
 */
const KDF = { N: 2 ** 15, r: 8, p: 3 } as const;
/** AES-256: the length of the key derived, the only one the hub derives. */
const KEY_BYTES = 32;

export class SecretsNotOpenedError extends Error {
  constructor() {
    super('the passphrase does not open the secrets in this export (a wrong passphrase, or the file was changed)');
    this.name = 'SecretsNotOpenedError';
  }
}

/** The sealed block is not as the hub writes it (hand-edited, or not an export of this hub). */
export class SealedFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealedFormatError';
  }
}

export async function sealSecrets(byDevice: Record<string, DeviceSecrets>, passphrase: string): Promise<SealedSecrets> {
  if (passphrase.length < MIN_PASSPHRASE_LENGTH) throw new Error(`the passphrase must be at least ${MIN_PASSPHRASE_LENGTH} characters long`);
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const header = { cipher: 'aes-256-gcm', kdf: 'scrypt', ...KDF, salt: salt.toString('base64'), iv: iv.toString('base64') } as const;
  const key = await deriveKey(passphrase, salt, KDF);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(headerAad(header));
  const data = Buffer.concat([cipher.update(JSON.stringify(byDevice), 'utf8'), cipher.final()]);
  return { ...header, tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
}

/** The sealed secrets by device id; throws SecretsNotOpenedError for a wrong passphrase or a changed file. */
export async function openSecrets(sealed: unknown, passphrase: string): Promise<Record<string, DeviceSecrets>> {
  const s = checkSealed(sealed);
  const key = await deriveKey(passphrase, Buffer.from(s.salt, 'base64'), s);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(s.iv, 'base64'));
  decipher.setAAD(headerAad(s));
  decipher.setAuthTag(Buffer.from(s.tag, 'base64'));
  let text: string;
  try {
    text = Buffer.concat([decipher.update(Buffer.from(s.data, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretsNotOpenedError();
  }
  // Authenticated, so written by a hub that knew the passphrase: its shape is the hub's own.
  return JSON.parse(text) as Record<string, DeviceSecrets>;
}

/** The header is authenticated too: parameters changed in the file are refused like a wrong passphrase. */
function headerAad(s: Pick<SealedSecrets, 'cipher' | 'kdf' | 'N' | 'r' | 'p' | 'salt' | 'iv'>): Buffer {
  return Buffer.from(JSON.stringify([s.cipher, s.kdf, s.N, s.r, s.p, s.salt, s.iv]), 'utf8');
}

function deriveKey(passphrase: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // scrypt needs 128·N·r bytes; Node's default limit (32 MiB) is just short of that at N=2^15, r=8.
    scrypt(passphrase.normalize('NFC'), salt, KEY_BYTES, { ...params, maxmem: 256 * params.N * params.r }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

function checkSealed(value: unknown): SealedSecrets {
  const s = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const text = (v: unknown) => typeof v === 'string' && v.length > 0;
  const ok = s['cipher'] === 'aes-256-gcm' && s['kdf'] === 'scrypt' && text(s['salt']) && text(s['iv']) && text(s['tag']) && typeof s['data'] === 'string';
  if (!ok) throw new SealedFormatError('the export\'s "secrets" are not sealed as the hub seals them (aes-256-gcm, scrypt, salt, iv, tag, data)');
  if (s['N'] !== KDF.N || s['r'] !== KDF.r || s['p'] !== KDF.p) {
    throw new SealedFormatError(`the export's "secrets" are sealed with scrypt parameters the hub never writes (N=${String(s['N']).slice(0, 20)}, r=${String(s['r']).slice(0, 20)}, p=${String(s['p']).slice(0, 20)}; a hub writes N=${KDF.N}, r=${KDF.r}, p=${KDF.p}): nothing was derived from the passphrase`);
  }
  return s as unknown as SealedSecrets;
}
