// The device cards of the household page's script (a part of /home/app.js, inside its closure: it
// uses words, el, lang, num and kw from script.ts). Each card says in plain words what the device
// does now; where the hub reaches it and its values as the API names them are folded away.
export const DEVICES_SCRIPT = String.raw`
  const STATE_KEYS = ['chargeState', 'powerState', 'climateState'];
  const time = (iso) => new Date(iso).toLocaleString(lang, { dateStyle: 'short', timeStyle: 'short' });
  /** The values as the API gives them, for the folded technical details. */
  function rawValues(detail) {
    const out = [];
    for (const k of STATE_KEYS) {
      const s = detail[k];
      if (s && typeof s === 'object') for (const [name, v] of Object.entries(s)) if (name !== 'lastUpdated' && typeof v !== 'object') out.push(name + ' ' + v);
    }
    return out.join(', ');
  }
  const nameOf = (d) => (d && (d.detail.staticData || {}).name) || (d ? words.kinds[d.kind] : '');
  /** What the device does now, in words: "41 % · charging 2.35 kW", "plugged in, charging stopped". */
  function summary(d, all) {
    const det = d.detail, cs = det.chargeState || {}, ps = det.powerState || {}, cl = det.climateState || {};
    const parts = [];
    const dir = (v, plus, minus) => (v > 0.01 ? plus + ' ' + kw(v) : v < -0.01 ? minus + ' ' + kw(-v) : words.idle);
    if (d.kind === 'battery') {
      if (typeof cs.stateOfCharge === 'number') parts.push(num(cs.stateOfCharge, 0) + ' %');
      if (typeof cs.chargeRate === 'number') parts.push(dir(cs.chargeRate, words.charging, words.discharging));
    } else if (d.kind === 'pvInverter') {
      if (typeof ps.solarPower === 'number') parts.push(ps.solarPower > 0.01 ? words.producing + ' ' + kw(ps.solarPower) : words.notProducing);
    } else if (d.kind === 'meter') {
      if (typeof ps.power === 'number') parts.push(ps.power > 0.01 ? words.importing + ' ' + kw(ps.power) : ps.power < -0.01 ? words.exporting + ' ' + kw(-ps.power) : kw(0));
    } else if (d.kind === 'charger' || d.kind === 'vehicle') {
      if (typeof cs.isPlugged === 'boolean' && cs.chargingState !== 'UNPLUGGED') parts.push(cs.isPlugged ? words.pluggedIn : words.notPlugged);
      if (cs.chargingState) parts.push(words.chargingStates[cs.chargingState] + (cs.chargingState === 'CHARGING' && cs.chargeRate > 0 ? ' ' + kw(cs.chargeRate) : ''));
      if (typeof cs.stateOfCharge === 'number') parts.push(num(cs.stateOfCharge, 0) + ' %');
      if (typeof cs.estimatedRange === 'number') parts.push(words.range + ' ' + num(cs.estimatedRange, 0) + ' km');
    } else if (d.kind === 'hvac') {
      if (cl.mode) parts.push(words.hvacModes[cl.mode]);
      if (typeof cl.temperatureCurrent === 'number') parts.push(words.room + ' ' + num(cl.temperatureCurrent, 1) + ' °C');
      const target = (cl.temperatureTargets || []).find((t) => t.mode === cl.mode);
      if (target) parts.push(words.setTo + ' ' + num(target.temperature, 1) + ' °C');
      if (typeof cl.temperatureOutside === 'number') parts.push(words.outside + ' ' + num(cl.temperatureOutside, 1) + ' °C');
      if (typeof ps.powerConsumption === 'number') parts.push(words.using + ' ' + kw(ps.powerConsumption));
    }
    const lines = [parts.join(' · ')];
    // Each car with the charger it charges at, and each charger with its car.
    if (d.kind === 'vehicle' && d.chargerId) lines.push(words.chargesAt + ': ' + nameOf(all.get(d.chargerId)));
    if (d.kind === 'charger') for (const car of all.values()) if (car.chargerId === det.id) lines.push(words.carHere + ': ' + nameOf(car));
    return lines.filter(Boolean);
  }
  function reasonText(r) {
    if (r.code === 'driver') return r.text;
    if (r.code === 'noDriver') return words.noDriver;
    return r.since ? words.noAnswerSince + ' ' + time(r.since) : words.noAnswer;
  }
  function deviceCard(d, all) {
    const det = d.detail, sd = det.staticData || {};
    const card = el('article', 'device');
    card.id = 'device-' + det.id;
    card.dataset.kind = d.kind;
    const h = el('h3');
    h.append(el('span', '', sd.name || words.kinds[d.kind]), el('span', det.isOnline ? 'badge' : 'badge off', det.isOnline ? words.online : words.offline));
    card.append(h, el('p', 'muted', words.kinds[d.kind] + ' · ' + [sd.vendor, sd.model].filter(Boolean).join(' ')));
    for (const line of summary(d, all)) card.append(el('p', 'now', line));
    if (!det.isOnline && d.reason) card.append(el('p', 'reason', words.problem + ': ' + reasonText(d.reason)));
    if (d.commands.length) {
      const cmds = el('ul', 'commands');
      for (const c of d.commands) {
        const li = el('li', '', (words.commandTypes[c.type] || c.type) + ' · ' + (words.commandStates[c.state] || c.state) + (c.failedReason ? ' · ' + c.failedReason : '')
          + ' · ' + new Date(c.createdAt).toLocaleTimeString(lang, { hour: '2-digit', minute: '2-digit' }));
        li.dataset.commandId = c.id;
        cmds.append(li);
      }
      card.append(cmds);
    }
    const details = el('details');
    const dl = el('dl');
    const row = (t, v) => { if (v) dl.append(el('dt', '', t), el('dd', '', v)); };
    row(words.lastUpdate, det.lastUpdated ? time(det.lastUpdated) : '');
    row(words.binding, d.binding || '');
    row(words.values, rawValues(det));
    if (!d.commands.length) row(words.commands, words.noCommands);
    details.append(el('summary', '', words.details), dl);
    card.append(details);
    return card;
  }
`;
