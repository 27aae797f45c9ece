// The connect page of an HVAC, home-power or tariff session (POST /connections/hvacs, /home-powers,
// /tariffs): the user says how to reach the device, the hub finds and reads it (runtime/
// device-prober.ts: over Modbus, HTTP or the household broker), asks which one when a scan found
// several, adds it for the session's userId and sends the browser back to redirectUrl with
// status=SUCCESS and the device's id under its kind's name (hvacId, batteryId, pvInverterId, meterId,
// tariffId). One identity per device (binding-identity.ts): a device another household has is
// refused; the same household gets the one it has. The routes and the session's life are the
// pairing page's (routes.ts); this file is what differs for these kinds.
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import type { DeviceRecord } from '../../domain/device.ts';
import { identityWith } from '../../domain/binding-identity.ts';
import { formatTimestamp } from '../../domain/time.ts';
import type { ConnectSession } from '../../store/connect-sessions.ts';
import { DEVICE_CONNECT_DOMAINS, type DeviceChoice, type DeviceConnectDomain, type ProbedDevice } from '../../runtime/devices/device-prober.ts';
import { PairingProbeError, type PairingForm, type ProbeErrorCode } from '../../runtime/devices/pairing-prober.ts';
import { html, type SafeHtml } from './html.ts';
import { formPage, messagePage, notSupportedPage, vendorName, type PageFrame } from './pages.ts';
import { readFormInput, type FieldProblem } from './form-input.ts';
import { outcomeUrl, successOf } from './outcome.ts';
import type { PageKit } from './vehicle-flow.ts';

type Attempt =
  | { kind: 'paired'; location: string }
  | { kind: 'choose'; choices: DeviceChoice[] }
  | { kind: 'failed'; code: ProbeErrorCode | 'TAKEN' | 'FAILED' }
  | { kind: 'gone' };

/** The field a scan's choice comes back in; drawn as the list of what was found, never as a text box. */
const CHOICE_FIELD = 'device';

/**
 * Probes one link may start. The page reaches whatever its user types (any address and port, any
 * topic), and its link may be opened from outside the home (a public address, the relay): a link is
 * a way to connect a device, not to sweep the home network. A user who needs more starts again.
 */
export const PROBES_PER_SESSION = 10;

/** The session's domain when it is one of these kinds'. */
export function deviceDomainOf(session: ConnectSession): DeviceConnectDomain | undefined {
  return (DEVICE_CONNECT_DOMAINS as readonly string[]).includes(session.kind ?? '') ? (session.kind as DeviceConnectDomain) : undefined;
}

/** Where a vendor's words are: one text for every tariff vendor (the price comes from the household's own publisher). */
const textKeyOf = (domain: DeviceConnectDomain, vendor: string) => (domain === 'tariffs' ? 'tariffs' : `${domain}:${vendor}`);

