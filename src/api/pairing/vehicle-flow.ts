// The connect page of a vehicle session (POST /connections/vehicles): the owner fills in what the
// maker's login needs (vehicle-connector.ts), logs in at the maker (BMW: confirms a code on BMW's
// page while this page waits; Volvo: is sent to Volvo ID and comes back to /connect/callback),
// chooses the car and the charger it charges at, and the hub adds it for the session's userId (or,
// for a car of this user already on the hub, renews its login) and sends the browser back to
// redirectUrl with status=SUCCESS&vehicleId=<id>. The routes and the session's life are the pairing
// page's (routes.ts); this file is what differs for a car.
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import type { Logger } from 'pino';
import type { ApiDeps } from '../deps.ts';
import type { DeviceRecord, DriverBinding } from '../../domain/device.ts';
import type { ConnectSession } from '../../store/connect-sessions.ts';
import { FIRST_PAGE } from '../../store/devices.ts';
import { formPage, messagePage, notSupportedPage, vendorName, type FormPageInput, type PageFrame } from './pages.ts';
import { choosePage, codePage, redirectPage } from './vehicle-pages.ts';
import { readFormInput } from './form-input.ts';
import { outcomeUrl, type PairingOutcome } from './outcome.ts';
import { VehicleLoginFailed, type ConnectableCar } from '../../runtime/devices/vehicle-connector.ts';
import type { PairingForm } from '../../runtime/devices/pairing-prober.ts';
import { LoginBrowsers } from './login-browser.ts';

/** What the vehicle flow uses of the pairing routes. */
export interface PageKit {
  deps: ApiDeps;
  log: Logger;
  frameOf(c: Context, session?: ConnectSession): PageFrame;
  page(c: Context, status: 200 | 400 | 403 | 404 | 410 | 413 | 422 | 500, body: string, redirectUrl?: string): Response;
  /** Ends the session with an outcome that adds nothing (cancel, give up). */
  leave(c: Context, token: string, session: ConnectSession, outcome: PairingOutcome): Response | Promise<Response>;
  /** Remembers where an ended session sent the browser (a repeated submission goes there too). */
  remember(token: string, location: string): string;
  /** The answer for a session used or expired meanwhile. */
  closedNow(c: Context, token: string): Response;
}

/** The hub's one address a maker's login sends the browser back to (the owner registers it with the maker). */
export const VEHICLE_CALLBACK_PATH = '/connect/callback';


