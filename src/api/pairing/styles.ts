// The pairing pages' one stylesheet, inline. The CSP allows exactly this text by its hash, so no other
// style (and no script at all) can run on the page. DARK and LIGHT sessions set data-theme on <html>;
// without one the page follows the browser's prefers-color-scheme.
import { createHash } from 'node:crypto';

const LIGHT = {
  bg: '#f4f6f8', fg: '#1b1f24', card: '#ffffff', muted: '#4f5b66', border: '#8c959f',
  accent: '#0a5cb8', 'accent-fg': '#ffffff', error: '#a8200d', 'error-bg': '#fdecea', focus: '#0a5cb8',
};
const DARK: typeof LIGHT = {
  bg: '#0f1419', fg: '#e6edf3', card: '#1a2129', muted: '#a5b1bd', border: '#6e7b88',
  accent: '#6cb6ff', 'accent-fg': '#0f1419', error: '#ffaba0', 'error-bg': '#3d1f1c', focus: '#6cb6ff',
};

const vars = (palette: typeof LIGHT) => Object.entries(palette).map(([name, value]) => `--${name}:${value};`).join('');

export const PAGE_CSS = [
  `:root{color-scheme:light;${vars(LIGHT)}}`,
  `:root[data-theme=dark]{color-scheme:dark;${vars(DARK)}}`,
  `@media (prefers-color-scheme:dark){:root:not([data-theme]){color-scheme:dark;${vars(DARK)}}}`,
  '*{box-sizing:border-box}',
  'body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}',
  'main{max-width:34rem;margin:2rem auto;padding:1.5rem;background:var(--card);border:1px solid var(--border);border-radius:12px}',
  'header{display:flex;align-items:center;gap:1rem;flex-wrap:wrap}',
  'h1{font-size:1.4rem;margin:.5rem 0}',
  'h2{font-size:1rem;margin:0 0 .25rem}',
  '.hub{color:var(--muted);font-size:.9rem;margin:0}',
  '.field{margin:1.25rem 0}',
  'label{display:block;font-weight:600}',
  '.help{color:var(--muted);font-size:.9rem;margin:.15rem 0 .35rem}',
  '.error{color:var(--error);font-weight:600;margin:.15rem 0 .35rem}',
  'input{width:100%;font:inherit;padding:.55rem .7rem;color:var(--fg);background:var(--card);border:1px solid var(--border);border-radius:6px}',
  'input[aria-invalid=true]{border:2px solid var(--error)}',
  'select{width:100%;font:inherit;padding:.55rem .7rem;color:var(--fg);background:var(--card);border:1px solid var(--border);border-radius:6px}',
  'fieldset{border:0;padding:0;margin:1.25rem 0}',
  'legend{font-weight:600;padding:0}',
  '.choice{display:flex;gap:.5rem;align-items:baseline;margin:.35rem 0;font-weight:400}',
  '.choice input{width:auto}',
  '.code{font:700 2rem/1.2 ui-monospace,SFMono-Regular,Menlo,monospace;letter-spacing:.12em;margin:.25rem 0 1rem;user-select:all}',
  '.alert{border-left:4px solid var(--error);background:var(--error-bg);padding:.75rem 1rem;margin:1rem 0;border-radius:4px}',
  '.alert ul{margin:.25rem 0 0;padding-left:1.2rem}',
  '.alert a{color:var(--fg)}',
  '.actions{display:flex;gap:.75rem;flex-wrap:wrap;margin-top:1.5rem}',
  'button,.button{font:inherit;font-weight:600;padding:.6rem 1.2rem;border-radius:6px;border:1px solid var(--accent);cursor:pointer;text-decoration:none;display:inline-block}',
  '.primary{background:var(--accent);color:var(--accent-fg)}',
  '.secondary{background:transparent;color:var(--accent)}',
  ':focus-visible{outline:3px solid var(--focus);outline-offset:2px}',
].join('\n');

/** The CSP source that allows exactly PAGE_CSS. */
export const PAGE_CSS_SOURCE = `'sha256-${createHash('sha256').update(PAGE_CSS).digest('base64')}'`;
