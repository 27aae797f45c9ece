// The shape of the pairing page's words (Messages) and the languages it speaks. Its own file so that
// messages.ts and each language's file import it without importing each other.
import type { ProbeErrorCode } from '../../runtime/pairing-prober.ts';

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
  vendors: Partial<Record<string, VendorText>>;
}
