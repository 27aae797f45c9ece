// The household page's one stylesheet, inline and allowed by its hash (as the pairing pages'): the
// same palettes, light and dark, following the browser unless the page was asked for one.
import { createHash } from 'node:crypto';

const LIGHT = {
  bg: '#f4f6f8', fg: '#1b1f24', card: '#ffffff', muted: '#4f5b66', border: '#c4ccd4',
  accent: '#0a5cb8', error: '#a8200d', 'error-bg': '#fdecea', pv: '#b7791f', grid: '#5a6570', battery: '#2f855a', car: '#6b46c1', price: '#c05621',
};
const DARK: typeof LIGHT = {
  bg: '#0f1419', fg: '#e6edf3', card: '#1a2129', muted: '#a5b1bd', border: '#3a4550',
  accent: '#6cb6ff', error: '#ffaba0', 'error-bg': '#3d1f1c', pv: '#f6c343', grid: '#a5b1bd', battery: '#68d391', car: '#b794f4', price: '#f6ad55',
};

const vars = (palette: typeof LIGHT) => Object.entries(palette).map(([name, value]) => `--${name}:${value};`).join('');

export const HOME_CSS = [
  `:root{color-scheme:light;${vars(LIGHT)}}`,
  `:root[data-theme=dark]{color-scheme:dark;${vars(DARK)}}`,
  `@media (prefers-color-scheme:dark){:root:not([data-theme]){color-scheme:dark;${vars(DARK)}}}`,
  '*{box-sizing:border-box}',
  'body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}',
  'header{display:flex;align-items:center;justify-content:space-between;gap:.5rem;flex-wrap:wrap;padding:.75rem 1rem;border-bottom:1px solid var(--border)}',
  'h1{font-size:1.2rem;margin:0}h2{font-size:1.05rem;margin:0 0 .5rem}',
  'main{max-width:90rem;margin:0 auto;padding:.75rem;display:grid;gap:.75rem}',
  'section{background:var(--card);border:1px solid var(--border);border-radius:12px;padding:.75rem 1rem;min-width:0}',
  '#read-only,#key{grid-column:1/-1}',
  '@media (min-width:900px){main{grid-template-columns:minmax(0,5fr) minmax(0,7fr);padding:1rem;gap:1rem}#curves,#devices{grid-column:1/-1}}',
  '@media (min-width:1200px){main{grid-template-columns:minmax(0,4fr) minmax(0,4fr) minmax(0,5fr)}#curves{grid-column:auto}}',
  '#device-list{display:grid;gap:.75rem;grid-template-columns:repeat(auto-fill,minmax(17rem,1fr))}',
  '.money{display:grid;grid-template-columns:1fr 1fr;gap:.75rem;margin-bottom:.5rem}.money div{display:flex;flex-direction:column}.money strong{font-size:1.5rem;line-height:1.2}',
  '#energy-today{grid-template-columns:max-content 1fr;margin:0}#energy-today dd{font-weight:600;font-variant-numeric:tabular-nums}',
  '.muted{color:var(--muted);font-size:.9rem}',
  'svg{width:100%;height:auto;display:block}',
  'svg.flows{max-height:16rem;margin:0 auto}',
  '.flows text{fill:var(--fg);font-size:12px;text-anchor:middle}.flows .kw{font-size:15px;font-weight:700}.flows .sub{font-size:11px;fill:var(--muted)}',
  '.flows circle{fill:var(--card);stroke-width:3}.flows line{stroke-width:3;stroke:var(--border)}',
  '.flows line.on{stroke-dasharray:8 6;animation:flow 1s linear infinite}',
  '.flows line.on.reverse{animation-direction:reverse}',
  '@keyframes flow{to{stroke-dashoffset:-14}}@media (prefers-reduced-motion:reduce){.flows line.on{animation:none}}',
  '#n-pv circle,line.pv{stroke:var(--pv)}#n-grid circle,line.grid{stroke:var(--grid)}#n-battery circle,line.battery{stroke:var(--battery)}#n-car circle,line.car{stroke:var(--car)}#n-home circle{stroke:var(--accent)}',
  '.device{border:1px solid var(--border);border-radius:10px;padding:.5rem .75rem}.device p{margin:.15rem 0}.device .now{font-weight:600}.device .reason{color:var(--error);font-size:.9rem}',
  'details{font-size:.85rem;margin-top:.25rem}summary{cursor:pointer;color:var(--muted)}',
  '.device h3{font-size:1rem;margin:0;display:flex;gap:.5rem;align-items:baseline;justify-content:space-between}',
  '.badge{font-size:.8rem;padding:0 .45rem;white-space:nowrap;border-radius:9px;border:1px solid var(--border)}.badge.off{color:var(--error);border-color:var(--error);background:var(--error-bg)}',
  'dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem .75rem;margin:.35rem 0;font-size:.9rem}dt{color:var(--muted)}dd{margin:0;overflow-wrap:anywhere}',
  '.commands{font-size:.9rem;margin:.25rem 0 0;padding-left:1.1rem}',
  'form{display:grid;gap:.5rem;max-width:28rem}label{font-weight:600}',
  'input,select,button{font:inherit;padding:.45rem .6rem;border-radius:6px;border:1px solid var(--border);background:var(--card);color:var(--fg)}',
  'button{background:var(--accent);color:var(--card);border-color:var(--accent);font-weight:600;cursor:pointer}',
  '.error{color:var(--error);font-weight:600}.note{font-weight:600}[hidden]{display:none!important}',
  '.curve circle.now{fill:currentColor;stroke:none}.curve polyline{fill:none;stroke-width:2}.curve .axis{stroke:var(--border);stroke-width:1}.curve text{fill:var(--muted);font-size:11px}',
  '.legend{display:flex;gap:1rem;flex-wrap:wrap;font-size:.85rem;margin:.25rem 0}.legend span::before{content:"";display:inline-block;width:.8rem;height:.25rem;margin-right:.3rem;vertical-align:middle;background:currentColor}',
  '.c-pv{color:var(--pv);stroke:var(--pv)}.c-home{color:var(--accent);stroke:var(--accent)}.c-grid{color:var(--grid);stroke:var(--grid)}.c-battery{color:var(--battery);stroke:var(--battery)}.c-price{color:var(--price);stroke:var(--price)}',
  ':focus-visible{outline:3px solid var(--accent);outline-offset:2px}',
].join('\n');

/** The CSP source that allows exactly HOME_CSS. */
export const HOME_CSS_SOURCE = `'sha256-${createHash('sha256').update(HOME_CSS).digest('base64')}'`;
