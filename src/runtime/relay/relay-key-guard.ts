// A relay-wide bound on key guessing. The failed-key limiter counts a relayed call by its presented
// key (relay.ts, relayClient), so that one partner's wrong key locks out only that key. But a guesser
// tries a new key each time, and each new key is a fresh bucket there: alone, that would let keys be
// guessed through the relay as fast as it carries calls. So the relay also counts every wrong key it
// carries; past `perMinute` in a minute, keys it has not seen work are refused (429) until the minute
// is over, while keys that did work (the partners' own) still pass. A call without a key guesses
// nothing and is not counted. "Worked" is an answer under 400: the relay only carries /v1.0.0/ paths,
// and the app checks the key on every one of them, unknown routes included (app.ts, the gate).

const WINDOW_MS = 60_000;
/** Keys remembered as working, at most (their short hashes; the oldest go first). */
const MAX_KNOWN_KEYS = 1000;

export class RelayKeyGuard {
  private windowStart = -Infinity;
  private failures = 0;
  /** Client identities (relay:<hash of the key>) that the app has answered with success. */
  private readonly known = new Set<string>();

  constructor(
    private readonly perMinute: number,
    private readonly noKey: string,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Seconds until this key may be carried again, or 0 when it may now. */
  retryAfterSeconds(client: string): number {
    if (client === this.noKey || this.known.has(client) || this.failures < this.perMinute) return 0;
    const left = this.windowStart + WINDOW_MS - this.now();
    return left > 0 ? Math.max(1, Math.ceil(left / 1000)) : 0;
  }

  /** What the app answered a call carried with this key. */
  answered(client: string, status: number): void {
    if (client === this.noKey) return;
    if (status < 400) {
      this.known.delete(client);
      this.known.add(client);
      if (this.known.size > MAX_KNOWN_KEYS) this.known.delete(this.known.values().next().value!);
      return;
    }
    if (status !== 401) return;
    // A key revoked since it worked is unknown again.
    this.known.delete(client);
    const now = this.now();
    if (now - this.windowStart >= WINDOW_MS) {
      this.windowStart = now;
      this.failures = 0;
    }
    this.failures++;
  }
}
