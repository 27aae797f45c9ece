// The household page's HTML: a shell with no data of the household (it is served without a key);
// the script (/home/app.js) asks for a key, then reads the devices and the live stream with it.
import { html, SafeHtml } from '../pairing/html.ts';
import type { Lang } from '../pairing/messages.ts';
import { HOME_CSS } from './styles.ts';
import { HOME_WORDS } from './messages.ts';

/** A node of the flows picture: its place, its word, the id its number is written to. */
function node(id: string, x: number, y: number, label: string): SafeHtml {
  return html`<g id="n-${id}"><circle cx="${x}" cy="${y}" r="44"></circle><text id="name-${id}" x="${x}" y="${y - 10}">${label}</text><text class="kw" id="kw-${id}" x="${x}" y="${y + 8}">–</text><text class="sub" id="sub-${id}" x="${x}" y="${y + 24}"></text></g>`;
}

export function renderHomePage(lang: Lang, theme: 'light' | 'dark' | undefined): string {
  const words = HOME_WORDS[lang];
  // The words go to the script as data: a JSON block is not run, so the CSP needs no exception.
  const data = JSON.stringify(words).replace(/</g, '\\u003c');
  const page = html`<!doctype html><html lang="${lang}"${theme ? html` data-theme="${theme}"` : ''}><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>${words.title} · home-energy-hub</title>
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
<style>${new SafeHtml(HOME_CSS)}</style>
<script type="application/json" id="words">${new SafeHtml(data)}</script>
<script src="/home/app.js" defer></script></head><body>
<header><h1 id="title">${words.title}</h1><span><select id="user" hidden aria-label="${words.household}"></select> <button id="sign-out" type="button" hidden>${words.signOut}</button></span></header>
<main>
<p id="read-only" class="note" hidden>${words.readOnly}</p>
<section id="key" hidden><form id="key-form"><p>${words.keyIntro}</p><label for="key-input">${words.keyLabel}</label>
<input id="key-input" type="password" autocomplete="off" required><p id="key-error" class="error" hidden>${words.keyRefused}</p><button type="submit">${words.keySubmit}</button></form></section>
<section id="flows" hidden><h2>${words.flows}</h2><p id="stream-lost" class="error" hidden>${words.streamLost}</p>
<svg class="flows" viewBox="0 0 360 296" role="img" aria-label="${words.flows}">
<line id="l-pv" class="pv" x1="180" y1="94" x2="180" y2="104"></line><line id="l-grid" class="grid" x1="94" y1="148" x2="136" y2="148"></line>
<line id="l-battery" class="battery" x1="180" y1="192" x2="180" y2="202"></line><line id="l-car" class="car" x1="224" y1="148" x2="266" y2="148"></line>
${node('pv', 180, 48, words.pv)}${node('grid', 48, 148, words.grid)}${node('home', 180, 148, words.home)}${node('car', 312, 148, words.car)}${node('battery', 180, 248, words.battery)}
</svg></section>
<section id="today" hidden><h2>${words.today}</h2><div class="money"><div><span class="muted">${words.costToday}</span><strong id="cost-today">–</strong><span id="cost-basis" class="muted"></span></div>
<div><span class="muted">${words.priceNow}</span><strong id="price-now">–</strong><span id="cheapest" class="muted"></span></div></div>
<dl id="energy-today"></dl><p id="today-empty" class="muted" hidden>${words.todayEmpty}</p></section>
<section id="curves" hidden><h2>${words.curves}</h2><div id="curves-body"></div></section>
<section id="devices" hidden><h2>${words.devices}</h2><div id="device-list"></div></section>
</main></body></html>`;
  return page.value;
}
