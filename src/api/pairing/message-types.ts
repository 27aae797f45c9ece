// The shape of the pairing page's words (Messages) and the languages it speaks. Its own file so that
// messages.ts and each language's file import it without importing each other.
import type { ProbeErrorCode } from '../../runtime/devices/pairing-prober.ts';
import type { VehicleLoginError } from '../../runtime/devices/vehicle-connector.ts';
import type { DeviceConnectDomain } from '../../runtime/devices/device-prober.ts';

export type Lang = 'en' | 'de' | 'fr';

export interface FieldText {
  label: string;
  help: string;
  /** Shown when the value does not match the field's pattern. */
  invalid: string;
}

export interface VendorText {
  /** Paragraphs telling the user how to prepare the charger; `hints` are the prober's (e.g. broker). */
  instructions(hints: Readonly<Record<string, string>>): string[];
  fields: Record<string, FieldText>;
}

export interface Messages {
  hubName: string;
  heading(vendorName: string): string;
  optional: string;
  submit: string;
  cancel: string;
  problemsHeading: string;
  required(label: string): string;
  tooLong(label: string, maxLength: number): string;
  invalid(label: string): string;
  /** Probe failures; TAKEN: the charger is another user's; FAILED is any other failure. */
  probe: Record<ProbeErrorCode | 'TAKEN' | 'FAILED', string>;
  notSupported: { heading: string; body(vendorName: string): string; back: string };
  unknown: { heading: string; body: string };
  used: { heading: string; body: string };
  expired: { heading: string; body: string; back: string };
  badRequest: { heading: string; body: string };
  tooLarge: { heading: string; body: string };
  failure: { heading: string; body: string };
  /** The vehicle connect page's own words (the maker's login, its code, the choice of car). */
  vehicle: VehicleMessages;
  /** The connect page of HVAC units, home-power devices and tariffs (device-flow.ts). */
  device: DeviceMessages;
  /** Per vendor code (chargers and car makers; `hvac:DAIKIN`, `homePower:SMA`, `tariffs` for the
   * device page), keyed by the field names of its form. */
  vendors: Partial<Record<string, VendorText>>;
}

export interface DeviceMessages {
  heading: Record<DeviceConnectDomain, (vendorName: string) => string>;
  /** Probe failures; TAKEN: the device is another user's; FAILED is any other failure. */
  probe: Record<ProbeErrorCode | 'TAKEN' | 'FAILED', string>;
  /** The link has started all the probes it may (device-flow.ts, PROBES_PER_SESSION). */
  tooMany: string;
  /** A scan found several devices or kinds: which one. */
  choose: { legend: string; help: string; kinds: Record<'pvInverter' | 'battery' | 'meter', string> };
  notSupported: Record<DeviceConnectDomain, { heading: string; body(vendorName: string): string }>;
}

export interface VehicleMessages {
  heading(vendorName: string): string;
  /** The login form's button. */
  login(vendorName: string): string;
  /** Login failures; TAKEN: the car is another user's on this hub. */
  failed: Record<VehicleLoginError | 'TAKEN', string>;
  /** BMW's device code: what the owner does with it, while the page waits. */
  code: {
    heading(vendorName: string): string;
    steps(vendorName: string): string[];
    codeLabel: string;
    open(vendorName: string): string;
    waiting: string;
    checkNow: string;
  };
  /**
   * Back from the maker's login in a browser that did not start it (no cookie of that login): the
   * link could have been taken; the owner starts again from the browser they use.
   */
  otherBrowser: { heading: string; body: string };
  /** On the way to the maker's login page. */
  redirect: { heading(vendorName: string): string; body(vendorName: string): string; continue(vendorName: string): string };
  /** Logged in: which car, at which charger. */
  choose: {
    heading: string;
    body(vendorName: string): string;
    car: string;
    charger: string;
    chargerHelp: string;
    noCharger: string;
    add: string;
    /** Shown when the car is already on the hub for this user: connecting renews its login. */
    renew: string;
  };
  notSupported: { heading: string; body(vendorName: string): string };
}
