// Enphase IQ Gateway (Envoy), firmware D7 and D8, through the local endpoints the gateway's own UI
// and pyenphase (github.com/pyenphase/pyenphase, MIT, @10164b3, src/pyenphase/const.py and the
// per-firmware answers in tests/fixtures/) read. From D7 on, every endpoint but /info needs the
// owner's token: a JWT issued by Enlighten (entrez.enphaseenergy.com), valid a year for an owner,
// sent as `Authorization: Bearer`. The gateway serves HTTPS with a self-signed certificate issued
// to "envoy": the hub trusts the one accepted when the device was added (see docs/drivers-http.md).
//
// Signs: the gateway's CTs count power towards the switchboard as positive (pyenphase
// docs/data_ctmeter.md): net-consumption is positive while importing (the hub's meter convention),
// battery power is positive while discharging (the hub's chargeRate is positive while charging, so
// it is inverted).
import { defineHttpDriver } from '../../src/runtime/http/definition.ts';

/** An eim entry's activeCount when its CT is set up (pyenphase: truthy); 0 when it is not. */
const CT_ACTIVE = ['1', '2', '3'];

export default defineHttpDriver({
  protocol: 'http',
  type: 'enphase-envoy',
  title: 'Enphase IQ Gateway (Envoy), firmware D7/D8',
  source: 'IQ Gateway local API as read by pyenphase 2.x (fixtures 8.2.4286_with_3cts_and_battery_split, 8.2.4382_ACB)',
  vendors: [{ domain: 'homePower', code: 'ENPHASE' }],
  scheme: 'https',
  // The gateway is a small ARM box: production.json takes a second or more on D8; pyenphase's
  // Home Assistant integration polls every 60 s. Every 15 s with 250 ms between requests is gentle.
  defaults: { pollIntervalMs: 15_000, timeoutMs: 10_000, minGapMs: 250 },
  settings: {
    token: {
      required: true, secret: true, pattern: '[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*',
      description: 'the owner\'s token from entrez.enphaseenergy.com (a JWT, valid a year)',
    },
  },
  auth: { scheme: 'bearer', setting: 'token' },
  endpoints: {
    // {"wattHoursToday":12364,"wattHoursSevenDays":…,"wattHoursLifetime":…,"wattsNow":7081}
    // (fixture 8.2.4286…/api_v1_production): the PV power of a gateway without meters.
    production: { path: '/api/v1/production', format: 'json' },
    // production[], consumption[] (eim total-consumption / net-consumption), storage[] (acb) —
    // fixture 8.2.4286…/production.json; a gateway without CTs has no eim entries.
    productionJson: { path: '/production.json?details=1', format: 'json' },
    // Ensemble (IQ Battery) aggregates: agg_soc %, Max_energy Wh, configured_backup_soc % —
    // fixture 8.2.4286…/ivp_ensemble_secctrl. 404 on a gateway without Ensemble.
    secctrl: { path: '/ivp/ensemble/secctrl', format: 'json', optional: true },
    // Per IQ Battery: {"devices:": [{"serial_num", "real_power_mw", "soc"}]} — the key really ends
    // with a colon (fixture 8.2.4286…/ivp_ensemble_power).
    batteryPower: { path: '/ivp/ensemble/power', format: 'json', optional: true },
  },
  kinds: {
    pvInverter: {
      fields: {
        // As pyenphase chooses (updaters/production.py, api_v1_production.py, models/
        // system_production.py from_production; its UPDATERS order in envoy.py): the production CT
        // in production.json when one is active; a metered gateway whose CTs are not set up (eim
        // activeCount 0) reports the micros in production.json's inverters entry, its
        // /api/v1/production being stalled (fixture 8.2.4264_metered_noct: 4 W, wattHoursToday 0);
        // a gateway without meters (no eim entry, 7.6.114_without_cts) /api/v1/production.
        // Micros report a few negative watts at night (their own consumption): clamped at 0.
        solarPower: [
          { from: 'productionJson', path: 'production[type=eim].wNow', when: { path: 'production[type=eim].activeCount', equals: CT_ACTIVE }, as: 'number', unit: 'W', to: 'kW', min: 0, digits: 3 },
          { from: 'productionJson', path: 'production[type=inverters].wNow', when: { path: 'production[type=eim].activeCount', equals: ['0'] }, as: 'number', unit: 'W', to: 'kW', min: 0, digits: 3 },
          { from: 'production', path: 'wattsNow', as: 'number', unit: 'W', to: 'kW', min: 0 },
        ],
        state: { sign: 'solarPower', positive: 'PRODUCING', negative: 'IDLE', zero: 'IDLE', deadband: 0.005 },
      },
    },
    meter: {
      fields: {
        // Net-consumption CT: positive importing, negative exporting. Only an active CT counts
        // (pyenphase skips a consumption entry whose activeCount is 0: its wNow is noise).
        power: {
          from: 'productionJson', path: 'consumption[measurementType=net-consumption].wNow', as: 'number', unit: 'W', to: 'kW', digits: 3,
          when: { path: 'consumption[measurementType=net-consumption].activeCount', equals: CT_ACTIVE },
        },
        // Total-consumption: the household's load (production + net).
        consumptionPower: {
          from: 'productionJson', path: 'consumption[measurementType=total-consumption].wNow', as: 'number', unit: 'W', to: 'kW', digits: 3,
          when: { path: 'consumption[measurementType=total-consumption].activeCount', equals: CT_ACTIVE },
        },
      },
    },
    battery: {
      fields: {
        // IQ Batteries (Ensemble): the sum over the batteries, mW, positive discharging. AC
        // Batteries (ACB, older) are in production.json's storage entry, W, positive discharging.
        chargeRate: [
          { from: 'batteryPower', path: '"devices:"[*].real_power_mw', as: 'number', scale: 0.001, unit: 'W', to: 'kW', invert: true },
          { from: 'productionJson', path: 'storage[type=acb].wNow', as: 'number', unit: 'W', to: 'kW', invert: true },
        ],
        // agg_soc covers IQ and AC Batteries together (pyenphase models/acb.py).
        stateOfCharge: [
          { from: 'secctrl', path: 'agg_soc', as: 'number', min: 0, max: 100 },
          { from: 'productionJson', path: 'storage[type=acb].percentFull', as: 'number', min: 0, max: 100 },
        ],
        // The reserve kept for an outage, set in the Enphase app.
        chargeLimitMin: { from: 'secctrl', path: 'configured_backup_soc', as: 'number', min: 0, max: 100 },
        chargingState: { sign: 'chargeRate', positive: 'CHARGING', negative: 'DISCHARGING', zero: 'IDLE', deadband: 0.02 },
      },
      staticData: {
        batteryCapacity: { from: 'secctrl', path: 'Max_energy', as: 'number', unit: 'Wh', to: 'kWh', digits: 2 },
      },
    },
  },
  // /info answers without a token, XML (fixture 8.2.4286…/info): <envoy_info><device><sn>…
  // <pn>800-00664-r05</pn><software>D8.2.4286</software>…
  discovery: {
    path: '/info', matches: '<envoy_info>', model: '<pn>([^<]+)</pn>', serial: '<sn>([^<]+)</sn>', firmware: '<software>([^<]+)</software>',
    kinds: ['pvInverter', 'meter', 'battery'],
  },
});
