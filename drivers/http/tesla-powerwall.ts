// Tesla Powerwall 2 / Powerwall+ through the Backup Gateway 2's local API, with the customer login
// (the email and the password set on the gateway's own page, by default the last five characters
// of the gateway's serial). Follows jrester/tesla_powerwall (MIT, @e997225, tesla_powerwall/api.py,
// tests/unit/fixtures/*.json) and jasonacox/pypowerwall's notes (the 5 % reserve, TEDAPI).
//
// POST /api/login/Basic {"username":"customer","email":…,"password":…,"force_sm_off":false}
// sets the AuthCookie and UserRecord cookies; the gateway drops sessions now and then and answers
// 401/403, when the hub logs in again once. Repeated failed logins lock the account for a while, so
// a refused login is not retried before the longest back-off. The gateway serves HTTPS with a
// self-signed certificate, pinned when the device is added.
//
// Powerwall 3 has no such local API on its own gateway: see docs/drivers-http.md.
import { defineHttpDriver } from '../../src/runtime/http/definition.ts';

const W_TO_KW = { unit: 'W', to: 'kW' } as const;

/**
 * The gateway keeps 5 % of the pack out of reach and shows the rest as 0–100 % in the app:
 * app % = (gateway % − 5) / 0.95 (pypowerwall's `level(scale=True)`, the Tesla app's number). The
 * reserve the owner sets (backup_reserve_percent) is on the gateway's scale too.
 */
const APP_SCALE = { offset: -5, scale: 1 / 0.95, min: 0, max: 100, digits: 1 } as const;

export default defineHttpDriver({
  protocol: 'http',
  type: 'tesla-powerwall',
  title: 'Tesla Powerwall 2 / Powerwall+ (Backup Gateway 2)',
  source: 'Backup Gateway 2 local API, firmware 20.40–23.x, as read by tesla_powerwall 0.5 and pypowerwall',
  vendors: [{ domain: 'homePower', code: 'TESLA' }],
  scheme: 'https',
  defaults: { pollIntervalMs: 5000, timeoutMs: 5000, minGapMs: 100 },
  settings: {
    email: { required: true, description: 'the customer email set on the gateway' },
    password: { required: true, secret: true, description: 'the customer password (by default the last 5 characters of the gateway serial)' },
  },
  auth: {
    scheme: 'login', path: '/api/login/Basic',
    body: '{"username":"customer","email":"{email}","password":"{password}","force_sm_off":false}',
    cookies: ['AuthCookie', 'UserRecord'],
  },
  endpoints: {
    // {"site": {"instant_power", "energy_exported", "energy_imported"…}, "battery": {…}, "load": {…},
    // "solar": {…}} W and Wh (fixture meters_aggregates.json). site > 0 importing; battery > 0
    // discharging; solar ≥ 0.
    aggregates: { path: '/api/meters/aggregates', format: 'json' },
    // {"percentage": 69.16…} on the gateway's scale (api.py get_system_status_soe, powerwall.py
    // get_charge).
    soe: { path: '/api/system_status/soe', format: 'json' },
    // nominal_full_pack_energy Wh, the packs' capacity (fixture system_status.json).
    systemStatus: { path: '/api/system_status', format: 'json' },
    // {"real_mode": "self_consumption", "backup_reserve_percent": 5.0} (fixture operation.json).
    operation: { path: '/api/operation', format: 'json' },
    // {"site_name": "test", "timezone": "Europe/Berlin", "nominal_system_energy_kWh": 27, …}
    // (fixture site_info.json).
    siteInfo: { path: '/api/site_info', format: 'json', optional: true },
  },
  kinds: {
    battery: {
      fields: {
        chargeRate: { from: 'aggregates', path: 'battery.instant_power', as: 'number', ...W_TO_KW, invert: true },
        stateOfCharge: { from: 'soe', path: 'percentage', as: 'number', ...APP_SCALE },
        chargeLimitMin: { from: 'operation', path: 'backup_reserve_percent', as: 'number', ...APP_SCALE },
        // autonomous is "Time-Based Control" in the app; backup holds the whole pack for outages.
        mode: { from: 'operation', path: 'real_mode', as: 'string', map: { self_consumption: 'SELF_CONSUMPTION', autonomous: 'AUTO', backup: 'MANUAL' } },
        chargingState: { sign: 'chargeRate', positive: 'CHARGING', negative: 'DISCHARGING', zero: 'IDLE', deadband: 0.05 },
      },
      staticData: {
        batteryCapacity: { from: 'systemStatus', path: 'nominal_full_pack_energy', as: 'number', unit: 'Wh', to: 'kWh', digits: 2 },
        siteName: { from: 'siteInfo', path: 'site_name', as: 'string' },
      },
    },
    pvInverter: {
      fields: {
        solarPower: { from: 'aggregates', path: 'solar.instant_power', as: 'number', ...W_TO_KW, min: 0 },
        state: { sign: 'solarPower', positive: 'PRODUCING', negative: 'IDLE', zero: 'IDLE', deadband: 0.01 },
      },
    },
    meter: {
      fields: {
        power: { from: 'aggregates', path: 'site.instant_power', as: 'number', ...W_TO_KW },
        energyImported: { from: 'aggregates', path: 'site.energy_imported', as: 'number', unit: 'Wh', to: 'kWh', digits: 2 },
        energyExported: { from: 'aggregates', path: 'site.energy_exported', as: 'number', unit: 'Wh', to: 'kWh', digits: 2 },
        consumptionPower: { from: 'aggregates', path: 'load.instant_power', as: 'number', ...W_TO_KW },
      },
    },
  },
  // /api/status answers without login: {"din": "1232100-00-E--TG…", "version": "23.12.10 …",
  // "device_type": "teg", …} (fixture status.json).
  discovery: {
    path: '/api/status', matches: '"device_type"\\s*:\\s*"(teg|hec|smc)"', model: '"device_type"\\s*:\\s*"([^"]+)"',
    serial: '"din"\\s*:\\s*"([^"]+)"', firmware: '"version"\\s*:\\s*"([^"]+)"', kinds: ['battery', 'pvInverter', 'meter'],
  },
});
