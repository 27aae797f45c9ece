// Redelivery protection for the relay. MQTT's QoS 1 may deliver a request twice (a partner's client
// resending after a lost acknowledgement), and a command carried out twice is two commands. A
// redelivery is the same request under the same response topic and correlation data: the same
// method, path, headers and body (the fingerprint). A different request that reuses correlation
// data (a partner counting from 1 again) is a new call and is carried out; it never gets another's
// answer.
//
// A duplicate that arrives while the first is still being carried out waits for that one's answer.
// Once answered, a write's answer is kept for the window (a later redelivery gets it again); a read's
// is not (reading again is harmless and its answer would be stale). Entries and bytes are bounded.
import { createHash } from 'node:crypto';
import type { RelayResponse } from './relay-request.ts';

export interface ReplayLimits {
  /** Requests remembered at most (pending and answered). */
  maxEntries: number;
  /** Bytes of kept answers at most; an answer bigger than this is not kept. */
  maxBytes: number;
  /** How long an answered write is recognised as redelivered. */
  windowMs: number;
}

export const DEFAULT_REPLAY_LIMITS: ReplayLimits = { maxEntries: 500, maxBytes: 8 * 1024 * 1024, windowMs: 10 * 60_000 };

/** The key and fingerprint are hashes, so an entry's own size is small and fixed. */
const ENTRY_OVERHEAD_BYTES = 256;

interface Entry {
  fingerprint: string;
  answer: Promise<RelayResponse>;
  /** Monotonic ms at which the answer came; undefined while pending. */
  answeredAt?: number;
  bytes: number;
}

export class ReplayMemory {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(
    private readonly limits: ReplayLimits = DEFAULT_REPLAY_LIMITS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Requests remembered now (pending or answered). */
  get size(): number {
    return this.entries.size;
  }

  /** Bytes of answers kept now. */
  get keptBytes(): number {
    return this.bytes;
  }

  /** The answer (pending or given) of this same request under this key, when it is a redelivery. */
  earlier(responseTopic: string, correlation: Buffer, fingerprint: string): Promise<RelayResponse> | undefined {
    this.expire();
    const earlier = this.entries.get(replayKey(responseTopic, correlation));
    return earlier?.fingerprint === fingerprint ? earlier.answer : undefined;
  }

  /**
   * Remembers a request being carried out, in place of any other under its key. `keep` says whether
   * its answer is kept once given (writes) or only shared while pending (reads).
   */
  remember(responseTopic: string, correlation: Buffer, fingerprint: string, keep: boolean, answer: Promise<RelayResponse>): void {
    const key = replayKey(responseTopic, correlation);
    const superseded = this.entries.get(key);
    if (superseded) this.remove(key, superseded);
    const entry: Entry = { fingerprint, answer, bytes: ENTRY_OVERHEAD_BYTES };
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
    void answer.then((response) => this.answered(key, entry, response, keep), () => this.remove(key, entry));
    this.evict();
  }

  private answered(key: string, entry: Entry, response: RelayResponse, keep: boolean): void {
    // Superseded (a different request under the same key) or evicted meanwhile: nothing to keep.
    if (this.entries.get(key) !== entry) return;
    // An answer that says "not done, try again" (too busy, storage unavailable) is not a result to repeat.
    if (!keep || response.status === 429 || response.status === 503) return this.remove(key, entry);
    const size = ENTRY_OVERHEAD_BYTES + response.body.length + JSON.stringify(response.headers).length;
    if (size > this.limits.maxBytes) return this.remove(key, entry);
    this.bytes += size - entry.bytes;
    entry.bytes = size;
    entry.answeredAt = this.now();
    // Re-inserted, so that the oldest answers are the first to go.
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.evict();
  }

  /** Answers past the window. Answered entries are in the order they were answered (re-inserted then). */
  private expire(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) {
      if (entry.answeredAt === undefined) continue;
      if (now - entry.answeredAt < this.limits.windowMs) break;
      this.remove(key, entry);
    }
  }

  /**
   * Oldest answers first; a pending request only when answers alone cannot make room (pending ones
   * are few, bounded by the relay's cap in flight, and they are what a concurrent duplicate waits on).
   */
  private evict(): void {
    const over = () => this.entries.size > this.limits.maxEntries || this.bytes > this.limits.maxBytes;
    for (const pending of [false, true]) {
      for (const [key, entry] of this.entries) {
        if (!over()) return;
        if ((entry.answeredAt === undefined) === pending) this.remove(key, entry);
      }
    }
  }

  private remove(key: string, entry: Entry): void {
    if (this.entries.get(key) !== entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}

/** Fixed-size, whatever the partner's topic and correlation data weigh. */
function replayKey(responseTopic: string, correlation: Buffer): string {
  return createHash('sha256').update(responseTopic).update('\0').update(correlation).digest('base64');
}
