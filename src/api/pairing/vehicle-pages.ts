// The vehicle connect pages (the maker's login for POST /connections/vehicles), drawn in the pairing
// pages' layout: BMW's code while the hub waits for it to be confirmed, the way on to a maker's login
// page, and the choice of car and charger once logged in. The login form itself is the pairing form.
import { html } from './html.ts';
import { layout, vendorHeader, vendorName, type PageFrame } from './pages.ts';
import type { ConnectableCar, VehicleLoginStart } from '../../runtime/devices/vehicle-connector.ts';

/** How often the code page looks again whether the owner has confirmed the code, in seconds. */
const CODE_PAGE_REFRESH_SECONDS = 3;

function cancelButton(frame: PageFrame) {
  return html`<button type="submit" name="action" value="cancel" class="secondary">${frame.text.cancel}</button>`;
}

/** BMW's device code: the owner confirms it on the maker's page; this page refreshes until then. */
export function codePage(frame: PageFrame, token: string, vendor: string, start: Extract<VehicleLoginStart, { kind: 'deviceCode' }>): string {
  const words = frame.text.vehicle.code;
  const maker = vendorName(vendor);
  const heading = words.heading(maker);
  const body = html`${vendorHeader(frame, vendor, heading)}
${words.steps(maker).map((p) => html`<p>${p}</p>`)}
<p class="hub">${words.codeLabel}</p>
<p class="code" id="user-code">${start.userCode}</p>
<div class="actions">
<a class="button primary" href="${start.verificationUriComplete ?? start.verificationUri}" target="_blank" rel="noopener noreferrer">${words.open(maker)}</a>
</div>
<p role="status">${words.waiting}</p>
<form method="post" action="/connect/${token}">
<div class="actions">
<a class="button secondary" href="/connect/${token}">${words.checkNow}</a>
${cancelButton(frame)}
</div>
</form>`;
  return layout(frame, heading, body, String(CODE_PAGE_REFRESH_SECONDS));
}

/** On the way to the maker's login page: a meta refresh goes on at once, the link if it does not. */
export function redirectPage(frame: PageFrame, vendor: string, url: string): string {
  const words = frame.text.vehicle.redirect;
  const maker = vendorName(vendor);
  const heading = words.heading(maker);
  const body = html`${vendorHeader(frame, vendor, heading)}
<p>${words.body(maker)}</p>
<div class="actions"><a class="button primary" href="${url}" autofocus>${words.continue(maker)}</a></div>`;
  return layout(frame, heading, body, `0;url=${url}`);
}

export interface ChoosePageInput {
  token: string;
  vendor: string;
  cars: readonly ConnectableCar[];
  /** The owner's chargers the car can be bound to. */
  chargers: readonly { id: string; label: string }[];
  selected: { vin?: string; chargerId?: string };
  /** VINs of these cars already on the hub for this user (adding renews their login). */
  known: ReadonlySet<string>;
  failure?: string;
}

/** Logged in: which car (when the account has several) and at which charger it charges. */
export function choosePage(frame: PageFrame, input: ChoosePageInput): string {
  const words = frame.text.vehicle.choose;
  const maker = vendorName(input.vendor);
  const carLabel = (car: ConnectableCar) => (car.model ? `${car.model} · ${car.vin}` : car.vin);
  const selectedVin = input.selected.vin ?? input.cars[0]?.vin;
  const cars = input.cars.length === 1
    ? html`<input type="hidden" name="vin" value="${input.cars[0]!.vin}">
<p><strong>${words.car}:</strong> ${carLabel(input.cars[0]!)}</p>`
    : html`<fieldset><legend>${words.car}</legend>${input.cars.map((car, i) => html`
<label class="choice"><input type="radio" name="vin" value="${car.vin}" id="car-${i}"${car.vin === selectedVin ? html` checked` : ''}> ${carLabel(car)}</label>`)}
</fieldset>`;
  const chargers = input.chargers.length === 0 ? '' : html`
<div class="field">
<label for="f-chargerId">${words.charger}</label>
<p class="help" id="f-chargerId-help">${words.chargerHelp}</p>
<select id="f-chargerId" name="chargerId" aria-describedby="f-chargerId-help">
<option value="">${words.noCharger}</option>${input.chargers.map((c) => html`
<option value="${c.id}"${c.id === input.selected.chargerId ? html` selected` : ''}>${c.label}</option>`)}
</select>
</div>`;
  const renew = input.cars.some((car) => input.known.has(car.vin)) ? html`<p class="help">${words.renew}</p>` : '';
  const body = html`${vendorHeader(frame, input.vendor, words.heading)}
<p>${words.body(maker)}</p>
${input.failure ? html`<div class="alert" role="alert" id="problem"><p>${input.failure}</p></div>` : ''}
<form method="post" action="/connect/${input.token}">
${cars}
${renew}
${chargers}
<div class="actions">
<button type="submit" name="action" value="add" class="primary" autofocus>${words.add}</button>
${cancelButton(frame)}
</div>
</form>`;
  return layout(frame, words.heading, body);
}
