// Failed authentications counted per client address, so that a secret cannot be guessed at network
// speed: past the limit the address is refused (429) until its minute is over. One counter serves
// the API's keys and the OCPP endpoint's passwords, so that an address cannot spend its budget twice.

const WINDOW_MS = 60_000;
const MAX_TRACKED_CLIENTS = 10_000;

export class AuthFailures {
  private readonly failures = new Map<string, { count: number; windowStart: number }>();

  constructor(private readonly perMinute: () => number) {}

  /** Whether any client has failed lately (the API's happy path skips the address lookup otherwise). */
  get any(): boolean {
    return this.failures.size > 0;
  }

  /** Seconds until the address may try again, or 0 when it may now. */
  retryAfterSeconds(client: string, nowMs: number): number {
    const record = this.failures.get(client);
    if (!record) return 0;
    if (nowMs - record.windowStart >= WINDOW_MS) {
      this.failures.delete(client);
      return 0;
    }
    if (record.count < this.perMinute()) return 0;
    return Math.max(1, Math.ceil((record.windowStart + WINDOW_MS - nowMs) / 1000));
  }

  count(client: string, nowMs: number): void {
    if (this.failures.size >= MAX_TRACKED_CLIENTS) this.failures.clear();
    const entry = this.failures.get(client) ?? { count: 0, windowStart: nowMs };
    entry.count++;
    this.failures.set(client, entry);
  }
}
