// Ties a maker's login (Volvo ID's redirect back to /connect/callback) to the browser that started
// it. The callback's `state` alone is not enough: whoever presented it first was sent on to the
// session's page, whose link is the session itself. The page that sends the owner to the maker sets
// a short-lived random cookie (HttpOnly, SameSite=Lax so that the maker's redirect back carries it,
// Path=/connect), of which the hub keeps only a digest, tied to the session; the callback goes on
// only with the cookie of that session's login.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';

export const LOGIN_COOKIE = 'hub_login';
/** As long as an owner may take at the maker's login page. */
const LOGIN_COOKIE_SECONDS = 15 * 60;
/** Logins begun and not come back: a bound, so that a flood of begun logins cannot grow memory. */
const MAX_PENDING = 1000;

export class LoginBrowsers {
  /** Session token → the digest of its browser's cookie, and until when (monotonic ms). */
  private readonly pending = new Map<string, { digest: Buffer; untilMs: number }>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Sets the cookie of a login that session `token` begins now (replacing one it began before). */
  bind(c: Context, token: string): void {
    const value = randomBytes(32).toString('base64url');
    this.pending.delete(token);
    if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value!);
    this.pending.set(token, { digest: digestOf(value), untilMs: this.now() + LOGIN_COOKIE_SECONDS * 1000 });
    setCookie(c, LOGIN_COOKIE, value, {
      httpOnly: true, sameSite: 'Lax', path: '/connect', maxAge: LOGIN_COOKIE_SECONDS,
      secure: new URL(c.req.url).protocol === 'https:',
    });
  }

  /** The session whose login this browser began (its cookie, not expired), or undefined. */
  sessionOf(c: Context): string | undefined {
    const value = getCookie(c, LOGIN_COOKIE);
    if (!value || value.length > 100) return undefined;
    const digest = digestOf(value);
    const now = this.now();
    for (const [token, entry] of this.pending) {
      if (entry.untilMs <= now) {
        this.pending.delete(token);
        continue;
      }
      if (timingSafeEqual(entry.digest, digest)) return token;
    }
    return undefined;
  }

  /** The session's login came back (or ended): its cookie opens nothing any more. */
  forget(token: string): void {
    this.pending.delete(token);
  }
}

function digestOf(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
