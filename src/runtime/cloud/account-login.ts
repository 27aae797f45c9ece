// The login that the cars of one maker account share. The makers rotate refresh tokens (BMW: every
// refresh returns a new one and refuses the old one, cardata-oauth.ts; Volvo likewise, volvo-api.ts),
// so two cars holding copies of one token chain would spend it under each other at the first
// refresh. Here the account refreshes once for all its cars (one refresh at a time: whoever asks
// meanwhile waits for that answer) and writes the rotated token into the cars' bindings in one store
// transaction.
//
// When the cars hold different logins (a car connected again, or imported with a login made
// elsewhere), the newest is used: by the binding's `loginAtMs`, when the owner made the login that
// token descends from (a refresh keeps it), else when this session first saw the token. A refused
// one gives way to the next newest; only when every car's login is refused is a new login due.
import type { DeviceRecord, DriverBinding } from '../../domain/device.ts';
import { monotonicMs, type Clock } from '../../domain/time.ts';

export interface LoginTokens {
  refreshToken: string;
  /** When the access token runs out, epoch ms. */
  expiresAtMs: number;
}

export interface AccountLoginDeps<T extends LoginTokens> {
  clock: Clock;
  /** Tokens count as run out this long before they do. */
  renewBeforeMs: number;
  /** New tokens for a refresh token, which the maker no longer takes afterwards. */
  refresh(refreshToken: string, binding: DriverBinding): Promise<T>;
  /** The maker refused the refresh token itself (not a fault of the network or of its service). */
  isRefused(err: unknown): boolean;
  /** The refusal when no car of the account has a login (imported without one, src/domain/export.ts). */
  noLogin(): Error;
  /** What the cars' bindings keep beside the new refresh token (BMW's GCID; Volvo's application keys). */
  kept?(tokens: T, binding: DriverBinding): Record<string, unknown>;
  /** Writes the cars' bindings, all or none. */
  saveBindings(bindings: ReadonlyMap<string, DriverBinding>): void;
}

export class AccountLogin<T extends LoginTokens> {
  private readonly cars = new Map<string, DeviceRecord>();
  /** When each refresh token was first seen here (the rank of a token whose binding has no loginAtMs). */
  private readonly seenAtMs = new Map<string, number>();
  private tokens: T | undefined;
  /** When the held tokens are due for renewal, on the monotonic clock: their expiry is the maker's
   * date, read against the wall clock once, as they arrive, so that a later step moves nothing. */
  private renewAtMono = Number.NEGATIVE_INFINITY;
  private pending: Promise<T> | undefined;
  /** The refresh token the account's chain is at: the last one stored. */
  private head: string | undefined;
  /** Counts the new logins added: a refresh begun before one does not decide the account's tokens. */
  private generation = 0;

  constructor(private readonly deps: AccountLoginDeps<T>) {}

  get size(): number {
    return this.cars.size;
  }

  car(id: string): DeviceRecord | undefined {
    return this.cars.get(id);
  }

  devices(): DeviceRecord[] {
    return [...this.cars.values()];
  }

  /**
   * Adds a car of the account; true when it brings a login the account does not hold yet (a new
   * login: the next tokens are chosen again, and the session should start over with them).
   */
  add(device: DeviceRecord): boolean {
    const token = device.driver?.['refreshToken'];
    const known = typeof token !== 'string' || token === this.head || this.devices().some((car) => car.driver?.['refreshToken'] === token);
    if (typeof token === 'string' && !this.seenAtMs.has(token)) this.seenAtMs.set(token, this.deps.clock.now());
    this.cars.set(device.id, device);
    if (known) return false;
    this.generation++;
    this.tokens = undefined;
    return true;
  }

  remove(id: string): void {
    this.cars.delete(id);
    this.prune();
  }

  /** A binding value the account shares (BMW's container): the first car's that has one. */
  shared(field: string): unknown {
    return this.devices().map((car) => car.driver?.[field]).find((value) => value !== undefined);
  }

