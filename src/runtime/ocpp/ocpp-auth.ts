// Decides an OCPP handshake: a known charge point id with its password (security profiles 1 and 2),
// from a client not over its failure limit; failures count together with bad API keys. A charge
// point id the hub does not know yet is let in only with a password a pairing page showed.
//
// The work a stranger can cause is bounded (150 concurrent bad handshakes, each costing up to two
// scrypts one after another, once delayed a real charger's by 17 s). Everything cheap is decided
// first, without a hash: a client already locked out, an unknown charge point id (ids are printed on
// the chargers, not secrets), a password no charger could send. What is left costs one scrypt at
// most, one at a time, in a bounded queue served in turn by client (IPv4 address or IPv6 /64), so a
// flood from one client delays another's charger by one check, not by the flood: past the bound the
// handshake is answered 503 with Retry-After. A check that waited re-reads the lock-out before
// hashing, and a failure is counted as soon as its hash says so, so a locked-out client costs nothing.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { NO_PASSWORD, verifyPassword } from '../../domain/ocpp-password.ts';
import type { Logger } from '../../log.ts';
import type { Store } from '../../store/store.ts';
import type { HandshakeVerdict } from '../../transport/ocpp-endpoint.ts';
import { clientKey, type AuthFailures } from '../auth-failures.ts';
import type { OcppPairing } from './ocpp-pairing.ts';

/**
 * Password checks waiting or running, from one client and in all. Generous per client: chargers
 * behind one address (a site controller, NAT) all reconnect at once after the hub restarts; a
 * stranger's own checks end at its failure limit anyway.
 */
const QUEUE_LIMITS = { perClient: 32, total: 64 };
/** What a 503 tells the charger to wait: one check takes tens of milliseconds. */
const BUSY_RETRY_AFTER_SECONDS = 1;

export interface OcppAuthenticatorDeps {
  store: Store;
  failures: AuthFailures;
  log: Logger;
  pairing: OcppPairing;
  /** The password hash check (scrypt); tests give a slower or counting one. */
  verify?: (password: Buffer | string, stored: string) => Promise<boolean>;
  /** The queue's bounds (tests make them small). */
  queue?: { perClient: number; total: number };
}

/** What the authenticator has spent and refused, for tests and the bench. */
export interface OcppAuthStats {
  /** Password hashes computed. */
  hashes: number;
  /** Handshakes answered 503 because the queue was full. */
  busy: number;
  /** The most checks ever waiting or running at once. */
  maxQueued: number;
}

export class OcppAuthenticator {
  /**
   * Password checks waiting, by client, clients in the order they are served: one at a time (each
   * costs scrypt's memory, and a gateway has little), the next client's turn after each check.
   */
  private readonly waiting = new Map<string, Array<() => Promise<void>>>();
  private running = false;
  private queued = 0;
  private readonly queuedByClient = new Map<string, number>();
  private readonly limits: { perClient: number; total: number };
  readonly stats: OcppAuthStats = { hashes: 0, busy: 0, maxQueued: 0 };
  /**
   * Passwords that passed scrypt, by charge point id, as an HMAC under a key of this process only
   * (never stored): a reconnection costs a hash, not a scrypt. Tied to the stored hash, so a new
   * password (an import, the configuration file) is checked afresh.
   */
  private readonly verified = new Map<string, { hash: string; digest: Buffer }>();
  private readonly memoKey = randomBytes(32);
  /** Identities just let in for pairing, until their connection arrives, with the password they used. */
  private readonly letIn = new Map<string, Buffer>();
  private readonly verify: (password: Buffer | string, stored: string) => Promise<boolean>;

  constructor(private readonly deps: OcppAuthenticatorDeps) {
    this.verify = deps.verify ?? verifyPassword;
    this.limits = deps.queue ?? QUEUE_LIMITS;
  }

  /** The password an identity was let in for pairing with, taken out (undefined when it was not). */
  takeLetIn(identity: string): Buffer | undefined {
    const password = this.letIn.get(identity);
    this.letIn.delete(identity);
    return password;
  }

