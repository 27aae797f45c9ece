// Passwords of OCPP chargers (HTTP Basic auth, security profiles 1 and 2). The hub generates them
// (128 random bits as 32 hexadecimal digits: the OCPP 1.6 security whitepaper's AuthorizationKey is
// 16 to 40 characters, and hexadecimal suits every charger's input form) or an installer gives one;
// either is stored only as a salted scrypt hash and compared in constant time.
import { randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';

/**
 * scrypt cost: N = 2^12, r = 8, p = 4. The work of N = 2^14 (tens of ms on a Pi), in 4 MiB instead of
 * 16: the memory of each check stays in glibc's arenas afterwards (measured: 50 checks at 16 MiB
 * left 29 to 64 MB more RSS, at 4 MiB 15), and a gateway has little. A hub-generated password has 128
 * random bits, for which no cost matters; the cost is there for passwords an installer chose.
 */
const N = 4096;
const R = 8;
const P = 4;
const KEY_BYTES = 32;
const MAXMEM = 64 * 1024 * 1024;
const HASH_PATTERN = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;

/** What a password given by an installer must be: 16 to 40 printable ASCII characters (OCPP 1.6 security whitepaper). */
export const PASSWORD_PATTERN = /^[\x21-\x7e]{16,40}$/;
export const PASSWORD_RULE = 'must be 16 to 40 printable ASCII characters without spaces (the OCPP 1.6 security whitepaper\'s AuthorizationKey)';

/**
 * The stored "hash" of a charger imported from a plain export, which leaves the hash out: no password
 * matches it (it is no scrypt hash), and `hub devices secret ID password` replaces it.
 */
export const NO_PASSWORD = 'none';

export function generatePassword(): string {
  return randomBytes(16).toString('hex');
}

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64. */
export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, KEY_BYTES, { N, r: R, p: P, maxmem: MAXMEM });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export function isPasswordHash(text: string): boolean {
  const match = HASH_PATTERN.exec(text);
  if (!match) return false;
  const [n, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // Within what verification will spend: a hash from an import must not make each handshake costly.
  return n >= 1024 && n <= 16384 && (n & (n - 1)) === 0 && r >= 1 && r <= 8 && p >= 1 && p <= 16;
}

/** Whether `password` matches `stored` (constant-time compare of the derived keys). */
export function verifyPassword(password: Buffer | string, stored: string): Promise<boolean> {
  const match = HASH_PATTERN.exec(stored);
  if (!match || !isPasswordHash(stored)) return Promise.resolve(false);
  const expected = Buffer.from(match[5]!, 'base64');
  const options = { N: Number(match[1]), r: Number(match[2]), p: Number(match[3]), maxmem: MAXMEM };
  return new Promise((resolve) => {
    scrypt(password, Buffer.from(match[4]!, 'base64'), expected.length, options, (err, derived) => {
      resolve(!err && derived.length === expected.length && timingSafeEqual(derived, expected));
    });
  });
}

/** Whether `password` matches `stored`, synchronously (the configuration file at start). */
export function verifyPasswordSync(password: string, stored: string): boolean {
  const match = HASH_PATTERN.exec(stored);
  if (!match || !isPasswordHash(stored)) return false;
  const expected = Buffer.from(match[5]!, 'base64');
  const derived = scryptSync(password, Buffer.from(match[4]!, 'base64'), expected.length, { N: Number(match[1]), r: Number(match[2]), p: Number(match[3]), maxmem: MAXMEM });
  return timingSafeEqual(derived, expected);
}
