// The household page's script, served as /home/app.js (the CSP allows scripts from the hub only).
// Plain browser JavaScript, no build step: it keeps the key in sessionStorage, reads /home/devices and
// the series with it in the X-API-KEY header, and follows /home/live through fetch's body stream
// (EventSource cannot send a header, and the key must not go into a URL). Text reaches the page only
// through textContent, never as HTML.
export const HOME_SCRIPT = String.raw`'use strict';
(() => {
  const words = JSON.parse(document.getElementById('words').textContent);
  const $ = (id) => document.getElementById(id);
  const KEY = 'hubApiKey';
  let key = sessionStorage.getItem(KEY);
  let userId = new URLSearchParams(location.search).get('user');
  let stream;
  const fmtKw = (v) => (typeof v === 'number' ? v.toFixed(2) + ' kW' : '–');
  const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };
  const get = (path) => fetch(path, { headers: { 'X-API-KEY': key }, cache: 'no-store' });

  function askKey(refused) {
    for (const id of ['flows', 'curves', 'devices', 'sign-out', 'user', 'read-only']) $(id).hidden = true;
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

  function setNode(id, kw, sub, on) {
    $('kw-' + id).textContent = fmtKw(kw);
    $('sub-' + id).textContent = sub || '';
    $('l-' + id)?.classList.toggle('on', !!on);
  }
  function showFlows(f) {
    setNode('pv', f.pvKw, '', f.pvKw > 0.01);
    setNode('grid', f.gridKw === undefined ? undefined : Math.abs(f.gridKw), f.gridKw > 0.01 ? words.importing : f.gridKw < -0.01 ? words.exporting : '', Math.abs(f.gridKw || 0) > 0.01);
    setNode('home', f.homeKw, '', false);
    setNode('battery', f.batteryKw, f.batterySoc !== undefined ? f.batterySoc + ' %' : '', Math.abs(f.batteryKw || 0) > 0.01);
    setNode('car', f.carKw, f.carSoc !== undefined ? f.carSoc + ' %' : '', f.carKw > 0.01);
    $('flows').dataset.flows = JSON.stringify(f);
  }

  const STATE_KEYS = ['chargeState', 'powerState', 'climateState'];
  function valuesOf(detail) {
    const out = [];
    for (const k of STATE_KEYS) {
      const s = detail[k];
      if (s && typeof s === 'object') for (const [name, v] of Object.entries(s)) if (name !== 'lastUpdated' && typeof v !== 'object') out.push(name + ' ' + v);
    }
    return out.join(', ');
  }
  function deviceCard(d) {
    const det = d.detail, sd = det.staticData || {};
    const card = el('div', 'device');
    card.id = 'device-' + det.id;
    const h = el('h3');
    h.append(el('span', '', sd.name || words.kinds[d.kind]), el('span', 'muted', words.kinds[d.kind] + ' · ' + [sd.vendor, sd.model].filter(Boolean).join(' ')),
      el('span', det.isOnline ? 'badge' : 'badge off', det.isOnline ? words.online : words.offline));
    const dl = el('dl');
    const row = (t, v) => { if (v) dl.append(el('dt', '', t), el('dd', '', v)); };
    row(words.lastUpdate, det.lastUpdated ? new Date(det.lastUpdated).toLocaleString(document.documentElement.lang) : '');
    row(words.values, valuesOf(det));
    row(words.binding, d.binding || '');
    // What the hub knows of an offline device: when it last answered (when its driver gives no reason of its own).
    if (!det.isOnline && d.reason) row(words.problem, d.reason);
    else if (!det.isOnline) row(words.problem, words.noAnswerSince + ' ' + (det.lastUpdated ? new Date(det.lastUpdated).toLocaleString(document.documentElement.lang) : '–'));
    const cmds = el('ul', 'commands');
    for (const c of d.commands) {
      const li = el('li', '', c.type + ' · ' + c.state + (c.failedReason ? ' · ' + c.failedReason : '') + ' · ' + new Date(c.createdAt).toLocaleTimeString(document.documentElement.lang));
      li.dataset.commandId = c.id;
      cmds.append(li);
    }
    row(words.commands, d.commands.length ? ' ' : words.noCommands);
    card.append(h, dl);
    if (d.commands.length) card.append(cmds);
    return card;
  }
  const devices = new Map();
  function showDevices() {
    const list = $('device-list');
    list.replaceChildren(...[...devices.values()].map(deviceCard));
  }

  async function showCurves() {
    const res = await get('/v1.0.0/users/' + encodeURIComponent(userId) + '/household/series?hours=48');
    if (!res.ok) return;
    const body = await res.json();
    const root = $('curves-body');
    if (body.points.length === 0) { root.replaceChildren(el('p', 'muted', words.curvesEmpty)); return; }
    root.replaceChildren(curve(body.points, [['pvPower', 'c-pv', words.series.pv], ['consumptionPower', 'c-home', words.series.home], ['gridPower', 'c-grid', words.series.grid]]),
      curve(body.points, [['batteryStateOfCharge', 'c-battery', words.series.soc]], [0, 100]),
      body.points.some((p) => p.price !== undefined) ? curve(body.points, [['price', 'c-price', words.series.price]]) : el('span'));
  }
  const SVG = 'http://www.w3.org/2000/svg';
  function svgEl(tag, attrs) { const e = document.createElementNS(SVG, tag); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v)); return e; }
  /** One chart: lines of the named fields over the points' time, a zero line and the range's ends. */
  function curve(points, fields, fixed) {
    const W = 600, H = 140, P = 4;
    const t0 = Date.parse(points[0].startDate), t1 = Math.max(Date.parse(points.at(-1).startDate), t0 + 1);
    const values = points.flatMap((p) => fields.map(([f]) => p[f]).filter((v) => typeof v === 'number'));
    let [lo, hi] = fixed || [Math.min(0, ...values), Math.max(0, ...values)];
    if (hi === lo) hi = lo + 1;
    const x = (t) => P + ((t - t0) / (t1 - t0)) * (W - 2 * P), y = (v) => H - P - ((v - lo) / (hi - lo)) * (H - 2 * P);
    const svg = svgEl('svg', { viewBox: '0 0 ' + W + ' ' + (H + 14), class: 'curve', role: 'img' });
    svg.append(svgEl('line', { class: 'axis', x1: P, x2: W - P, y1: y(0 > lo ? 0 : lo), y2: y(0 > lo ? 0 : lo) }));
    for (const [f, cls] of fields) {
      const pts = points.filter((p) => typeof p[f] === 'number').map((p) => x(Date.parse(p.startDate)).toFixed(1) + ',' + y(p[f]).toFixed(1));
      if (pts.length) svg.append(svgEl('polyline', { class: cls, points: pts.join(' '), 'data-field': f }));
    }
    const label = (t, anchor, xx) => { const e = svgEl('text', { x: xx, y: H + 12, 'text-anchor': anchor }); e.textContent = t; return e; };
    const time = (t) => new Date(t).toLocaleTimeString(document.documentElement.lang, { hour: '2-digit', minute: '2-digit' });
    svg.append(label(time(t0), 'start', P), label(time(t1), 'end', W - P), label(hi.toFixed(fixed ? 0 : 1) + ' / ' + lo.toFixed(fixed ? 0 : 1), 'middle', W / 2));
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
    if (event === 'flows') showFlows(data);
    else if (event === 'device') {
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
    for (const id of ['flows', 'curves', 'devices']) $(id).hidden = false;
    devices.clear();
    for (const d of body.devices) devices.set(d.detail.id, d);
    showDevices();
    showFlows(body.flows);
    showCurves();
    follow();
  }
  load();
})();
`;