export function deviceFlow(kit: PageKit, probeTimeoutMs: number) {
  const { deps } = kit;
  const identityOf = identityWith(deps.bindingDefaults);
  const attempts = new Map<string, Promise<Attempt>>();
  /** Probes started per session, until the session would have expired. */
  const started = new Map<string, { count: number; untilMs: number }>();
  /** Counts a probe about to start; false when the session has started all it may. */
  const mayProbe = (token: string, session: ConnectSession): boolean => {
    if (attempts.has(token)) return true; // joins the running one
    const now = deps.clock.now();
    for (const [key, entry] of started) if (entry.untilMs <= now) started.delete(key);
    const entry = started.get(token) ?? { count: 0, untilMs: session.expiresAtMs };
    if (entry.count >= PROBES_PER_SESSION) return false;
    started.set(token, { ...entry, count: entry.count + 1 });
    return true;
  };
  const formOf = (domain: DeviceConnectDomain, vendor: string) => deps.devicePairing?.forms(domain).get(vendor);

  const notSupported = (c: Context, frame: PageFrame, token: string, session: ConnectSession, domain: DeviceConnectDomain) =>
    kit.page(c, 200, notSupportedPage(frame, token, session.vendor, frame.text.device.notSupported[domain]), session.redirectUrl);

  const choicesHtml = (frame: PageFrame, choices: readonly DeviceChoice[], selected?: string): SafeHtml => {
    const words = frame.text.device.choose;
    return html`<fieldset><legend>${words.legend}</legend>
<p class="help">${words.help}</p>${choices.map((choice, i) => html`
<label class="choice"><input type="radio" name="${CHOICE_FIELD}" value="${choice.value}" id="device-${i}"${(selected ?? choices[0]!.value) === choice.value ? html` checked` : ''}> ${
  choice.kind ? `${words.kinds[choice.kind as keyof typeof words.kinds] ?? choice.kind}: ` : ''}${choice.label}</label>`)}
</fieldset>`;
  };

  const formAnswer = (c: Context, status: 200 | 400 | 422, token: string, session: ConnectSession, domain: DeviceConnectDomain, form: PairingForm,
    extra: { values?: Record<string, string>; problems?: { field: string; problem: FieldProblem }[]; failure?: string; choices?: DeviceChoice[] } = {}) => {
    const frame = kit.frameOf(c, session);
    const shown: PairingForm = { ...form, fields: form.fields.filter((field) => field.name !== CHOICE_FIELD) };
    return kit.page(c, status, formPage(frame, {
      token, vendor: session.vendor, form: shown, values: extra.values, problems: extra.problems, failure: extra.failure,
      heading: frame.text.device.heading[domain](vendorName(session.vendor)), textKey: textKeyOf(domain, session.vendor),
      extra: extra.choices ? choicesHtml(frame, extra.choices, extra.values?.[CHOICE_FIELD]) : undefined,
    }), session.redirectUrl);
  };

  const attempt = async (token: string, session: ConnectSession, domain: DeviceConnectDomain, fields: Record<string, string>): Promise<Attempt> => {
    const signal = AbortSignal.timeout(probeTimeoutMs);
    let probed: ProbedDevice;
    try {
      const outcome = await deps.devicePairing!.probe(domain, session.vendor, fields, signal);
      if ('choices' in outcome) return { kind: 'choose', choices: outcome.choices };
      probed = outcome.device;
    } catch (err) {
      const code = err instanceof PairingProbeError ? err.code : signal.aborted ? 'TIMEOUT' : 'FAILED';
      const cause = err instanceof Error ? { type: err.name, message: err.message.slice(0, 200) } : { type: typeof err };
      kit.log.info({ userId: session.userId, vendor: session.vendor, domain, code, cause }, 'connect probe failed');
      return { kind: 'failed', code };
    }
    // One identity per device: another household cannot take it over through a connect link; for
    // its own household it is the device it already is.
    const identity = identityOf(probed.kind, probed.driver);
    const already = identity === null ? undefined
      : deps.store.devices.driven().find((d) => d.kind === probed.kind && d.driver !== null && identityOf(d.kind, d.driver) === identity);
    if (already && already.userId !== session.userId) {
      kit.log.info({ userId: session.userId, vendor: session.vendor, deviceId: already.id }, 'connect refused: the device belongs to another user');
      return { kind: 'failed', code: 'TAKEN' };
    }
    if (already) {
      if (!deps.store.connectSessions.consume(token, deps.clock.now())) return { kind: 'gone' };
      kit.log.info({ userId: session.userId, vendor: session.vendor, deviceId: already.id }, 'device connected again');
      return { kind: 'paired', location: kit.remember(token, outcomeUrl(session.redirectUrl, successOf(already.kind, already.id))) };
    }
    // Whole seconds, like every state the drivers write.
    const now = Math.floor(deps.clock.now() / 1000) * 1000;
    const device: DeviceRecord = {
      id: randomUUID(), kind: probed.kind, userId: session.userId, vendor: session.vendor, name: probed.name, model: probed.model,
      isOnline: true, lastUpdatedMs: now, locationId: null, hvacType: probed.hvacType, staticData: probed.staticData,
      state: probed.state ? { lastUpdated: formatTimestamp(now), ...probed.state } : null,
      driver: probed.driver, createdAtMs: now,
    };
    if (!deps.store.completeConnectSession(token, device, now)) return { kind: 'gone' };
    deps.runtime.deviceAdded?.(device);
    kit.log.info({ userId: session.userId, vendor: session.vendor, deviceId: device.id, kind: device.kind, driver: probed.driver.type }, 'device connected');
    return { kind: 'paired', location: kit.remember(token, outcomeUrl(session.redirectUrl, successOf(device.kind, device.id))) };
  };

  /** One probe per session at a time: a second submission (a double click) waits for the first's outcome. */
  const attemptOnce = (token: string, session: ConnectSession, domain: DeviceConnectDomain, fields: Record<string, string>) => {
    let running = attempts.get(token);
    if (!running) {
      running = attempt(token, session, domain, fields).finally(() => attempts.delete(token));
      attempts.set(token, running);
    }
    return running;
  };

  /** GET /connect/{token} of a live session of these kinds: the vendor's form. */
  const show = (c: Context, token: string, session: ConnectSession, domain: DeviceConnectDomain) => {
    const form = formOf(domain, session.vendor);
    if (!form) return notSupported(c, kit.frameOf(c, session), token, session, domain);
    return formAnswer(c, 200, token, session, domain, form, { values: form.initialValues?.() });
  };

  /** POST /connect/{token} of a live session of these kinds: connect, cancel, or give up. */
  const submit = async (c: Context, token: string, session: ConnectSession, domain: DeviceConnectDomain, submitted: Record<string, string>) => {
    const frame = kit.frameOf(c, session);
    const action = submitted['action'];
    if (action === 'cancel') return kit.leave(c, token, session, { status: 'CANCELLED' });
    const form = formOf(domain, session.vendor);
    if (!form) {
      if (action === 'giveUp') return kit.leave(c, token, session, { status: 'FAILED', error: 'VENDOR_NOT_SUPPORTED' });
      return notSupported(c, frame, token, session, domain);
    }
    if (action !== 'pair') return kit.page(c, 400, messagePage(frame, frame.text.badRequest));
    const input = readFormInput(form, submitted);
    if (input.problems.length > 0) return formAnswer(c, 400, token, session, domain, form, { values: input.values, problems: input.problems });
    const given = Object.fromEntries(Object.entries(input.values).filter(([, value]) => value !== ''));
    if (!mayProbe(token, session)) {
      kit.log.info({ userId: session.userId, vendor: session.vendor, domain }, 'connect probe refused: the link has started all the probes it may');
      return formAnswer(c, 422, token, session, domain, form, { values: input.values, failure: frame.text.device.tooMany });
    }
    const result = await attemptOnce(token, session, domain, given);
    if (result.kind === 'paired') return c.redirect(result.location, 303);
    if (result.kind === 'gone') return kit.closedNow(c, token);
    if (result.kind === 'choose') return formAnswer(c, 200, token, session, domain, form, { values: input.values, choices: result.choices });
    return formAnswer(c, 422, token, session, domain, form, { values: input.values, failure: frame.text.device.probe[result.code] });
  };

  return { show, submit };
}
