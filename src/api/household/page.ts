// The household page's HTML: a shell with no data of the household (it is served without a key);
// the script (/home/app.js) asks for a key, then reads the devices and the live stream with it.
import { html, SafeHtml } from '../pairing/html.ts';
import type { Lang } from '../pairing/messages.ts';
import { HOME_CSS } from './styles.ts';
import { HOME_WORDS } from './messages.ts';

/** A node of the flows picture: its place, its word, the id its number is written to. */
function node(id: string, x: number, y: number, label: string): SafeHtml {
  return html`<g id="n-${id}"><circle cx="${x}" cy="${y}" r="42"></circle><text x="${x}" y="${y - 6}">${label}</text><text class="kw" id="kw-${id}" x="${x}" y="${y + 14}">–</text><text id="sub-${id}" x="${x}" y="${y + 30}"></text></g>`;
}

export function renderHomePage(lang: Lang, theme: 'light' | 'dark' | undefined): string {
  const words = HOME_WORDS[lang];
  // The words go to the script as data: a JSON block is not run, so the CSP needs no exception.
  const data = JSON.stringify(words).replace(/</g, '\\u003c');
  const page = html`<!doctype html><html lang="${lang}"${theme ? html` data-theme="${theme}"` : ''}><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>${words.title} · home-energy-hub</title>
<style>${new SafeHtml(HOME_CSS)}</style>
<script type="application/json" id="words">${new SafeHtml(data)}</script>
<script src="/home/app.js" defer></script></head><body>
<header><h1 id="title">${words.title}</h1><span><select id="user" hidden aria-label="${words.household}"></select> <button id="sign-out" type="button" hidden>${words.signOut}</button></span></header>
<main>
<p id="read-only" class="note" hidden>${words.readOnly}</p>
<section id="key" hidden><form id="key-form"><p>${words.keyIntro}</p><label for="key-input">${words.keyLabel}</label>
<input id="key-input" type="password" autocomplete="off" required><p id="key-error" class="error" hidden>${words.keyRefused}</p><button type="submit">${words.keySubmit}</button></form></section>
<section id="flows" hidden><h2>${words.flows}</h2><p id="stream-lost" class="error" hidden>${words.streamLost}</p>
<svg class="flows" viewBox="0 0 360 300" role="img" aria-label="${words.flows}">
<line id="l-pv" class="pv" x1="180" y1="62" x2="180" y2="108"></line><line id="l-grid" class="grid" x1="82" y1="150" x2="138" y2="150"></line>
<line id="l-battery" class="battery" x1="180" y1="192" x2="180" y2="238"></line><line id="l-car" class="car" x1="222" y1="150" x2="278" y2="150"></line>
${node('pv', 180, 44, words.pv)}${node('grid', 44, 150, words.grid)}${node('home', 180, 150, words.home)}${node('car', 316, 150, words.car)}${node('battery', 180, 256, words.battery)}
</svg></section>
<section id="curves" hidden><h2>${words.curves}</h2><div id="curves-body"></div></section>
<section id="devices" hidden><h2>${words.devices}</h2><div id="device-list"></div></section>
</main></body></html>`;
  return page.value;
}
