// Failed authentications counted per client, so that a secret cannot be guessed at network speed:
// past the limit the client is refused (429) until its minute is over. One counter serves the API's
// keys and the OCPP endpoint's passwords, so that a client cannot spend its budget twice.
//
// A client is an IPv4 address, or an IPv6 /64 (one home or one host's privacy addresses: counted per
// address, a single machine could rotate through 2^64 of them); an IPv4-mapped IPv6 address is its
// IPv4 address. Anything else (the relay's declared client) is taken as it is.
//
// Windows are measured on the monotonic clock: a wall clock stepped back (NTP after a boot without
// a real-time clock) must neither keep a client locked out for the length of the step nor free it.
//
// Memory is bounded without ever freeing a locked-out client because others failed: clients still
// under the limit are at most MAX_COUNTING, the least recently failed forgotten first; locked-out
// clients are kept until their window ends, and there can only be as many of them as the hub can
// refuse failures in a minute divided by the limit.
import { isIPv6 } from 'node:net';

const WINDOW_MS = 60_000;
const MAX_COUNTING = 10_000;

interface Window {
  count: number;
  startMs: number;
}

export interface AuthFailuresOptions {
  /** Milliseconds on a monotonic clock (performance.now() unless a test gives its own). */
  now?: () => number;
  /** How many clients under the limit are remembered (tests make it small). */
  maxCounting?: number;
}

export class AuthFailures {
  /** Clients under the limit, least recently failed first. */
  private readonly counting = new Map<string, Window>();
  /** Clients at the limit, until their window ends; never evicted before. */
  private readonly locked = new Map<string, Window>();
  private readonly now: () => number;
  private readonly maxCounting: number;

  constructor(private readonly perMinute: () => number, options: AuthFailuresOptions = {}) {
    this.now = options.now ?? (() => performance.now());
    this.maxCounting = options.maxCounting ?? MAX_COUNTING;
  }

  /** Whether any client has failed lately (the API's happy path skips the address lookup otherwise). */
  get any(): boolean {
    return this.counting.size > 0 || this.locked.size > 0;
  }

  /** How many clients are remembered now (for tests and /metrics). */
  get tracked(): number {
    return this.counting.size + this.locked.size;
  }

  /** Seconds until the client may try again, or 0 when it may now. */
  retryAfterSeconds(client: string): number {
    const key = clientKey(client);
    const now = this.now();
    const entry = this.current(this.locked, key, now) ?? this.current(this.counting, key, now);
    if (!entry || entry.count < this.perMinute()) return 0;
    return Math.max(1, Math.ceil((entry.startMs + WINDOW_MS - now) / 1000));
  }

  count(client: string): void {
    const key = clientKey(client);
    const now = this.now();
    const locked = this.current(this.locked, key, now);
    if (locked) {
      locked.count++;
      return;
    }
    let entry = this.current(this.counting, key, now);
    if (entry) {
      this.counting.delete(key); // set again below: the most recently failed goes last
    } else {
      entry = { count: 0, startMs: now };
      if (this.counting.size >= this.maxCounting) this.counting.delete(this.counting.keys().next().value!);
    }
    entry.count++;
    if (entry.count >= this.perMinute()) {
      this.dropEnded(now);
      this.locked.set(key, entry);
    } else {
      this.counting.set(key, entry);
    }
  }

  /** The client's window when it has not ended (an ended one is forgotten). */
  private current(table: Map<string, Window>, key: string, now: number): Window | undefined {
    const entry = table.get(key);
    if (entry && now - entry.startMs >= WINDOW_MS) {
      table.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Locked-out clients whose window has ended, from the earliest locked. */
  private dropEnded(now: number): void {
    for (const [key, entry] of this.locked) {
      if (now - entry.startMs < WINDOW_MS) break;
      this.locked.delete(key);
    }
  }
}

/** The client a failure is counted for: an IPv6 address's /64, an IPv4-mapped address's IPv4. */
export function clientKey(address: string): string {
  const bare = address.replace(/%.*$/, ''); // a link-local address's zone
  if (!isIPv6(bare)) return address;
  const groups = ipv6Groups(bare);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (with `::` and a dotted IPv4 tail expanded). */
function ipv6Groups(address: string): number[] {
  const parse = (part: string): number[] => {
    if (part === '') return [];
    return part.split(':').flatMap((g) => {
      if (!g.includes('.')) return [parseInt(g, 16)];
      const [a, b, c, d] = g.split('.').map(Number) as [number, number, number, number];
      return [(a << 8) | b, (c << 8) | d];
    });
  };
  const [head = '', tail] = address.toLowerCase().split('::');
  const first = parse(head);
  if (tail === undefined) return first;
  const last = parse(tail);
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
}
