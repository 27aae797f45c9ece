// Daikin air conditioners whose Wi-Fi adapter runs the newer JSON API (BRP084, firmware 2.8): one
// endpoint, POST /dsiot/multireq, that reads a batch of "edge" resources (op 2) and writes one
// (op 3). Values are hex text in a tree of {pn, pv, pch} nodes. Written from pydaikin's
// docs/sample_requests/brp084 (update_status_request/response.json, set_request/response.json)
// and pydaikin/daikin_brp084.py's paths and conversions (fredrike/pydaikin @b2dfc61; GPL-3.0,
// so nothing is copied: the samples in src/sim/http/daikin-brp084-sim.ts are written by hand).
//
//   e_1002/e_A002/p_01   power, "00" off / "01" on
//   e_1002/e_3001/p_01   mode, "0300" auto, "0200" cool, "0100" heat, "0500" dry, "0000" fan
//   e_1002/e_3001/p_02   cooling setpoint, one byte, °C × 2 ("34" → 26 °C); p_03 heating, p_1D auto
//   e_1002/e_A00B/p_01   room temperature, one byte, °C; p_02 humidity, %
//   e_1003/e_A00D/p_01   outside temperature, little-endian signed, °C × 2 ("2200" → 17 °C)
import { defineHttpDriver } from '../../src/runtime/http/definition.ts';

const INDOOR = 'responses[fr=/dsiot/edge/adr_0100.dgc_status].pc.pch[pn=e_1002].pch';
const OUTDOOR = 'responses[fr=/dsiot/edge/adr_0200.dgc_status].pc.pch[pn=e_1003].pch';
const MODE = `${INDOOR}[pn=e_3001].pch[pn=p_01].pv`;
const POWER = `${INDOOR}[pn=e_A002].pch[pn=p_01].pv`;
const setpoint = (p: string) => `${INDOOR}[pn=e_3001].pch[pn=${p}].pv`;

/** The batch pydaikin's update_status sends (update_status_request.json), without the energy part. */
const STATUS = JSON.stringify({
  requests: [
    { op: 2, to: '/dsiot/edge/adr_0100.dgc_status?filter=pv,pt,md' },
    { op: 2, to: '/dsiot/edge/adr_0200.dgc_status?filter=pv,pt,md' },
    { op: 2, to: '/dsiot/edge.adp_i' },
  ],
});

/** A write of e_1002's nodes; `{…}` are filled by the command. */
const write = (nodes: string) => `{"requests":[{"op":3,"pc":{"pn":"dgc_status","pch":[{"pn":"e_1002","pch":[${nodes}]}]},"to":"/dsiot/edge/adr_0100.dgc_status"}]}`;

export default defineHttpDriver({
  protocol: 'http',
  type: 'daikin-brp084',
  title: 'Daikin air conditioner (BRP084 Wi-Fi adapter, JSON API)',
  source: 'Daikin BRP084 firmware 2.8 /dsiot/multireq as documented by pydaikin (docs/sample_requests/brp084)',
  vendors: [{ domain: 'hvac', code: 'DAIKIN' }],
  scheme: 'http',
  defaults: { pollIntervalMs: 30_000, timeoutMs: 5000, minGapMs: 500 },
  settings: {},
  auth: { scheme: 'none' },
  endpoints: {
    status: { method: 'POST', path: '/dsiot/multireq', format: 'json', body: STATUS },
  },
  kinds: {
    hvac: {
      fields: {
        roomTemperature: { from: 'status', path: `${INDOOR}[pn=e_A00B].pch[pn=p_01].pv`, as: 'number', decode: 'hex-byte', digits: 1 },
        roomHumidity: { from: 'status', path: `${INDOOR}[pn=e_A00B].pch[pn=p_02].pv`, as: 'number', decode: 'hex-byte', digits: 0 },
        outsideTemperature: { from: 'status', path: `${OUTDOOR}[pn=e_A00D].pch[pn=p_01].pv`, as: 'number', decode: 'hex-le-signed', scale: 0.5, digits: 1 },
        mode: [
          { from: 'status', path: POWER, as: 'string', map: { '00': 'OFF' } },
          { from: 'status', path: MODE, as: 'string', map: { '0300': 'AUTO', '0200': 'COOL', '0100': 'HEAT', '0500': 'DRY', '0000': 'FAN' } },
        ],
        power: { from: 'status', path: POWER, as: 'string', map: { '00': 'OFF', '01': 'ON' } },
        // The setpoint of the mode the unit is in; dry and fan have none (nor auto on heat-pump-only
        // units, which do not report p_1D: pydaikin issue #72).
        targetTemperature: [
          { from: 'status', path: setpoint('p_02'), as: 'number', decode: 'hex-byte', scale: 0.5, digits: 1, when: { path: MODE, equals: ['0200'] } },
          { from: 'status', path: setpoint('p_03'), as: 'number', decode: 'hex-byte', scale: 0.5, digits: 1, when: { path: MODE, equals: ['0100'] } },
          { from: 'status', path: setpoint('p_1D'), as: 'number', decode: 'hex-byte', scale: 0.5, digits: 1, when: { path: MODE, equals: ['0300'] } },
        ],
      },
    },
  },
  commands: {
    SET_TEMPERATURE: {
      // °C × 2 in one byte, written to the setpoint of the mode the unit is in.
      value: { from: 'payload', field: 'temperature', min: 10, max: 32, scale: 2, digits: 0 },
      encode: 'hex-byte',
      readFirst: 'status',
      values: { setpointNode: { path: MODE, as: 'string', map: { '0200': 'p_02', '0100': 'p_03', '0300': 'p_1D' } } },
      method: 'POST',
      path: '/dsiot/multireq',
      body: write('{"pn":"e_3001","pch":[{"pn":"{setpointNode}","pv":"{value}"}]}'),
      // set_response.json: rsc 2004 is a write done.
      success: { path: 'responses[0].rsc', equals: ['2004'] },
      confirm: { field: 'targetTemperature', divide: 2 },
    },
    SET_MODE: {
      value: { from: 'payload-enum', field: 'mode', map: { OFF: 'off', AUTO: '0300', COOL: '0200', HEAT: '0100', DRY: '0500' } },
      method: 'POST',
      path: '/dsiot/multireq',
      // Power on and the mode, as set_request.json does; OFF only powers off.
      body: write('{"pn":"e_A002","pch":[{"pn":"p_01","pv":"01"}]},{"pn":"e_3001","pch":[{"pn":"p_01","pv":"{value}"}]}'),
      bodyByValue: { off: write('{"pn":"e_A002","pch":[{"pn":"p_01","pv":"00"}]}') },
      success: { path: 'responses[0].rsc', equals: ['2004'] },
      confirm: { field: 'mode', equals: { off: 'OFF', '0300': 'AUTO', '0200': 'COOL', '0100': 'HEAT', '0500': 'DRY' } },
    },
  },
  // The same endpoint answers the adapter's info (edge.adp_i: mac, ver) without authentication.
  discovery: {
    path: '/dsiot/multireq', body: JSON.stringify({ requests: [{ op: 2, to: '/dsiot/edge.adp_i' }] }),
    matches: '"fr"\\s*:\\s*"/dsiot/edge\\.adp_i"', serial: '"pn"\\s*:\\s*"mac"\\s*,\\s*"pv"\\s*:\\s*"([0-9A-Fa-f]+)"',
    firmware: '"pn"\\s*:\\s*"ver"\\s*,\\s*"pv"\\s*:\\s*"([^"]+)"', kinds: ['hvac'],
  },
});
