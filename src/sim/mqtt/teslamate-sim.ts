// TeslaMate as its MQTT integration documents it (teslamate-org/teslamate, docs/integrations/mqtt.md):
// one retained topic per value under `teslamate/cars/{id}/`, plain payloads, published when a value
// changes; `healthy` true/false, not retained (teslamate-org/teslamate @8a692e2,
// lib/teslamate/mqtt/pubsub/vehicle_subscriber.ex: @do_not_retain ~w(healthy)a, and at start an
// empty retained message clears a healthy retained by older versions); no last will and no command
// topics (TeslaMate is read-only).
import { MqttDeviceSim } from './mqtt-device-sim.ts';

export interface TeslaMateState {
  display_name: string;
  model: string;
  healthy: boolean;
  battery_level: number;
  charge_limit_soc: number;
  /** Tesla API words: Disconnected, Starting, Charging, Stopped, Complete, NoPower. */
  charging_state: string;
  plugged_in: boolean;
  /** kW; null is published as an empty payload, as TeslaMate does when not charging. */
  charger_power: number | null;
  charger_actual_current: number | null;
  est_battery_range_km: number;
  /** Hours until the charge limit is reached (0 when not charging). */
  time_to_full_charge: number;
  charge_current_request_max: number;
  odometer: number;
  latitude: number;
  longitude: number;
  inside_temp: number;
  is_climate_on: boolean;
}

export class TeslaMateSim extends MqttDeviceSim {
  readonly state: TeslaMateState = {
    display_name: 'Blue Thunder', model: '3', healthy: true, battery_level: 64, charge_limit_soc: 80, charging_state: 'Disconnected',
    plugged_in: false, charger_power: null, charger_actual_current: null, est_battery_range_km: 301.4,
    time_to_full_charge: 0, charge_current_request_max: 16, odometer: 48211.4, latitude: 52.520008, longitude: 13.404954,
    inside_temp: 19.5, is_climate_on: false,
  };

  constructor(url: string, readonly carId = '1', readonly prefix = 'teslamate') {
    super({ url });
  }

  private t(key: string): string {
    return `${this.prefix}/cars/${this.carId}/${key}`;
  }

  protected commandTopics(): string[] {
    return [];
  }

  protected async publishAll(): Promise<void> {
    await this.publish(this.t('healthy'), '', true); // clear_retained
    for (const key of Object.keys(this.state) as (keyof TeslaMateState)[]) await this.set(key, this.state[key]);
  }

  protected async onCommand(): Promise<void> {
    // TeslaMate subscribes to nothing.
  }

  /** Changes one value and publishes it, as TeslaMate does on a change. */
  async set<K extends keyof TeslaMateState>(key: K, value: TeslaMateState[K]): Promise<void> {
    this.state[key] = value;
    await this.publish(this.t(key), value === null ? '' : String(value), key !== 'healthy');
  }

  /**
   * The car follows the charger it is plugged into (go-e's carState: 1 no car, 2 charging, 3 waiting,
   * 4 complete, 5 error), in the Tesla API's words: it charges at exactly the charger's power and
   * current, and a stopped charger leaves it Stopped with nothing drawn.
   */
  async followCharger(charger: { car: number; powerW: number; amp: number }): Promise<void> {
    const plugged = charger.car >= 2 && charger.car <= 5;
    const charging = charger.car === 2 && charger.powerW > 0;
    const word = !plugged ? 'Disconnected' : charging ? 'Charging' : charger.car === 4 ? 'Complete' : charger.car === 5 ? 'NoPower' : 'Stopped';
    if (this.state.plugged_in !== plugged) await this.set('plugged_in', plugged);
    // TeslaMate publishes charger_power in whole kW (the Tesla API's integer) and empty when unplugged.
    const power = !plugged ? null : charging ? Math.round(charger.powerW / 1000) : 0;
    const current = !plugged ? null : charging ? charger.amp : 0;
    if (this.state.charger_actual_current !== current) await this.set('charger_actual_current', current);
    if (this.state.charger_power !== power) await this.set('charger_power', power);
    if (this.state.charging_state !== word) await this.set('charging_state', word);
  }

  /**
   * The charge level after energy went into the battery (TeslaMate publishes whole percent), and the
   * hours left to the charge limit at `powerW` of a battery of `capacityKwh` (0 when not charging).
   */
  async chargeLevel(percent: number, powerW = 0, capacityKwh = 75): Promise<void> {
    const level = Math.min(100, Math.floor(percent));
    if (level !== this.state.battery_level) await this.set('battery_level', level);
    const hours = powerW > 0 ? Math.max(0, ((this.state.charge_limit_soc - percent) / 100) * capacityKwh / (powerW / 1000)) : 0;
    const rounded = Math.round(hours * 100) / 100;
    if (rounded !== this.state.time_to_full_charge) await this.set('time_to_full_charge', rounded);
  }

  /** The car is plugged into a charger that powers it. */
  async startCharging(powerKw: number, currentA: number): Promise<void> {
    await this.set('plugged_in', true);
    await this.set('charger_actual_current', currentA);
    await this.set('charger_power', powerKw);
    await this.set('charging_state', 'Charging');
  }
}
