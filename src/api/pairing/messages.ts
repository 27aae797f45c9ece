// The pairing page's words, per language. Each language is one file (messages-en.ts, -de.ts, -fr.ts)
// typed by Messages, so a missing text is a type error. Vendor-specific texts (instructions, field
// labels) are keyed by vendor code and by the field names of that vendor's PairingForm.
import { en } from './messages-en.ts';
import { de } from './messages-de.ts';
import { fr } from './messages-fr.ts';
import type { Lang, Messages } from './message-types.ts';

export type { FieldText, Lang, Messages, VendorText } from './message-types.ts';

export const MESSAGES: Record<Lang, Messages> = { en, de, fr };

const SESSION_LANGUAGE: Record<string, Lang> = { ENGLISH: 'en', GERMAN: 'de', FRENCH: 'fr' };

/** The session's language when it has one, else the best of Accept-Language, else English. */
export function pickLanguage(sessionLanguage: string | null | undefined, acceptLanguage: string | undefined): Lang {
  const fromSession = sessionLanguage ? SESSION_LANGUAGE[sessionLanguage] : undefined;
  if (fromSession) return fromSession;
  const ranges = (acceptLanguage ?? '').slice(0, 500).split(',').map((part, index) => {
    const [tag = '', ...params] = part.trim().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    return { lang: tag.trim().toLowerCase().split('-')[0], weight: Number.isFinite(weight) ? weight : 0, index };
  });
  ranges.sort((a, b) => b.weight - a.weight || a.index - b.index);
  const best = ranges.find((r) => r.weight > 0 && (r.lang === 'en' || r.lang === 'de' || r.lang === 'fr'));
  return (best?.lang as Lang | undefined) ?? 'en';
}