export function vehicleFlow(kit: PageKit) {
  const { deps } = kit;
  // Read at each use: the daemon learns its public address once it listens, after the routes exist.
  const callbackUrlOf = () => `${deps.settings.publicUrl}${VEHICLE_CALLBACK_PATH}`;
  const formOf = (vendor: string) => deps.vehicles?.forms().get(vendor);
  const browsers = new LoginBrowsers();

  const loginPage = (c: Context, status: 200 | 400 | 422, token: string, session: ConnectSession, form: PairingForm,
    extra: Pick<FormPageInput, 'values' | 'problems' | 'failure'> = {}) => {
    const frame = kit.frameOf(c, session);
    const maker = vendorName(session.vendor);
    // A masked field (Volvo's client secret and API key) is never sent back: the owner enters it again.
    return kit.page(c, status, formPage(frame, {
      token, vendor: session.vendor, form: { ...form, hints: { ...form.hints, callbackUrl: callbackUrlOf() } },
      heading: frame.text.vehicle.heading(maker), submit: { label: frame.text.vehicle.login(maker), action: 'login' }, ...extra,
    }), session.redirectUrl);
  };

  /** The user's chargers a car can charge at, labelled as the owner knows them. */
  const chargersOf = (userId: string) => deps.store.devices.list({ kind: 'charger', ownerId: userId }, FIRST_PAGE).items
    .map((charger) => ({ id: charger.id, label: [charger.name ?? vendorName(charger.vendor), charger.model].filter(Boolean).join(' · ') }));

  /** The vehicle with this VIN on the hub, whoever's it is (the store's filter matches a part of it;
   * a VIN is one in any case, as binding-identity.ts has it: an import may have written it in lower case). */
  const sameVin = (a: unknown, vin: string) => typeof a === 'string' && a.trim().toUpperCase() === vin.toUpperCase();
  const vehicleWithVin = (vin: string) => deps.store.devices.list({ kind: 'vehicle', vin }, FIRST_PAGE).items
    .find((d) => sameVin(d.staticData['vin'], vin) || sameVin(d.driver?.['vin'], vin));

  const chooseAnswer = (c: Context, status: 200 | 400 | 422, token: string, session: ConnectSession, cars: readonly ConnectableCar[],
    selected: { vin?: string; chargerId?: string }, failure?: string) => {
    const chargers = chargersOf(session.userId);
    // With one charger, it is the one the car charges at, unless the owner says otherwise.
    const chargerId = selected.chargerId ?? (chargers.length === 1 ? chargers[0]!.id : undefined);
    const known = new Set(cars.filter((car) => vehicleWithVin(car.vin)?.userId === session.userId).map((car) => car.vin));
    const body = choosePage(kit.frameOf(c, session), {
      token, vendor: session.vendor, cars, chargers, known, failure,
      selected: { ...selected, ...(chargerId ? { chargerId } : {}) },
    });
    return kit.page(c, status, body, session.redirectUrl);
  };

  /** GET /connect/{token} of a live vehicle session: where its login stands. */
  const show = (c: Context, token: string, session: ConnectSession) => {
    const frame = kit.frameOf(c, session);
    const form = formOf(session.vendor);
    if (!form || !deps.vehicles) return kit.page(c, 200, notSupportedPage(frame, token, session.vendor, frame.text.vehicle.notSupported), session.redirectUrl);
    const progress = deps.vehicles.progress(token);
    if (progress.state === 'waiting' && progress.start.kind === 'deviceCode') {
      return kit.page(c, 200, codePage(frame, token, session.vendor, progress.start), session.redirectUrl);
    }
    if (progress.state === 'loggedIn') return chooseAnswer(c, 200, token, session, progress.cars, {});
    if (progress.state === 'failed') return loginPage(c, 200, token, session, form, { failure: frame.text.vehicle.failed[progress.error] });
    // Not begun, or the owner came back from the maker's page without finishing: the form again.
    return loginPage(c, 200, token, session, form);
  };

  /** POST /connect/{token} of a live vehicle session: log in, add the car, cancel, or give up. */
  const submit = async (c: Context, token: string, session: ConnectSession, submitted: Record<string, string>) => {
    const frame = kit.frameOf(c, session);
    const action = submitted['action'];
    if (action === 'cancel') {
      deps.vehicles?.end(token);
      return kit.leave(c, token, session, { status: 'CANCELLED' });
    }
    const form = formOf(session.vendor);
    if (!form || !deps.vehicles) {
      if (action === 'giveUp') return kit.leave(c, token, session, { status: 'FAILED', error: 'VENDOR_NOT_SUPPORTED' });
      return kit.page(c, 200, notSupportedPage(frame, token, session.vendor, frame.text.vehicle.notSupported), session.redirectUrl);
    }
    if (action === 'login') {
      const input = readFormInput(form, submitted);
      if (input.problems.length > 0) return loginPage(c, 400, token, session, form, { values: input.values, problems: input.problems });
      const fields = Object.fromEntries(Object.entries(input.values).filter(([, value]) => value !== ''));
      let start;
      try {
        start = await deps.vehicles.begin(token, { vendor: session.vendor, fields, callbackUrl: callbackUrlOf(), vin: session.vin });
      } catch (err) {
        if (!(err instanceof VehicleLoginFailed)) throw err;
        kit.log.info({ userId: session.userId, vendor: session.vendor, code: err.code }, 'vehicle login failed');
        return loginPage(c, 422, token, session, form, { values: input.values, failure: frame.text.vehicle.failed[err.code] });
      }
      kit.log.info({ userId: session.userId, vendor: session.vendor, step: start.kind }, 'vehicle login begun');
      if (start.kind === 'redirect') {
        browsers.bind(c, token);
        return kit.page(c, 200, redirectPage(frame, session.vendor, start.url));
      }
      return c.redirect(`/connect/${token}`, 303);
    }
    if (action !== 'add') return kit.page(c, 400, messagePage(frame, frame.text.badRequest));

    const progress = deps.vehicles.progress(token);
    // Not logged in (any more): the page says where the login stands.
    if (progress.state !== 'loggedIn') return c.redirect(`/connect/${token}`, 303);
    const vin = submitted['vin'] ?? (progress.cars.length === 1 ? progress.cars[0]!.vin : undefined);
    const car = progress.cars.find((candidate) => candidate.vin === vin);
    const chargerId = (submitted['chargerId'] ?? '').trim().toLowerCase();
    if (!car || (chargerId !== '' && !chargersOf(session.userId).some((charger) => charger.id === chargerId))) {
      return chooseAnswer(c, 400, token, session, progress.cars, { ...(vin ? { vin } : {}) }, frame.text.badRequest.body);
    }
    const existing = vehicleWithVin(car.vin);
    if (existing && existing.userId !== session.userId) {
      kit.log.info({ userId: session.userId, vendor: session.vendor, deviceId: existing.id }, 'vehicle connect refused: the car belongs to another user');
      return chooseAnswer(c, 422, token, session, progress.cars, { vin: car.vin, chargerId }, frame.text.vehicle.failed.TAKEN);
    }
    // The charger chosen now, else the one the car was bound to before (a renewed login keeps it).
    const boundTo = chargerId || (typeof existing?.driver?.['chargerId'] === 'string' ? existing.driver['chargerId'] : '');
    const now = Math.floor(deps.clock.now() / 1000) * 1000;
    // loginAtMs: when the owner logged in. Cars of one maker account share the newest login
    // (src/runtime/cloud/account-login.ts), so a renewed login takes over from an older one.
    const driver: DriverBinding = { ...car.driver, loginAtMs: now, ...(boundTo ? { chargerId: boundTo } : {}) };
    let device: DeviceRecord;
    let done: boolean;
    if (existing) {
      done = deps.store.completeVehicleConnect(token, now, { renew: existing.id, driver });
      device = { ...existing, driver };
    } else {
      device = {
        id: randomUUID(), kind: 'vehicle', userId: session.userId, vendor: session.vendor, name: null, model: car.model,
        isOnline: false, lastUpdatedMs: null, locationId: null, hvacType: null, staticData: { vin: car.vin }, state: null,
        driver, createdAtMs: now,
      };
      done = deps.store.completeVehicleConnect(token, now, { add: device });
    }
    if (!done) return kit.closedNow(c, token);
    deps.vehicles.end(token);
    deps.runtime.deviceAdded?.(device);
    kit.log.info({ userId: session.userId, vendor: session.vendor, deviceId: device.id, driver: driver.type }, existing ? 'vehicle login renewed' : 'vehicle connected');
    return c.redirect(kit.remember(token, outcomeUrl(session.redirectUrl, { status: 'SUCCESS', vehicleId: device.id })), 303);
  };

  /**
   * GET /connect/callback: the maker's login sends the browser back; on to the session's page, only
   * in the browser that began that login (login-browser.ts). Without its cookie the query is not
   * even looked at: the login stays waiting for the owner's own browser.
   */
  const callback = async (c: Context) => {
    const token = browsers.sessionOf(c);
    if (token === undefined) {
      const frame = kit.frameOf(c);
      kit.log.info('vehicle login callback refused: not the browser that began the login');
      return kit.page(c, 403, messagePage(frame, frame.text.vehicle.otherBrowser));
    }
    // Only this browser's session's login: another's state is left for the browser that began it.
    const key = deps.vehicles ? await deps.vehicles.callback(new URL(c.req.url).searchParams, token) : undefined;
    if (key === undefined) {
      const frame = kit.frameOf(c);
      return kit.page(c, 404, messagePage(frame, frame.text.unknown));
    }
    browsers.forget(token);
    return c.redirect(`/connect/${key}`, 303);
  };

  return { show, submit, callback };
}

