// The household page (issue 25) at /home: the page and its script without a key (they hold no data of
// the household), then /home/devices and /home/live, which want the key in X-API-KEY as the API does.
// A key scoped to one household shows that household only, without a choice (decisions.md §6).
import type { ServerResponse } from 'node:http';
import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { CHARGER_BINDING, type DeviceRecord } from '../../domain/device.ts';
import { formatTimestamp } from '../../domain/time.ts';
import { apiKeyCheck, requestHeader } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { pickLanguage, type Lang } from '../pairing/messages.ts';
import { householdFlows } from '../../runtime/household/household-flows.ts';
import { householdToday } from '../../runtime/household/household-today.ts';
import { renderHomePage } from './page.ts';
import { HOME_SCRIPT } from './script.ts';
import { HOME_CSS_SOURCE } from './styles.ts';
import { followHousehold, pageDevices, type PageReason } from './live.ts';
import { LiveSlots } from './live-slots.ts';
import { FAVICON_SVG } from './favicon.ts';

const LANGS: readonly Lang[] = ['en', 'de', 'fr'];

/** The page's headers: its own stylesheet (by hash) and script, requests to the hub only, nothing framed or cached. */
const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'Content-Security-Policy': [
    "default-src 'none'", "script-src 'self'", `style-src ${HOME_CSS_SOURCE}`, "connect-src 'self'", "img-src 'self'",
    "form-action 'none'", "frame-ancestors 'none'", "base-uri 'none'",
  ].join('; '),
};

export function householdPageRoutes(deps: ApiDeps): Hono {
  const checkKey = apiKeyCheck(deps);
  // Never an invented reason: the driver's own words, else no driver at all, else silence since the
  // last answer this hub saw (a stored lastUpdated may be imported: it is not a time the hub saw).
  const reasonOf = (device: DeviceRecord): PageReason => {
    const text = deps.runtime.offlineReason?.(device);
    if (text) return { code: 'driver', text };
    if (device.driver === null || device.driver.type === CHARGER_BINDING) return { code: 'noDriver' };
    const seenMs = deps.household?.seenAtOf?.(device.id);
    return seenMs === undefined ? { code: 'noAnswer' } : { code: 'noAnswer', since: formatTimestamp(seenMs) };
  };
  const app = new Hono();
  // The page's bytes are the same for every request of a language and theme: made once.
  const pages = new Map<string, string>();
  const slots = deps.household?.slots ?? new LiveSlots({}, deps.log);

  app.get('/home', (c) => {
    const asked = c.req.query('lang');
    const lang = asked && (LANGS as string[]).includes(asked) ? (asked as Lang) : pickLanguage(null, requestHeader(c, 'accept-language'));
    const themeAsked = c.req.query('theme');
    const theme = themeAsked === 'dark' || themeAsked === 'light' ? themeAsked : undefined;
    const cacheKey = `${lang}/${theme ?? ''}`;
    let page = pages.get(cacheKey);
    if (page === undefined) pages.set(cacheKey, (page = renderHomePage(lang, theme)));
    return c.body(page, 200, PAGE_HEADERS);
  });

  // The browser asks every page of the hub for its icon: a small SVG rather than a 404 in the console.
  app.get('/favicon.ico', (c) => c.body(FAVICON_SVG, 200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'max-age=86400' }));

  app.get('/home/app.js', (c) => c.body(HOME_SCRIPT, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' }));

  /**
   * The users the hub knows devices of, the chosen one (the first unless asked), its devices and flows
   * now; for a scoped key, its own household alone. `readOnly` tells the page to say so.
   */
  app.get('/home/devices', (c) => {
    const key = checkKey(c);
    const users = key.userId !== null ? [key.userId] : [...new Set(deps.store.devices.all().map((d) => d.userId))].sort();
    const asked = c.req.query('user');
    const userId = asked !== undefined && users.includes(asked) ? asked : users[0];
    const readOnly = key.readOnly;
    if (userId === undefined) return c.json({ users, userId: null, readOnly, devices: [], flows: {} }, 200, { 'Cache-Control': 'no-store' });
    const flows = deps.household?.flowsOf(userId) ?? householdFlows(deps.store.devices.all().filter((d) => d.userId === userId));
    const today = householdToday(deps.store, userId, deps.clock.now());
    return c.json({ users, userId, readOnly, devices: pageDevices(deps.store, userId, reasonOf), flows, today }, 200, { 'Cache-Control': 'no-store' });
  });

  /** The day so far (energy, cost, prices), which the page reads again when a new 5-minute point has closed. */
  app.get('/home/today', (c) => {
    const key = checkKey(c);
    const userId = c.req.query('user') ?? key.userId ?? undefined;
    if (!userId) throw new ApiError('BAD_REQUEST', 'user is required');
    if (key.userId !== null && userId !== key.userId) throw new ApiError('NOT_FOUND', 'No such household for this key');
    return c.json(householdToday(deps.store, userId, deps.clock.now()), 200, { 'Cache-Control': 'no-store' });
  });

  app.get('/home/live', (c) => {
    const key = checkKey(c);
    const userId = c.req.query('user') ?? key.userId ?? undefined;
    if (!userId) throw new ApiError('BAD_REQUEST', 'user is required');
    // Another household, to a scoped key: not there, whether or not the hub knows that user.
    if (key.userId !== null && userId !== key.userId) throw new ApiError('NOT_FOUND', 'No such household for this key');
    if (!deps.household) throw new ApiError('NOT_FOUND', 'This hub has no live household stream');
    // Ending a stream that stopped reading takes closing its socket (live-stream.ts); in process (app.request) there is none.
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    // The places are shared per key (live-slots.ts): the verified key's id tells keys apart.
    const stream = slots.open(key.id, () => outgoing?.destroy());
    if (!stream) {
      throw new ApiError('TOO_MANY_REQUESTS', `At most ${slots.settings.maxStreams} live streams are open at once, shared between keys`, undefined, { 'Retry-After': '10' });
    }
    c.req.raw.signal.addEventListener('abort', () => stream.close('client'), { once: true });
    followHousehold(deps.store, deps.household, userId, stream, reasonOf);
    return new Response(stream.body, {
      headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' },
    });
  });
  return app;
}
