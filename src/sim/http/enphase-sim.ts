// An Enphase IQ Gateway (firmware D8) as its local API answers, laid out after pyenphase's captures
// (github.com/pyenphase/pyenphase, MIT, tests/fixtures/8.2.4286_with_3cts_and_battery_split: info,
// api_v1_production, production.json, ivp_ensemble_secctrl, ivp_ensemble_power; trimmed to the
// keys that matter and written here by hand), with values from a SiteModel. `meters` picks how the
// production figures disagree, as in three of those captures: with CTs (8.2.4286…: the production
// CT in production.json 7123.097 W, /api/v1/production 7081, the micros 7012), metered without CTs
// (8.2.4264_metered_noct: CT entries with activeCount 0 and noise, /api/v1/production stalled at
// 4 W with wattHoursToday 0, the micros' 5521 the only true figure), no meter at all
// (7.6.114_without_cts: production.json has the micros only; /api/v1/production agrees with them). Every endpoint but /info
// wants the owner's token as a bearer; a wrong or missing one is 401, as on the gateway.
import type { SiteSource } from '../household-model.ts';
import { HttpDeviceSim, json, type SimAnswer, type SimRequest } from './http-sim-server.ts';

export interface EnphaseSimOptions {
  /** The token the gateway accepts. */
  token: string;
  /** IQ Batteries (Ensemble): without them the ensemble endpoints are 404, as on a PV-only gateway. */
  batteries?: number;
  serial?: string;
  /** The battery reserve set in the app, %. */
  backupSoc?: number;
  /** Production and consumption CTs (default), a metered gateway whose CTs are not set up, or none. */
  meters?: 'cts' | 'metered-no-ct' | 'none';
}

export class EnphaseSim extends HttpDeviceSim {
  token: string;

  constructor(private readonly site: SiteSource, private readonly options: EnphaseSimOptions) {
    super();
    this.token = options.token;
  }

  protected answer(request: SimRequest): SimAnswer | undefined {
    if (request.path === '/info') return { body: this.info(), contentType: 'application/xml' };
    if (request.headers['authorization'] !== `Bearer ${this.token}`) return { status: 401, body: '{"error":"Unauthorized"}' };
    const r = this.site.read();
    const readingTime = Math.floor(Date.now() / 1000);
    const batteries = this.options.batteries ?? 0;
    const meters = this.options.meters ?? 'cts';
    switch (request.path) {
      case '/api/v1/production': {
        if (meters === 'metered-no-ct') return json({ wattHoursToday: 0, wattHoursSevenDays: 1583, wattHoursLifetime: 1583, wattsNow: 4 });
        const wattsNow = meters === 'cts' ? Math.round(r.pvW * 0.99) : Math.round(r.pvW);
        return json({ wattHoursToday: 12364, wattHoursSevenDays: 134187, wattHoursLifetime: Math.round(r.pvEnergyWh), wattsNow });
      }
      case '/production.json': {
        const storage = [{ type: 'acb', activeCount: 0, readingTime: 0, wNow: 0, whNow: 0, state: 'idle' }];
        if (meters === 'none') {
          return json({ production: [{ type: 'inverters', activeCount: 13, readingTime, wNow: Math.round(r.pvW), whLifetime: Math.round(r.pvEnergyWh) }], storage });
        }
        const cts = meters === 'cts' ? 1 : 0;
        const threeDecimals = (w: number) => Math.round(w * 1000) / 1000;
        return json({
          production: [
            { type: 'inverters', activeCount: 24, readingTime, wNow: cts ? Math.round(r.pvW * 0.98) : Math.round(r.pvW), whLifetime: Math.round(r.pvEnergyWh) },
            { type: 'eim', activeCount: cts, measurementType: 'production', readingTime, wNow: cts ? threeDecimals(r.pvW) : 3.659, whLifetime: r.pvEnergyWh, rmsVoltage: 231.2 },
          ],
          consumption: [
            { type: 'eim', activeCount: cts, measurementType: 'total-consumption', readingTime, wNow: cts ? threeDecimals(r.loadW) : -1.837, rmsVoltage: 231.1 },
            { type: 'eim', activeCount: cts, measurementType: 'net-consumption', readingTime, wNow: cts ? threeDecimals(r.gridW) : -5.495, rmsVoltage: 231.1 },
          ],
          storage,
        });
      }
      case '/ivp/ensemble/secctrl':
        if (batteries === 0) return undefined;
        return json({
          shutdown: false, configured_backup_soc: this.options.backupSoc ?? 20, adjusted_backup_soc: this.options.backupSoc ?? 20,
          agg_soc: Math.round(r.socPct), Max_energy: this.site.batteryCapacityWh, ENC_agg_soc: Math.round(r.socPct), ENC_agg_soh: 100,
          ENC_agg_avail_energy: Math.round((this.site.batteryCapacityWh * r.socPct) / 100), ACB_agg_soc: 0, ACB_agg_energy: 0,
        });
      case '/ivp/ensemble/power': {
        if (batteries === 0) return undefined;
        // mW, positive while discharging, split evenly over the batteries.
        const each = Math.round((-r.batteryW * 1000) / batteries);
        return json({ 'devices:': Array.from({ length: batteries }, (_, i) => ({ serial_num: `49232000014${i}`, real_power_mw: each, apparent_power_mva: each, soc: Math.round(r.socPct) })) });
      }
      default:
        return undefined;
    }
  }

  private info(): string {
    return `<?xml version="1.0" encoding="utf-8"?>
<envoy_info>
  <time>${Math.floor(Date.now() / 1000)}</time>
  <device>
    <sn>${this.options.serial ?? '122302045041'}</sn>
    <pn>800-00664-r05</pn>
    <software>D8.2.4286</software>
    <euaid>4c8675</euaid>
    <seqnum>0</seqnum>
    <apiver>1</apiver>
    <imeter>true</imeter>
  </device>
  <web-tokens>true</web-tokens>
</envoy_info>
`;
  }
}
