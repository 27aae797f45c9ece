// GET/POST /connect/{token}: the hub's own pairing page for a connect session (a car's session is
// vehicle-flow.ts's, with the maker's login coming back to GET /connect/callback). No API key: the
// unguessable token in the URL is the credential (only its hash is stored). The user fills in the
// vendor's form; the hub probes the charger, adds it for the session's userId and sends the browser
// back to redirectUrl with the outcome (outcome.ts). A failed probe keeps the session for another
// try; success, Cancel or giving up ends it. Every answer is a page, never a stack trace.
import { randomUUID } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ApiDeps } from '../deps.ts';
import type { DeviceRecord } from '../../domain/device.ts';
import { identityWith } from '../../domain/binding-identity.ts';
import { formatTimestamp } from '../../domain/time.ts';
import type { ConnectSession } from '../../store/connect-sessions.ts';
import { MESSAGES, pickLanguage } from './messages.ts';
import { formPage, messagePage, notSupportedPage, type PageFrame } from './pages.ts';
import { readFormInput } from './form-input.ts';
import { outcomeUrl, type PairingOutcome } from './outcome.ts';
import { pageHeaders } from './security.ts';
import { PairingProbeError, type ChargerProber, type ProbeErrorCode } from '../../runtime/devices/pairing-prober.ts';
import { VEHICLE_VENDORS } from '../../domain/vocabulary.ts';
import { VEHICLE_CALLBACK_PATH, vehicleFlow } from './vehicle-flow.ts';
import { deviceDomainOf, deviceFlow } from './device-flow.ts';

export interface PairingRouteOptions {
  /** How long a probe may take before the user is told the charger did not answer in time. */
  probeTimeoutMs?: number;
  /** Largest form body accepted. */
  bodyLimitBytes?: number;
}

type Lookup =
  | { state: 'unknown' }
  | { state: 'used' | 'expired' | 'live'; session: ConnectSession };

/** What one probe ended in; concurrent submissions of the same session share it. */
type Attempt =
  | { kind: 'paired'; location: string }
  | { kind: 'failed'; code: ProbeErrorCode | 'TAKEN' | 'FAILED' }
  | { kind: 'gone' };

const TOKEN = /^[A-Za-z0-9_-]{16,64}$/;
const REPEAT_WINDOW_MS = 60_000;

