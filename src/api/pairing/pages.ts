// The pairing pages as HTML strings: one layout (language, theme, stylesheet) and the pages drawn in
// it. Everything echoed (field values, names) goes through html``, which escapes it.
import { html, SafeHtml, type HtmlValue } from './html.ts';
import type { FieldProblem } from './form-input.ts';
import type { Lang, Messages } from './messages.ts';
import type { PairingField, PairingForm } from '../../runtime/devices/pairing-prober.ts';
import { PAGE_CSS } from './styles.ts';
import { logoFileName, VENDOR_NAMES } from '../../domain/vendors.ts';

/** The hub's own constant stylesheet goes in byte for byte: the CSP allows it by its hash. */
const STYLESHEET = new SafeHtml(PAGE_CSS);

export type Theme = 'dark' | 'light' | null;

export interface PageFrame {
  lang: Lang;
  theme: Theme;
  text: Messages;
}

/**
 * The page around a body. `refresh`: a meta refresh's content (`3`, or `0;url=…`), for the pages that
 * move on by themselves without a script (the CSP allows none).
 */
export function layout(frame: PageFrame, title: string, body: SafeHtml, refresh?: string): string {
  const colorScheme = frame.theme ?? 'light dark';
  return html`<!doctype html>
<html lang="${frame.lang}"${frame.theme ? html` data-theme="${frame.theme}"` : ''}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="${colorScheme}">
<meta name="referrer" content="no-referrer">
${refresh ? html`<meta http-equiv="refresh" content="${refresh}">\n` : ''}<title>${title} · ${frame.text.hubName}</title>
<style>${STYLESHEET}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`.value;
}


export function vendorName(vendor: string): string {
  return VENDOR_NAMES[vendor] ?? vendor;
}

export function vendorHeader(frame: PageFrame, vendor: string, heading: string): SafeHtml {
  return html`<header>
<img src="/logos/${logoFileName(vendor)}" alt="" height="48">
<div><p class="hub">${frame.text.hubName}</p><h1>${heading}</h1></div>
</header>`;
}

export interface FormPageInput {
  token: string;
  vendor: string;
  form: PairingForm;
  values?: Record<string, string>;
  problems?: { field: string; problem: FieldProblem }[];
  /** A translated probe failure, shown above the form. */
  failure?: string;
  /** The page's heading, when not the charger's. */
  heading?: string;
  /** The submit button's label and action, when not the charger's Connect (`pair`). */
  submit?: { label: string; action: string };
  /** Where the vendor's words are in `text.vendors`, when not under the vendor code (`hvac:DAIKIN`). */
  textKey?: string;
  /** More of the form, after its fields (the devices a scan found, to choose from). */
  extra?: SafeHtml;
}

function fieldId(name: string): string {
  return `f-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

export function formPage(frame: PageFrame, input: FormPageInput): string {
  const { text } = frame;
  const vendorText = text.vendors[input.textKey ?? input.vendor];
  const label = (field: PairingField) => vendorText?.fields[field.name]?.label ?? field.name;
  const problems = input.problems ?? [];
  const problemOf = (name: string) => problems.find((p) => p.field === name)?.problem;
  const message = (field: PairingField, problem: FieldProblem): string => {
    if (problem === 'required') return text.required(label(field));
    if (problem === 'tooLong') return text.tooLong(label(field), field.maxLength);
    return vendorText?.fields[field.name]?.invalid ?? text.invalid(label(field));
  };
  const firstInvalid = input.form.fields.find((f) => problemOf(f.name));
  const focus = firstInvalid ?? input.form.fields[0];

  const fields = input.form.fields.map((field) => {
    const id = fieldId(field.name);
    const problem = problemOf(field.name);
    const help = vendorText?.fields[field.name]?.help;
    const describedBy = [help ? `${id}-help` : '', problem ? `${id}-error` : ''].filter(Boolean).join(' ');
    return html`
<div class="field">
<label for="${id}">${label(field)}${field.required ? '' : html` <span class="hub">${text.optional}</span>`}</label>
${help ? html`<p class="help" id="${id}-help">${help}</p>` : ''}
${problem ? html`<p class="error" id="${id}-error">${message(field, problem)}</p>` : ''}
<input id="${id}" name="${field.name}" type="${field.masked ? 'password' : 'text'}" value="${field.masked ? '' : input.values?.[field.name] ?? ''}" maxlength="${field.maxLength}"${
  field.pattern ? html` pattern="${field.pattern}"` : ''}${field.required ? html` required aria-required="true"` : ''}${
  describedBy ? html` aria-describedby="${describedBy}"` : ''}${problem ? html` aria-invalid="true"` : ''}${
  field === focus ? html` autofocus` : ''} autocomplete="off" autocapitalize="off" spellcheck="false">
</div>`;
  });

  let alert: HtmlValue = '';
  if (input.failure) {
    alert = html`<div class="alert" role="alert" id="problem"><p>${input.failure}</p></div>`;
  } else if (problems.length > 0) {
    alert = html`<div class="alert" role="alert" id="problem"><h2>${text.problemsHeading}</h2><ul>${input.form.fields
      .filter((f) => problemOf(f.name))
      .map((f) => html`<li><a href="#${fieldId(f.name)}">${message(f, problemOf(f.name)!)}</a></li>`)}</ul></div>`;
  }
  const heading = input.heading ?? text.heading(vendorName(input.vendor));
  const submit = input.submit ?? { label: text.submit, action: 'pair' };
  const body = html`${vendorHeader(frame, input.vendor, heading)}
${(vendorText?.instructions(input.form.hints ?? {}) ?? []).map((p) => html`<p>${p}</p>`)}
${alert}
<form method="post" action="/connect/${input.token}" novalidate>
${fields}
${input.extra ?? ''}
<div class="actions">
<button type="submit" name="action" value="${submit.action}" class="primary">${submit.label}</button>
<button type="submit" name="action" value="cancel" class="secondary">${text.cancel}</button>
</div>
</form>`;
  return layout(frame, heading, body);
}

/** The page for a session whose vendor this hub cannot pair (or connect); its button returns to the app. */
export function notSupportedPage(frame: PageFrame, token: string, vendor: string, words?: { heading: string; body(vendorName: string): string }): string {
  const notSupported = { ...frame.text.notSupported, ...words };
  const body = html`${vendorHeader(frame, vendor, notSupported.heading)}
<p>${notSupported.body(vendorName(vendor))}</p>
<form method="post" action="/connect/${token}">
<div class="actions"><button type="submit" name="action" value="giveUp" class="primary" autofocus>${notSupported.back}</button></div>
</form>`;
  return layout(frame, notSupported.heading, body);
}

/** A page that only says something (unknown, used, expired link; unreadable form; failure). */
export function messagePage(frame: PageFrame, message: { heading: string; body: string }, back?: { href: string; label: string }): string {
  const body = html`<p class="hub">${frame.text.hubName}</p>
<h1>${message.heading}</h1>
<p>${message.body}</p>
${back ? html`<div class="actions"><a class="button primary" href="${back.href}" autofocus>${back.label}</a></div>` : ''}`;
  return layout(frame, message.heading, body);
}
