// The household page's script, served as /home/app.js (the CSP allows scripts from the hub only).
// Plain browser JavaScript, no build step: it keeps the key in sessionStorage, reads /home/devices and
// the series with it in the X-API-KEY header, and follows /home/live through fetch's body stream
// (EventSource cannot send a header, and the key must not go into a URL). Text reaches the page only
// through textContent, never as HTML. The curves follow the stream: each flows message moves their
// live end, with no reading of the series again.
import { DEVICES_SCRIPT } from './script-devices.ts';

const CORE = String.raw`
  const words = JSON.parse(document.getElementById('words').textContent);
  // The page's language; dates and numbers as the browser's own variant of it writes them (en-GB: 27/11/2026).
  const lang = navigator.language.split('-')[0] === document.documentElement.lang ? navigator.language : document.documentElement.lang;
  const $ = (id) => document.getElementById(id);
  const KEY = 'hubApiKey';
  let key = sessionStorage.getItem(KEY);
  let userId = new URLSearchParams(location.search).get('user');
  let stream;
  const formats = new Map();
  const num = (v, digits) => {
    let f = formats.get(digits);
    if (!f) formats.set(digits, (f = new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits })));
    return f.format(v);
  };
  const kw = (v) => (typeof v === 'number' ? num(v, 2) + ' kW' : '–');
  const money = (v, currency, digits) => (currency
    ? new Intl.NumberFormat(lang, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(v) : num(v, digits));
  const hhmm = (t) => new Date(t).toLocaleTimeString(lang, { hour: '2-digit', minute: '2-digit' });
  const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };
  const get = (path) => fetch(path, { headers: { 'X-API-KEY': key }, cache: 'no-store' });
  const SECTIONS = ['flows', 'today', 'curves', 'devices'];

  function askKey(refused) {
    for (const id of [...SECTIONS, 'sign-out', 'user', 'read-only']) $(id).hidden = true;
    $('key').hidden = false;
    $('key-error').hidden = !refused;
    $('key-input').focus();
  }
  $('key-form').addEventListener('submit', (e) => {
    e.preventDefault();
    key = $('key-input').value.trim();
    sessionStorage.setItem(KEY, key);
    load();
  });
  $('sign-out').addEventListener('click', () => { sessionStorage.removeItem(KEY); key = null; stream?.abort(); askKey(false); });
  $('user').addEventListener('change', () => { userId = $('user').value; load(); });

  function setNode(id, value, sub, on) {
    $('kw-' + id).textContent = kw(value);
    $('sub-' + id).textContent = sub || '';
    $('l-' + id)?.classList.toggle('on', !!on);
  }
  const direction = (v, plus, minus) => (v > 0.01 ? plus : v < -0.01 ? minus : '');
  function showFlows(f) {
    setNode('pv', f.pvKw, f.pvKw > 0.01 ? words.producing : '', f.pvKw > 0.01);
    setNode('grid', f.gridKw === undefined ? undefined : Math.abs(f.gridKw), direction(f.gridKw, words.importing, words.exporting), Math.abs(f.gridKw || 0) > 0.01);
    setNode('home', f.homeKw, '', false);
    // The charge levels go beside the names ("Battery 41 %"), the direction under the power.
    $('name-battery').textContent = words.battery + (f.batterySoc !== undefined ? ' ' + num(f.batterySoc, 0) + ' %' : '');
    $('name-car').textContent = words.car + (f.carSoc !== undefined ? ' ' + num(f.carSoc, 0) + ' %' : '');
    setNode('battery', f.batteryKw === undefined ? undefined : Math.abs(f.batteryKw), direction(f.batteryKw, words.charging, words.discharging), Math.abs(f.batteryKw || 0) > 0.01);
    setNode('car', f.carKw, f.carKw > 0.01 ? words.charging : '', f.carKw > 0.01);
    $('l-grid').classList.toggle('reverse', f.gridKw < -0.01);
    $('l-battery').classList.toggle('reverse', f.batteryKw < -0.01);
    $('flows').dataset.flows = JSON.stringify(f);
  }

  /** Today's energy, cost and prices, from /home/today (the API's figures); data-value holds each exact figure. */
  function showToday(t) {
    const put = (id, text, value) => { $(id).textContent = text; if (value === undefined) delete $(id).dataset.value; else $(id).dataset.value = String(value); };
    const tariff = t.tariff;
    if (tariff) {
      put('cost-today', money(tariff.cost, tariff.currency, 2), tariff.cost);
      put('cost-basis', num(tariff.importKwh, 1) + ' kWh ' + words.costBasis, tariff.importKwh);
      if (tariff.priceNow !== undefined) put('price-now', money(tariff.priceNow, tariff.currency, 3) + '/kWh', tariff.priceNow);
      else put('price-now', words.noPrice);
      put('cheapest', tariff.cheapest.length ? words.cheapestAhead + ': ' + tariff.cheapest.map((p) => hhmm(p.startDate) + ' ' + money(p.totalPrice, tariff.currency, 3)).join(', ') : '');
    } else {
      put('cost-today', '–'); put('cost-basis', ''); put('price-now', words.noPrice); put('cheapest', '');
    }
    const dl = $('energy-today');
    dl.replaceChildren();
    $('today-empty').hidden = Object.keys(t.energy).length > 0;
    for (const [field, label] of Object.entries(words.energyToday)) {
      const value = t.energy[field + 'Kwh'];
      if (value === undefined) continue;
      const dd = el('dd', '', num(value, 1) + ' kWh');
      dd.id = 'e-' + field;
      dd.dataset.value = String(value);
      dl.append(el('dt', '', label), dd);
    }
    if (t.selfSufficiency !== undefined) {
      const dd = el('dd', '', t.selfSufficiency + ' %');
      dd.id = 'e-selfSufficiency';
      dd.dataset.value = String(t.selfSufficiency);
      dl.append(el('dt', '', words.selfSufficiency), dd);
    }
  }
  /** Today is read again once a new 5-minute point has closed (the sampler closes it within seconds of the boundary). */
  let todayBucket;
  const bucketNow = () => Math.floor((Date.now() - 15000) / 300000);
  async function refreshToday() {
    todayBucket = bucketNow();
    const res = await get('/home/today?user=' + encodeURIComponent(userId));
    if (res.ok) showToday(await res.json());
  }

  const devices = new Map();
  function showDevices() {
    const list = $('device-list');
    // A card a household opened stays open when the stream redraws the list.
    const open = new Set([...list.querySelectorAll('details[open]')].map((d) => d.closest('.device').id));
    list.replaceChildren(...[...devices.values()].map((d) => {
      const card = deviceCard(d, devices);
      if (open.has(card.id)) card.querySelector('details').open = true;
      return card;
    }));
  }
${DEVICES_SCRIPT}
  let points = [];
  const WINDOW_MS = 48 * 3600000, LIVE_STEP_MS = 10000;
  async function loadCurves() {
    const res = await get('/v1.0.0/users/' + encodeURIComponent(userId) + '/household/series?hours=48');
    if (!res.ok) return;
    const body = await res.json();
    points = body.points.concat(points.filter((p) => p.live));
    drawCurves();
  }
  /** A flows message becomes the curves' live end: a new point every 10 s, in between the last one moves. */
  function livePoint(f) {
    const now = Date.now();
    const point = { startDate: new Date(now).toISOString(), live: true, pvPower: f.pvKw, consumptionPower: f.homeKw, gridPower: f.gridKw, batteryStateOfCharge: f.batterySoc, price: f.price };
    const last = points.at(-1);
    if (last && last.live && now - Date.parse(last.startDate) < LIVE_STEP_MS) points[points.length - 1] = { ...point, startDate: last.startDate };
    else points.push(point);
    while (points.length && Date.parse(points[0].startDate) < now - WINDOW_MS) points.shift();
    drawCurves();
  }
  function drawCurves() {
    const root = $('curves-body');
    if (points.length === 0) { root.replaceChildren(el('p', 'muted', words.curvesEmpty)); return; }
    root.replaceChildren(curve(points, [['pvPower', 'c-pv', words.series.pv], ['consumptionPower', 'c-home', words.series.home], ['gridPower', 'c-grid', words.series.grid]]),
      curve(points, [['batteryStateOfCharge', 'c-battery', words.series.soc]], [0, 100]),
      points.some((p) => typeof p.price === 'number') ? curve(points, [['price', 'c-price', words.series.price]]) : el('span'));
  }
  const SVG = 'http://www.w3.org/2000/svg';
  function svgEl(tag, attrs) { const e = document.createElementNS(SVG, tag); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v)); return e; }
  /** One chart: lines of the named fields over the points' time, a zero line and the range's ends. */
  function curve(points, fields, fixed) {
    const W = 600, H = 110, P = 4;
    const t0 = Date.parse(points[0].startDate), t1 = Math.max(Date.parse(points.at(-1).startDate), t0 + 1);
    const values = points.flatMap((p) => fields.map(([f]) => p[f]).filter((v) => typeof v === 'number'));
    let [lo, hi] = fixed || [Math.min(0, ...values), Math.max(0, ...values)];
    if (hi === lo) hi = lo + 1;
    const x = (t) => P + ((t - t0) / (t1 - t0)) * (W - 2 * P), y = (v) => H - P - ((v - lo) / (hi - lo)) * (H - 2 * P);
    const svg = svgEl('svg', { viewBox: '0 0 ' + W + ' ' + (H + 14), class: 'curve', role: 'img' });
    svg.append(svgEl('line', { class: 'axis', x1: P, x2: W - P, y1: y(0 > lo ? 0 : lo), y2: y(0 > lo ? 0 : lo) }));
    for (const [f, cls] of fields) {
      const known = points.filter((p) => typeof p[f] === 'number');
      const pts = known.map((p) => x(Date.parse(p.startDate)).toFixed(1) + ',' + y(p[f]).toFixed(1));
      if (!pts.length) continue;
      svg.append(svgEl('polyline', { class: cls, points: pts.join(' '), 'data-field': f, 'data-last': known.at(-1)[f] }));
      // The latest value as a dot: it shows even while the line has a single point (a fresh hub).
      const [lx, ly] = pts.at(-1).split(',');
      svg.append(svgEl('circle', { class: cls + ' now', cx: lx, cy: ly, r: 3 }));
    }
    const label = (t, anchor, xx) => { const e = svgEl('text', { x: xx, y: H + 12, 'text-anchor': anchor }); e.textContent = t; return e; };
    svg.append(label(hhmm(t0), 'start', P), label(hhmm(t1), 'end', W - P), label(num(hi, fixed ? 0 : 1) + ' / ' + num(lo, fixed ? 0 : 1), 'middle', W / 2));
    const box = el('div');
    const legend = el('div', 'legend');
    for (const [, cls, name] of fields) legend.append(el('span', cls, name));
    box.append(legend, svg);
    return box;
  }

  async function follow() {
    stream?.abort();
    const controller = new AbortController();
    stream = controller;
    for (;;) {
      try {
        const res = await fetch('/home/live?user=' + encodeURIComponent(userId), { headers: { 'X-API-KEY': key }, signal: controller.signal });
        if (res.status === 401) return askKey(true);
        if (!res.ok || !res.body) throw new Error('status ' + res.status);
        $('stream-lost').hidden = true;
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const event = /^event: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (event && data) handle(event, JSON.parse(data));
          }
        }
      } catch (err) {
        if (controller.signal.aborted) return;
      }
      $('stream-lost').hidden = false;
      await new Promise((r) => setTimeout(r, 3000));
      if (controller.signal.aborted) return;
    }
  }
  function handle(event, data) {
    if (event === 'flows') {
      showFlows(data);
      livePoint(data);
      if (bucketNow() !== todayBucket) refreshToday();
    } else if (event === 'device') {
      if (data.deleted) devices.delete(data.id); else devices.set(data.detail.id, data);
      showDevices();
    } else if (event === 'command') {
      const d = devices.get(data.deviceId);
      if (!d) return;
      d.commands = [data.command, ...d.commands.filter((c) => c.id !== data.command.id)].slice(0, 5);
      showDevices();
    }
  }

  async function load() {
    if (!key) return askKey(false);
    const res = await get('/home/devices' + (userId ? '?user=' + encodeURIComponent(userId) : ''));
    if (res.status === 401) return askKey(true);
    if (!res.ok) return;
    const body = await res.json();
    userId = body.userId;
    const select = $('user');
    select.replaceChildren(...body.users.map((u) => { const o = el('option', '', u); o.value = u; o.selected = u === userId; return o; }));
    select.hidden = body.users.length < 2;
    $('key').hidden = true;
    $('sign-out').hidden = false;
    $('read-only').hidden = !body.readOnly;
    for (const id of SECTIONS) $(id).hidden = false;
    devices.clear();
    for (const d of body.devices) devices.set(d.detail.id, d);
    showDevices();
    showFlows(body.flows);
    if (body.today) { showToday(body.today); todayBucket = bucketNow(); }
    points = [];
    loadCurves();
    follow();
  }
  load();
`;

export const HOME_SCRIPT = `'use strict';\n(() => {${CORE}})();\n`;