  async authenticate(identity: string, password: Buffer | undefined, remoteAddress: string): Promise<HandshakeVerdict> {
    const lockedOut = this.lockedOut(remoteAddress);
    if (lockedOut) return lockedOut;
    this.deps.store.sync(); // a charger imported by the CLI a moment ago is known
    const credential = this.deps.store.ocpp.credential(identity);
    if (!credential) {
      // A new charger with the password a pairing page shows: let in as a draft until it is added.
      if (password !== undefined && this.deps.pairing.accepts(password)) {
        this.letIn.set(identity, password);
        return { accept: true };
      }
      return this.refused(identity, remoteAddress, false);
    }
    const hash = credential.passwordHash;
    // NO_PASSWORD: imported from a plain export, waiting for `hub devices secret ID password`.
    if (password === undefined || hash === NO_PASSWORD) return this.refused(identity, remoteAddress, true);
    // A charger reconnecting with the password that let it in before is known without scrypt.
    const seen = this.verified.get(identity);
    if (seen && seen.hash === hash && timingSafeEqual(seen.digest, this.digest(password))) return { accept: true };
    const candidate = passwordCandidate(password);
    if (candidate === undefined) return this.refused(identity, remoteAddress, true);

    const client = clientKey(remoteAddress);
    const fromClient = this.queuedByClient.get(client) ?? 0;
    if (this.queued >= this.limits.total || fromClient >= this.limits.perClient) {
      this.stats.busy++;
      if (this.stats.busy === 1 || this.stats.busy % 100 === 0) {
        this.deps.log.warn({ refused: this.stats.busy, remoteAddress }, 'ocpp: password checks queue full: handshakes refused with 503');
      }
      return { accept: false, status: 503, reason: 'The central system is busy checking other chargers; try again', retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS };
    }
    this.queued++;
    this.stats.maxQueued = Math.max(this.stats.maxQueued, this.queued);
    this.queuedByClient.set(client, fromClient + 1);
    try {
      return await this.inTurn(client, async (): Promise<HandshakeVerdict> => {
        // Failures may have piled up while this one waited: a client locked out meanwhile costs nothing.
        const lockedNow = this.lockedOut(remoteAddress);
        if (lockedNow) return lockedNow;
        this.stats.hashes++;
        if (!(await this.verify(candidate, hash))) return this.refused(identity, remoteAddress, true);
        this.verified.set(identity, { hash, digest: this.digest(password) });
        return { accept: true };
      });
    } finally {
      this.queued--;
      const left = (this.queuedByClient.get(client) ?? 1) - 1;
      if (left > 0) this.queuedByClient.set(client, left);
      else this.queuedByClient.delete(client);
    }
  }

  /** Runs `check` when its turn comes: one check at a time, clients in turn. */
  private inTurn<T>(client: string, check: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const job = () => check().then(resolve, reject);
      const jobs = this.waiting.get(client);
      if (jobs) jobs.push(job);
      else this.waiting.set(client, [job]);
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let next = this.waiting.entries().next(); !next.done; next = this.waiting.entries().next()) {
        const [client, jobs] = next.value;
        await jobs.shift()!();
        // This client goes to the back of the line (with what it sent meanwhile): the others' turns come first.
        this.waiting.delete(client);
        if (jobs.length > 0) this.waiting.set(client, jobs);
      }
    } finally {
      this.running = false;
    }
  }

  private lockedOut(remoteAddress: string): HandshakeVerdict | undefined {
    const retryAfterSeconds = this.deps.failures.retryAfterSeconds(remoteAddress);
    return retryAfterSeconds > 0 ? { accept: false, status: 429, reason: 'Too many failed authentication attempts', retryAfterSeconds } : undefined;
  }

  private refused(identity: string, remoteAddress: string, known: boolean): HandshakeVerdict {
    this.deps.failures.count(remoteAddress);
    this.deps.log.info({ chargePointId: identity, remoteAddress, known }, 'ocpp: charger refused: unknown charge point id or wrong password');
    return { accept: false, status: 401, reason: 'Unknown charge point or wrong password' };
  }

  private digest(password: Buffer): Buffer {
    return createHmac('sha256', this.memoKey).update(password).digest();
  }
}

/**
 * The one text a password received may be, or undefined when no charger could send it. A password
 * is 16 to 40 printable ASCII characters (the OCPP 1.6 security whitepaper's AuthorizationKey). The
 * whitepaper also makes the AuthorizationKey a hexadecimal text of the password's bytes, and chargers
 * that follow it (Zaptec by default: its configuration key UseAuthorizationKeyWithoutDecoding is
 * false) send the decoded bytes: 8 to 20 bytes, not all printable, which written in hexadecimal
 * again are the password (the hub's are 32 hexadecimal digits, 16 bytes so sent).
 */
export function passwordCandidate(password: Buffer): Buffer | string | undefined {
  if (password.length >= 16 && password.length <= 40 && isPrintableAscii(password)) return password;
  if (password.length >= 8 && password.length <= 20 && !isPrintableAscii(password)) return password.toString('hex');
  return undefined;
}

function isPrintableAscii(bytes: Buffer): boolean {
  return bytes.every((b) => b >= 0x21 && b <= 0x7e);
}