export function pairingRoutes(deps: ApiDeps, options: PairingRouteOptions = {}): Hono {
  const probeTimeoutMs = options.probeTimeoutMs ?? 20_000;
  const attempts = new Map<string, Promise<Attempt>>();
  /** Where recently ended sessions sent the browser: a repeated submission (a double click) gets the same answer. */
  const ended = new Map<string, { location: string; untilMs: number }>();
  const log = deps.log.child({ component: 'pairing' });
  const identityOf = identityWith(deps.bindingDefaults);
  const app = new Hono();

  const lookup = (token: string): Lookup => {
    const session = TOKEN.test(token) ? deps.store.connectSessions.find(token) : undefined;
    if (!session) return { state: 'unknown' };
    if (session.usedAtMs !== null) return { state: 'used', session };
    if (session.expiresAtMs <= deps.clock.now()) return { state: 'expired', session };
    return { state: 'live', session };
  };

  const frameOf = (c: Context, session?: ConnectSession): PageFrame => {
    const lang = pickLanguage(session?.language, c.req.header('accept-language'));
    const theme = session?.theme === 'DARK' ? 'dark' : session?.theme === 'LIGHT' ? 'light' : null;
    return { lang, theme, text: MESSAGES[lang] };
  };

  const page = (c: Context, status: 200 | 400 | 403 | 404 | 410 | 413 | 422 | 500, body: string, redirectUrl?: string) =>
    c.body(body, status, pageHeaders(redirectUrl));

  /** The page for a session that cannot be used (any more). */
  const closedPage = (c: Context, found: Exclude<Lookup, { state: 'live' }>) => {
    if (found.state === 'unknown') {
      const frame = frameOf(c);
      return page(c, 404, messagePage(frame, frame.text.unknown));
    }
    const frame = frameOf(c, found.session);
    if (found.state === 'used') return page(c, 410, messagePage(frame, frame.text.used));
    const back = { href: outcomeUrl(found.session.redirectUrl, { status: 'FAILED', error: 'SESSION_EXPIRED' }), label: frame.text.expired.back };
    return page(c, 410, messagePage(frame, frame.text.expired, back));
  };

  /** Remembers where an ended session sends the browser; called right where the session is consumed. */
  const remember = (token: string, location: string): string => {
    const now = deps.clock.now();
    for (const [key, entry] of ended) if (entry.untilMs <= now) ended.delete(key);
    ended.set(token, { location, untilMs: now + REPEAT_WINDOW_MS });
    return location;
  };

  /** After a write found the session used or expired: the same outcome for a repeat, else say which. */
  const closedNow = (c: Context, token: string) => {
    const repeat = ended.get(token);
    if (repeat && repeat.untilMs > deps.clock.now()) return c.redirect(repeat.location, 303);
    const found = lookup(token);
    return closedPage(c, found.state === 'live' ? { state: 'used', session: found.session } : found);
  };

  const formOf = (vendor: string) => deps.pairing?.forms().get(vendor);

  /** Ends the session with an outcome that adds nothing (cancel, give up). */
  const leave = (c: Context, token: string, session: ConnectSession, outcome: PairingOutcome) => {
    if (!deps.store.connectSessions.consume(token, deps.clock.now())) return closedNow(c, token);
    const location = remember(token, outcomeUrl(session.redirectUrl, outcome));
    log.info({ userId: session.userId, vendor: session.vendor, status: outcome.status }, 'pairing ended');
    return c.redirect(location, 303);
  };

  const attempt = async (prober: ChargerProber, token: string, session: ConnectSession, fields: Record<string, string>): Promise<Attempt> => {
    const signal = AbortSignal.timeout(probeTimeoutMs);
    let probed;
    try {
      probed = await prober.probe(session.vendor, fields, signal);
    } catch (err) {
      const code = err instanceof PairingProbeError ? err.code : signal.aborted ? 'TIMEOUT' : 'FAILED';
      const cause = err instanceof Error ? { type: err.name, message: err.message.slice(0, 200) } : { type: typeof err };
      log.info({ userId: session.userId, vendor: session.vendor, code, cause }, 'pairing probe failed');
      return { kind: 'failed', code };
    }
    // The same charger paired again (the same binding once the driver's defaults are applied and
    // each setting written one way: binding-identity.ts): for its owner that is the device it
    // already is; another household cannot take it over through a pairing link.
    const identity = identityOf('charger', probed.driver);
    const already = identity === null ? undefined
      : deps.store.devices.driven().find((d) => d.kind === 'charger' && d.driver !== null && identityOf('charger', d.driver) === identity);
    if (already && already.userId !== session.userId) {
      log.info({ userId: session.userId, vendor: session.vendor, deviceId: already.id }, 'pairing refused: the charger belongs to another user');
      return { kind: 'failed', code: 'TAKEN' };
    }
    if (already) {
      if (!deps.store.connectSessions.consume(token, deps.clock.now())) return { kind: 'gone' };
      const location = remember(token, outcomeUrl(session.redirectUrl, { status: 'SUCCESS', chargerId: already.id }));
      log.info({ userId: session.userId, vendor: session.vendor, deviceId: already.id }, 'charger paired again');
      return { kind: 'paired', location };
    }
    // Whole seconds, like every state the drivers write.
    const now = Math.floor(deps.clock.now() / 1000) * 1000;
    const device: DeviceRecord = {
      id: randomUUID(),
      kind: 'charger',
      userId: session.userId,
      vendor: session.vendor,
      name: probed.name,
      model: probed.model,
      isOnline: true,
      lastUpdatedMs: now,
      locationId: null,
      hvacType: null,
      staticData: {},
      state: probed.state ? { lastUpdated: formatTimestamp(now), ...probed.state } : null,
      driver: probed.driver,
      createdAtMs: now,
    };
    if (!deps.store.completeConnectSession(token, device, now)) return { kind: 'gone' };
    deps.runtime.deviceAdded?.(device);
    const location = remember(token, outcomeUrl(session.redirectUrl, { status: 'SUCCESS', chargerId: device.id }));
    log.info({ userId: session.userId, vendor: session.vendor, deviceId: device.id, driver: probed.driver.type }, 'charger paired');
    return { kind: 'paired', location };
  };

  /** One probe per session at a time: a second submission (a double click) waits for the first's outcome. */
  const attemptOnce = (prober: ChargerProber, token: string, session: ConnectSession, fields: Record<string, string>) => {
    let running = attempts.get(token);
    if (!running) {
      running = attempt(prober, token, session, fields).finally(() => attempts.delete(token));
      attempts.set(token, running);
    }
    return running;
  };

  // A car's session (its vendor a car maker's; the vendor codes of cars and chargers do not overlap).
  const vehicles = vehicleFlow({ deps, log, frameOf, page, leave, remember, closedNow });
  const isVehicle = (session: ConnectSession) => (VEHICLE_VENDORS as readonly string[]).includes(session.vendor);
  // An HVAC unit's, a home-power device's or a tariff's session (its kind says so: TESLA makes cars and Powerwalls).
  const devices = deviceFlow({ deps, log, frameOf, page, leave, remember, closedNow }, probeTimeoutMs);

  // The car maker's redirect back (/connect/callback) is served by the /connect/:token route: a
  // static route beside a parameter of the same segment is a path Hono's RegExpRouter refuses, and
  // its SmartRouter then falls back to the TrieRouter for every request of the hub, API included
  // (2 % of a detail read's CPU). A session token (32 base64url characters) is never "callback".
  const callbackToken = VEHICLE_CALLBACK_PATH.slice('/connect/'.length);
  app.get('/connect/:token', (c) => {
    const token = c.req.param('token');
    if (token === callbackToken) return vehicles.callback(c);
    const found = lookup(token);
    if (found.state !== 'live') return closedPage(c, found);
    const { session } = found;
    const domain = deviceDomainOf(session);
    if (domain) return devices.show(c, token, session, domain);
    if (isVehicle(session)) return vehicles.show(c, token, session);
    const frame = frameOf(c, session);
    const form = formOf(session.vendor);
    if (!form) return page(c, 200, notSupportedPage(frame, token, session.vendor), session.redirectUrl);
    return page(c, 200, formPage(frame, { token, vendor: session.vendor, form, values: form.initialValues?.() }), session.redirectUrl);
  });

  app.post('/connect/:token', bodyLimit({
    maxSize: options.bodyLimitBytes ?? 16 * 1024,
    onError: (c) => {
      const frame = frameOf(c);
      return page(c, 413, messagePage(frame, frame.text.tooLarge));
    },
  }), async (c) => {
    const token = c.req.param('token');
    const found = lookup(token);
    if (found.state === 'used') return closedNow(c, token);
    if (found.state !== 'live') return closedPage(c, found);
    const { session } = found;
    const frame = frameOf(c, session);
    const submitted = await readSubmission(c);
    const action = submitted?.['action'];
    const domain = deviceDomainOf(session);
    if (domain) return submitted ? devices.submit(c, token, session, domain, submitted) : page(c, 400, messagePage(frame, frame.text.badRequest));
    if (submitted && isVehicle(session) && (action === 'login' || action === 'add' || action === 'cancel' || action === 'giveUp')) {
      return vehicles.submit(c, token, session, submitted);
    }
    if (!submitted || isVehicle(session) || (action !== 'pair' && action !== 'cancel' && action !== 'giveUp')) {
      return page(c, 400, messagePage(frame, frame.text.badRequest));
    }
    if (action === 'cancel') return leave(c, token, session, { status: 'CANCELLED' });
    const form = formOf(session.vendor);
    if (!form || !deps.pairing) {
      if (action === 'giveUp') return leave(c, token, session, { status: 'FAILED', error: 'VENDOR_NOT_SUPPORTED' });
      return page(c, 200, notSupportedPage(frame, token, session.vendor), session.redirectUrl);
    }
    if (action === 'giveUp') return page(c, 400, messagePage(frame, frame.text.badRequest));

    const input = readFormInput(form, submitted);
    const formInput = { token, vendor: session.vendor, form, values: input.values };
    if (input.problems.length > 0) {
      return page(c, 400, formPage(frame, { ...formInput, problems: input.problems }), session.redirectUrl);
    }
    const given = Object.fromEntries(Object.entries(input.values).filter(([, value]) => value !== ''));
    const result = await attemptOnce(deps.pairing, token, session, given);
    if (result.kind === 'paired') return c.redirect(result.location, 303);
    if (result.kind === 'gone') return closedNow(c, token);
    return page(c, 422, formPage(frame, { ...formInput, failure: frame.text.probe[result.code] }), session.redirectUrl);
  });

  app.onError((err, c) => {
    const errorId = randomUUID();
    log.error({ errorId, method: c.req.method, cause: { type: err.name, message: err.message.slice(0, 200) } }, 'pairing page failed');
    let session: ConnectSession | undefined;
    try {
      session = deps.store.connectSessions.find(c.req.param('token') ?? '');
    } catch {
      // the store may be what failed: the browser's language will do
    }
    const frame = frameOf(c, session);
    return page(c, 500, messagePage(frame, frame.text.failure));
  });
  return app;
}

/** The submitted form as strings (files and repeated names ignored); undefined when it is not a form. */
async function readSubmission(c: Context): Promise<Record<string, string> | undefined> {
  const type = c.req.header('content-type') ?? '';
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type)) return undefined;
  let body: Record<string, unknown>;
  try {
    body = await c.req.parseBody();
  } catch {
    return undefined;
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) if (typeof value === 'string') out[name] = value;
  return out;
}
