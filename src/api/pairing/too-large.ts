// The connect pages' answer to a body past the hub's request limit (64 KB). The server refuses such a
// body before the app sees it (http-server.ts), in the API's terms: a JSON error body. A browser on a
// connect page gets the page's own "too large" message instead, in its language, with the pages'
// headers, like the 413 the page gives past its own, smaller limit (routes.ts).
import { MESSAGES, pickLanguage } from './messages.ts';
import { messagePage } from './pages.ts';
import { pageHeaders } from './security.ts';

/** The 413 page for a request to a connect page (`/connect/...`); undefined for any other path. */
export function connectPageTooLarge(path: string, acceptLanguage: string | undefined): Response | undefined {
  if (!path.startsWith('/connect/')) return undefined;
  const lang = pickLanguage(undefined, acceptLanguage);
  const text = MESSAGES[lang];
  return new Response(messagePage({ lang, theme: null, text }, text.tooLarge), { status: 413, headers: pageHeaders() });
}
