// Decides an OCPP handshake: a known charge point id with its password (security profiles 1 and 2),
// from a client address not over its failure limit; failures count together with bad API keys. A
// charge point id the hub does not know yet is let in only with a password a pairing page showed.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { unknownIdentityHash, verifyPassword } from '../../domain/ocpp-password.ts';
import type { Clock } from '../../domain/time.ts';
import type { Logger } from '../../log.ts';
import type { Store } from '../../store/store.ts';
import type { HandshakeVerdict } from '../../transport/ocpp-endpoint.ts';
import type { AuthFailures } from '../auth-failures.ts';
import type { OcppPairing } from './ocpp-pairing.ts';

export interface OcppAuthenticatorDeps {
  store: Store;
  failures: AuthFailures;
  clock: Clock;
  log: Logger;
  pairing: OcppPairing;
}

export class OcppAuthenticator {
  /** Password checks run one at a time: each costs scrypt's memory, and a gateway has little. */
  private verifying: Promise<unknown> = Promise.resolve();
  /**
   * Passwords that passed scrypt, by charge point id, as an HMAC under a key of this process only
   * (never stored): a reconnection costs a hash, not a scrypt. Tied to the stored hash, so a new
   * password (an import, the configuration file) is checked afresh.
   */
  private readonly verified = new Map<string, { hash: string; digest: Buffer }>();
  private readonly memoKey = randomBytes(32);
  /** Identities just let in for pairing, until their connection arrives, with the password they used. */
  private readonly letIn = new Map<string, Buffer>();

  constructor(private readonly deps: OcppAuthenticatorDeps) {}

  /** The password an identity was let in for pairing with, taken out (undefined when it was not). */
  takeLetIn(identity: string): Buffer | undefined {
    const password = this.letIn.get(identity);
    this.letIn.delete(identity);
    return password;
  }

  authenticate(identity: string, password: Buffer | undefined, remoteAddress: string): Promise<HandshakeVerdict> {
    const check = this.verifying.then(async (): Promise<HandshakeVerdict> => {
      const now = this.deps.clock.now();
      if (this.deps.failures.retryAfterSeconds(remoteAddress, now) > 0) {
        return { accept: false, status: 429, reason: 'Too many failed authentication attempts' };
      }
      this.deps.store.sync(); // a charger imported by the CLI a moment ago is known
      const credential = this.deps.store.ocpp.credential(identity);
      // An unknown identity costs what a wrong password costs, and is answered the same.
      const hash = credential?.passwordHash ?? unknownIdentityHash();
      // A charger reconnecting with the password that let it in before is known without scrypt.
      const seen = credential && password !== undefined ? this.verified.get(identity) : undefined;
      if (seen && seen.hash === hash && timingSafeEqual(seen.digest, this.digest(password!))) return { accept: true };
      let matches = await verifyPassword(password ?? Buffer.alloc(0), hash);
      // The OCPP 1.6 security whitepaper makes the AuthorizationKey a hexadecimal text of the
      // password's bytes, and chargers that follow it (Zaptec by default: its configuration key
      // UseAuthorizationKeyWithoutDecoding is false) send the decoded bytes: 16 bytes for the
      // hub's 32 hexadecimal digits. Those bytes, written in hexadecimal again, are the password.
      if (!matches && password !== undefined && password.length >= 8 && password.length <= 20 && !isPrintableAscii(password)) {
        matches = await verifyPassword(password.toString('hex'), hash);
      }
      if (credential && password !== undefined && matches) {
        this.verified.set(identity, { hash, digest: this.digest(password) });
        return { accept: true };
      }
      // A new charger with the password a pairing page shows: let in as a draft until it is added.
      if (!credential && password !== undefined && this.deps.pairing.accepts(password)) {
        this.letIn.set(identity, password);
        return { accept: true };
      }
      this.deps.failures.count(remoteAddress, this.deps.clock.now());
      this.deps.log.info({ chargePointId: identity, remoteAddress, known: credential !== undefined }, 'ocpp: charger refused: unknown charge point id or wrong password');
      return { accept: false, status: 401, reason: 'Unknown charge point or wrong password' };
    });
    this.verifying = check.catch(() => {});
    return check;
  }

  private digest(password: Buffer): Buffer {
    return createHmac('sha256', this.memoKey).update(password).digest();
  }
}

function isPrintableAscii(bytes: Buffer): boolean {
  return bytes.every((b) => b >= 0x21 && b <= 0x7e);
}
