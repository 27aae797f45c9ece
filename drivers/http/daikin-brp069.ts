// Daikin air conditioners through their Wi-Fi adapter's local `key=value` API: BRP069A/B (and the
// built-in adapters of that family) over HTTP, and BRP072C over HTTPS with the key printed on the
// adapter registered once as an `X-Daikin-uuid` (scheme https, setting uuid). Written from the
// answers in pydaikin's docs/sample_requests/brp069/*.txt and its TRANSLATIONS table
// (fredrike/pydaikin @b2dfc61, pydaikin/daikin_brp069.py; GPL-3.0, so nothing is copied: the
// samples in src/sim/http/daikin-sim.ts are written by hand after them) and the community's
// documentation of the protocol (ael-code/daikin-control).
//
// The newer BRP084 JSON API (firmware 2.8, POST /dsiot/multireq) is daikin-brp084.ts.
import { defineHttpDriver } from '../../src/runtime/http/definition.ts';

/** get_control_info's mode codes (pydaikin TRANSLATIONS['mode']); 1 and 7 are auto variants. */
const MODES: Record<string, string> = { 0: 'AUTO', 1: 'AUTO', 7: 'AUTO', 2: 'DRY', 3: 'COOL', 4: 'HEAT', 6: 'FAN' };

export default defineHttpDriver({
  protocol: 'http',
  type: 'daikin-brp069',
  title: 'Daikin air conditioner (BRP069/BRP072C Wi-Fi adapter)',
  source: 'Daikin Wi-Fi adapter key=value API as documented by pydaikin and ael-code/daikin-control',
  vendors: [{ domain: 'hvac', code: 'DAIKIN' }],
  scheme: 'http',
  // The adapters are slow and drop requests that come too close together (pydaikin serialises
  // them); one at a time, 500 ms apart.
  defaults: { pollIntervalMs: 30_000, timeoutMs: 5000, minGapMs: 500 },
  settings: {
    // pydaikin's daikin_brp072c.py sends str(uuid).replace('-', ''): 32 hex digits, registered once
    // with the adapter's key. Only the BRP072C (over HTTPS) takes one.
    uuid: { description: 'BRP072C only: the uuid registered with the adapter\'s key, 32 hex digits (see docs/drivers-http.md)', secret: true, scheme: 'https', pattern: '[0-9A-Fa-f]{32}' },
  },
  auth: { scheme: 'header', header: 'X-Daikin-uuid', setting: 'uuid' },
  endpoints: {
    // ret=OK,type=aircon,reg=eu,ver=1_2_54,pow=1,err=0,name=%4e…,mac=409F38D107AC,… (basic_info.txt)
    basic: { path: '/common/basic_info', format: 'keyvalue' },
    // ret=OK,pow=1,mode=3,stemp=22.0,shum=0,f_rate=A,f_dir=0,dt1=25.0,…,dt3=22.0,… (get_control_info.txt)
    control: { path: '/aircon/get_control_info', format: 'keyvalue' },
    // ret=OK,htemp=25.0,hhum=-,otemp=21.0,err=0,cmpfreq=40 (get_sensor_info.txt); "-" is no sensor.
    sensor: { path: '/aircon/get_sensor_info', format: 'keyvalue' },
  },
  kinds: {
    hvac: {
      fields: {
        roomTemperature: { from: 'sensor', path: 'htemp', as: 'number', digits: 1 },
        outsideTemperature: { from: 'sensor', path: 'otemp', as: 'number', digits: 1 },
        roomHumidity: { from: 'sensor', path: 'hhum', as: 'number', digits: 0 },
        compressorFrequency: { from: 'sensor', path: 'cmpfreq', as: 'number', digits: 0 },
        // pow=0 is off whatever mode is kept; otherwise the mode's code.
        mode: [
          { from: 'control', path: 'pow', as: 'string', map: { 0: 'OFF' } },
          { from: 'control', path: 'mode', as: 'string', map: MODES },
        ],
        power: { from: 'control', path: 'pow', as: 'string', map: { 0: 'OFF', 1: 'ON' } },
        // stemp is "M" in dry mode and "--" in fan mode: no setpoint then.
        targetTemperature: { from: 'control', path: 'stemp', as: 'number', digits: 1 },
        fanRate: { from: 'control', path: 'f_rate', as: 'string' },
        errorCode: { from: 'sensor', path: 'err', as: 'string' },
      },
    },
  },
  commands: {
    // set_control_info needs every setting (pow, mode, stemp, shum, f_rate, f_dir), so the current
    // ones are read first and the one changed is replaced (as pydaikin's set() does).
    SET_TEMPERATURE: {
      // The adapters take 10–32 °C in cooling and heating (pydaikin clamps likewise).
      value: { from: 'payload', field: 'temperature', min: 10, max: 32, digits: 1 },
      readFirst: 'control',
      path: '/aircon/set_control_info',
      query: { pow: '{pow}', mode: '{mode}', stemp: '{value}', shum: '{shum}', f_rate: '{f_rate}', f_dir: '{f_dir}' },
      success: { path: 'ret', equals: ['OK'] },
      confirm: { field: 'targetTemperature' },
    },
    SET_MODE: {
      // Modes the unit has; REDUCED has no equivalent. A mode other than OFF powers the unit on
      // with the setpoint it keeps for that mode (dt<mode>, dh<mode>), else the one in force, as
      // pydaikin's _update_settings() does. Units report no dt0/dh0 for AUTO (pydaikin's
      // docs/sample_requests/brp069/get_control_info.txt has dt1…dt7): AUTO takes the setpoint of the
      // unit's own auto variants (dt1, dt7, pydaikin's 'auto-1'/'auto-7') before the one in force.
      value: { from: 'payload-enum', field: 'mode', map: { OFF: 'off', AUTO: '0', DRY: '2', COOL: '3', HEAT: '4' } },
      readFirst: 'control',
      path: '/aircon/set_control_info',
      query: { pow: '1', mode: '{value}', stemp: '{dt{value}|stemp}', shum: '{dh{value}|shum}', f_rate: '{f_rate}', f_dir: '{f_dir}' },
      // Off keeps the mode the unit is in (some units refuse mode=off).
      queryByValue: {
        off: { pow: '0', mode: '{mode}', stemp: '{stemp}', shum: '{shum}' },
        0: { stemp: '{dt0|dt1|dt7|stemp}', shum: '{dh0|dh1|dh7|shum}' },
      },
      success: { path: 'ret', equals: ['OK'] },
      confirm: { field: 'mode', equals: { off: 'OFF', 0: 'AUTO', 2: 'DRY', 3: 'COOL', 4: 'HEAT' } },
    },
  },
  // basic_info answers without authentication on BRP069 (ret=OK,type=aircon,…).
  discovery: {
    path: '/common/basic_info', matches: 'ret=OK,type=aircon', model: 'adp_kind=(\\d+)', serial: 'mac=([0-9A-Fa-f]+)', firmware: 'ver=([0-9_]+)',
    kinds: ['hvac'],
  },
});
