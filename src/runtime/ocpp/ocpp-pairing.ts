// Chargers being paired from the hub's pairing page. The page shows a freshly generated password;
// from then on (for a while) a charger with a charge point id the hub does not know yet is let in
// with that password, as a draft: its BootNotification and status are heard, so that when the user
// submits the page the charger is there already (it usually connects as soon as its maker's portal
// has the hub's address). Passwords are kept only as SHA-256 digests, in memory.
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { OcppSession } from './ocpp-session.ts';

/** How long a password shown on a pairing page lets a new charger in. */
export const PAIRING_WINDOW_MS = 30 * 60_000;
const MAX_EXPECTED = 100;

interface Draft {
  session: OcppSession;
  digest: string;
  booted: boolean;
}

export class OcppPairing {
  private readonly expected = new Map<string, number>();
  private readonly drafts = new Map<string, Draft>();
  private readonly booted = new EventEmitter();

  constructor(private readonly now: () => number) {
    this.booted.setMaxListeners(100);
  }

  /** A password shown on a pairing page (or submitted from it): new chargers with it are let in. */
  expect(password: string): void {
    const now = this.now();
    for (const [digest, until] of this.expected) if (until <= now) this.expected.delete(digest);
    if (this.expected.size >= MAX_EXPECTED) this.expected.delete(this.expected.keys().next().value!);
    this.expected.set(digestOf(password), now + PAIRING_WINDOW_MS);
  }

  /** Whether a charger unknown to the hub presents a password a pairing page is waiting for. */
  accepts(password: Buffer): boolean {
    const until = this.expected.get(digestOf(password));
    return until !== undefined && until > this.now();
  }

  /** A charger let in for pairing connected: its draft session, tied to the password it used. */
  add(session: OcppSession, password: Buffer): void {
    this.drafts.set(session.chargePointId, { session, digest: digestOf(password), booted: false });
  }

  /** The draft booted: anyone waiting for it is told. */
  markBooted(session: OcppSession): void {
    const draft = this.drafts.get(session.chargePointId);
    if (!draft || draft.session !== session) return;
    draft.booted = true;
    this.booted.emit(session.chargePointId, draft);
  }

  /** The draft of a charge point id (its device is being added), taken out. */
  take(chargePointId: string): OcppSession | undefined {
    const draft = this.drafts.get(chargePointId);
    this.drafts.delete(chargePointId);
    return draft?.session;
  }

  /** Its connection closed before it was paired. */
  drop(session: OcppSession): void {
    if (this.drafts.get(session.chargePointId)?.session === session) this.drafts.delete(session.chargePointId);
  }

  /** Resolves with the draft session once this charger has connected with this password and booted. */
  waitFor(chargePointId: string, password: string, signal: AbortSignal): Promise<OcppSession> {
    const digest = digestOf(password);
    const ready = (draft: Draft | undefined) => draft !== undefined && draft.booted && draft.digest === digest && draft.session.isConnected;
    const now = this.drafts.get(chargePointId);
    if (ready(now)) return Promise.resolve(now!.session);
    return new Promise((resolve, reject) => {
      const onBoot = (draft: Draft) => {
        if (!ready(draft)) return;
        finish();
        resolve(draft.session);
      };
      const onAbort = () => {
        finish();
        reject(signal.reason);
      };
      const finish = () => {
        this.booted.off(chargePointId, onBoot);
        signal.removeEventListener('abort', onAbort);
      };
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      this.booted.on(chargePointId, onBoot);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

function digestOf(password: Buffer | string): string {
  return createHash('sha256').update(password).digest('hex');
}
