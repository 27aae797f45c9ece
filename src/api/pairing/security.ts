// Response headers of the pairing pages. The token is in the URL, so nothing may cache the page or
// carry the URL elsewhere in a Referer. The CSP allows the page's own stylesheet (by hash), the
// hub's logos, and form submission only to the hub and to the partner's redirect origin.
//
// Why the redirect origin is in form-action: Chromium checks form-action against every redirect that
// follows a form submission, so with `form-action 'self'` the 303 from POST /connect/{token} to the
// partner's redirectUrl is blocked and the user is left on a broken page
// (test/integration/pairing-browser.test.ts shows both).
import { PAGE_CSS_SOURCE } from './styles.ts';

/** A CSP source for the origin of `url`; a scheme source when the host cannot be written as one (IPv6). */
export function formTargetSource(url: string): string {
  const parsed = new URL(url);
  return parsed.hostname.startsWith('[') ? parsed.protocol : parsed.origin;
}

/** Headers for a pairing page; `redirectUrl` when the page has a form that may end there. */
export function pageHeaders(redirectUrl?: string): Record<string, string> {
  const formAction = redirectUrl ? `'self' ${formTargetSource(redirectUrl)}` : "'none'";
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Robots-Tag': 'noindex, nofollow',
    'Content-Security-Policy': [
      "default-src 'none'",
      `style-src ${PAGE_CSS_SOURCE}`,
      "img-src 'self'",
      `form-action ${formAction}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
  };
}
