// A Tesla Backup Gateway 2 (Powerwall 2 / Powerwall+) as its local API answers, after the answers in
// jrester/tesla_powerwall (MIT, tests/unit/fixtures/meters_aggregates.json, operation.json,
// system_status.json, status.json, site_info.json; trimmed, written here by hand) and the login of
// its api.py: POST /api/login/Basic sets AuthCookie and UserRecord; every /api call but /api/status
// needs them and is 401 without. `expireSessions()` forgets every session, as the gateway does now
// and then; `lockedOut` answers logins 429, as after repeated failed logins.
import { randomBytes } from 'node:crypto';
import type { SiteSource } from '../household-model.ts';
import { HttpDeviceSim, json, type SimAnswer, type SimRequest } from './http-sim-server.ts';

export interface PowerwallSimOptions {
  email: string;
  password: string;
  /** Powerwalls behind the gateway: 13.5 kWh each. */
  packs?: number;
  /** On the gateway's scale, as the app's 20 % shows (20 × 0.95 + 5). */
  backupReservePercent?: number;
  realMode?: 'self_consumption' | 'autonomous' | 'backup';
}

export class PowerwallSim extends HttpDeviceSim {
  readonly sessions = new Set<string>();
  logins = 0;
  lockedOut = false;
  realMode: string;
  backupReservePercent: number;

  constructor(private readonly site: SiteSource, private readonly options: PowerwallSimOptions) {
    super();
    this.realMode = options.realMode ?? 'self_consumption';
    this.backupReservePercent = options.backupReservePercent ?? 24;
  }

  expireSessions(): void {
    this.sessions.clear();
  }

  protected answer(request: SimRequest): SimAnswer | undefined {
    if (request.path === '/api/status') {
      return json({ din: '1232100-00-E--TG123456789ABC', start_time: '2026-11-01 08:00:00 +0800', up_time_seconds: '61h2m3.2s', is_new: false, version: '23.12.10 2b6c1a5f', git_hash: '2b6c1a5f', commission_count: 0, device_type: 'teg', teg_type: 'unknown', sync_type: 'v2.1', cellular_disabled: false, can_reboot: true });
    }
    if (request.path === '/api/login/Basic' && request.method === 'POST') return this.login(request.body);
    const cookie = /AuthCookie=([^;]+)/.exec(request.headers['cookie'] ?? '')?.[1];
    if (!cookie || !this.sessions.has(cookie)) return { status: 401, body: '{"code":401,"error":"bad credentials","message":"Login Error"}' };
    const r = this.site.read();
    const meter = (power: number, imported: number, exported: number) => ({
      last_communication_time: new Date().toISOString(), instant_power: power, instant_reactive_power: -12.5, instant_apparent_power: Math.abs(power),
      frequency: 50, energy_exported: exported, energy_imported: imported, instant_average_voltage: 230.4, instant_total_current: power / 230.4, timeout: 1500000000,
    });
    const packs = this.options.packs ?? 1;
    switch (request.path) {
      case '/api/meters/aggregates':
        return json({
          site: meter(r.gridW, r.gridImportWh, r.gridExportWh),
          // Positive while discharging.
          battery: meter(-r.batteryW, 1_036_000, 1_203_000),
          load: meter(r.loadW, 0, 0),
          solar: meter(r.pvW, 0, r.pvEnergyWh),
        });
      case '/api/system_status/soe':
        // The gateway's scale: the app's 0–100 % is 5–100 % here.
        return json({ percentage: 5 + r.socPct * 0.95 });
      case '/api/system_status':
        return json({ nominal_full_pack_energy: 13_500 * packs, nominal_energy_remaining: Math.round(13_500 * packs * (5 + r.socPct * 0.95) / 100), max_charge_power: 5000 * packs, max_discharge_power: 5000 * packs, system_island_state: 'SystemGridConnected' });
      case '/api/operation':
        return json({ real_mode: this.realMode, backup_reserve_percent: this.backupReservePercent, freq_shift_load_shed_soe: 0, freq_shift_load_shed_delta_f: 0 });
      case '/api/site_info':
        return json({ site_name: 'Tesla Home', timezone: 'Europe/Berlin', nominal_system_energy_kWh: 13.5 * packs, nominal_system_power_kW: 5 * packs, grid_code: { country: 'Germany', grid_freq_setting: 50 } });
      default:
        return undefined;
    }
  }

  private login(body: string): SimAnswer {
    if (this.lockedOut) return { status: 429, body: '{"code":429,"error":"Too Many Requests"}', headers: { 'retry-after': '300' } };
    let sent: Record<string, unknown>;
    try {
      sent = JSON.parse(body) as Record<string, unknown>;
    } catch {
      return { status: 400, body: '{"code":400,"error":"bad request"}' };
    }
    if (sent['username'] !== 'customer' || sent['email'] !== this.options.email || sent['password'] !== this.options.password) {
      return { status: 401, body: '{"code":401,"error":"bad credentials","message":"Login Error"}' };
    }
    this.logins++;
    const token = randomBytes(32).toString('base64url');
    this.sessions.add(token);
    return {
      body: JSON.stringify({ email: this.options.email, firstname: 'Tesla', lastname: 'Energy', roles: ['Home_Owner'], token, provider: 'Basic', loginTime: new Date().toISOString() }),
      headers: { 'set-cookie': [`AuthCookie=${token}; Path=/; HttpOnly; Secure`, `UserRecord=${Buffer.from('{"email":"x"}').toString('base64')}; Path=/`] },
    };
  }
}