  /** Writes `fields` into the bindings of the cars `which` picks (all of them by default), in one transaction. */
  share(fields: Record<string, unknown>, which: (binding: DriverBinding) => boolean = () => true): void {
    const next = new Map<string, DriverBinding>();
    for (const car of this.devices()) if (car.driver && which(car.driver)) next.set(car.id, { ...car.driver, ...fields });
    if (next.size === 0) return;
    this.deps.saveBindings(next);
    for (const [id, binding] of next) this.cars.set(id, { ...this.cars.get(id)!, driver: binding });
  }

  /** How long until the held tokens are renewed (0 or less: due now), measured on the monotonic clock. */
  renewInMs(): number {
    return this.tokens ? this.renewAtMono - monotonicMs(this.deps.clock) : 0;
  }

  /** The tokens the maker refused (a stream password, an access token): the next call takes new ones. */
  drop(): void {
    this.tokens = undefined;
  }

  /** Tokens that do not run out within renewBeforeMs: the ones held, else one refresh for the whole account. */
  async fresh(): Promise<T> {
    for (;;) {
      if (this.tokens && this.renewInMs() > 0) return this.tokens;
      const generation = this.generation;
      this.pending ??= this.refresh().finally(() => {
        this.pending = undefined;
      });
      try {
        const tokens = await this.pending;
        if (generation === this.generation) return tokens;
      } catch (err) {
        if (generation === this.generation) throw err;
      }
      // A new login came while the refresh was under way: choose again.
    }
  }

  /** The cars' logins, newest first, until the maker takes one; its successor goes into the bindings. */
  private async refresh(): Promise<T> {
    const generation = this.generation;
    const tried = new Set<string>();
    let refusal: unknown;
    for (;;) {
      const next = this.candidates().find((c) => !tried.has(c.token));
      if (!next) throw refusal ?? this.deps.noLogin();
      tried.add(next.token);
      let tokens: T;
      try {
        tokens = await this.deps.refresh(next.token, next.binding);
      } catch (err) {
        if (!this.deps.isRefused(err)) throw err;
        refusal = err;
        continue;
      }
      this.head = tokens.refreshToken;
      if (generation === this.generation) {
        this.tokens = tokens;
        this.renewAtMono = monotonicMs(this.deps.clock) + (tokens.expiresAtMs - this.deps.clock.now()) - this.deps.renewBeforeMs;
      }
      // Every car gets the new token but one holding a newer login that came meanwhile (tried next).
      this.share({ ...this.deps.kept?.(tokens, next.binding), refreshToken: tokens.refreshToken, loginAtMs: next.rank }, (binding) => {
        const held = binding['refreshToken'];
        return typeof held !== 'string' || tried.has(held) || this.rank(held) <= next.rank;
      });
      this.prune();
      return tokens;
    }
  }

  private candidates(): { token: string; rank: number; binding: DriverBinding }[] {
    const out = new Map<string, { token: string; rank: number; binding: DriverBinding }>();
    for (const car of this.devices()) {
      const token = car.driver?.['refreshToken'];
      if (typeof token !== 'string' || out.has(token)) continue;
      out.set(token, { token, rank: this.rank(token), binding: car.driver! });
    }
    return [...out.values()].sort((a, b) => b.rank - a.rank);
  }

  private rank(token: string): number {
    let rank = -Infinity;
    for (const car of this.devices()) {
      if (car.driver?.['refreshToken'] !== token) continue;
      const at = car.driver['loginAtMs'];
      rank = Math.max(rank, typeof at === 'number' ? at : (this.seenAtMs.get(token) ?? 0));
    }
    return rank;
  }

  private prune(): void {
    const held = new Set(this.devices().map((car) => car.driver?.['refreshToken']));
    for (const token of this.seenAtMs.keys()) if (!held.has(token)) this.seenAtMs.delete(token);
  }
}
