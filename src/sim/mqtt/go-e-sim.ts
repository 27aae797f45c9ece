// A go-e Charger as its MQTT API v2 documents it (goecharger/go-eCharger-API-v2 @b4d7f85, mqtt-en.md,
// apikeys-en.md) and as third parties captured it (syssi/homeassistant-goecharger-mqtt @4754303,
// mqtt-capture.log, firmware 053.1): retained JSON values per key under its topic base, writes on
// `{key}/set` answered on `{key}/result` (not retained) with `success` or an error text.
// - `form`: `serial` `{prefix}/{serial}/…` (documented), `slash` `/{prefix}/{serial}/…` (older
//   firmware, as captured), `whole` `{prefix}/…` (a custom prefix set in the app, no serial).
// - `firmware`: `current` registers the last will `mcc` = false and publishes mcc, typ, fna and pnp;
//   `captured` publishes what the capture shows: no mcc, typ, fna or pnp, but pha, var and rbt.
// rbt (milliseconds since boot) is published every `rbtIntervalMs`, by default every second as the
// charger does (mqtt-en.md's capture: one rbt per charger per second); the hub's go-e definition
// shows a charger silent for 60 s offline, so a simulator without it went offline a minute after start.
import { MqttDeviceSim } from './mqtt-device-sim.ts';

export interface GoEOptions {
  form?: 'serial' | 'slash' | 'whole';
  firmware?: 'current' | 'captured';
  /** Default 1000 (the charger's own rhythm); 0: rbt only on connect and on `tick()`. */
  rbtIntervalMs?: number;
}

export interface GoEState {
  car: number;
  amp: number;
  frc: number;
  pnp: number;
  /** Total power in W (nrg[11]). */
  powerW: number;
  typ: string;
  fna: string;
}

export class GoESim extends MqttDeviceSim {
  readonly state: GoEState = { car: 1, amp: 16, frc: 0, pnp: 3, powerW: 0, typ: 'go-eCharger', fna: 'Garage' };
  readonly base: string;
  readonly firmware: 'current' | 'captured';
  /** rbt counts from the boot on a clock that never steps (a charger's uptime), as a duration. */
  private readonly bootedAt = performance.now();
  private timer: NodeJS.Timeout | undefined;
  /** Called after the charger's state changed (plugged, stopped, started, another current): a car that follows it. */
  onChange: ((state: Readonly<GoEState>) => void) | undefined;

  constructor(url: string, readonly serial = '012345', readonly prefix = 'go-eCharger', private readonly goe: GoEOptions = {}) {
    const form = goe.form ?? 'serial';
    const base = form === 'whole' ? prefix : form === 'slash' ? `/${prefix}/${serial}` : `${prefix}/${serial}`;
    const firmware = goe.firmware ?? 'current';
    super({ url, ...(firmware === 'current' ? { will: { topic: `${base}/mcc`, payload: 'false', retain: true, qos: 1 as const } } : {}) });
    this.base = base;
    this.firmware = firmware;
  }

  private t(key: string): string {
    return `${this.base}/${key}`;
  }

  protected commandTopics(): string[] {
    return [this.t('+/set')];
  }

  protected async publishAll(): Promise<void> {
    if (this.firmware === 'current') {
      await this.publish(this.t('mcc'), 'true');
      for (const key of ['car', 'amp', 'frc', 'pnp', 'typ', 'fna'] as const) await this.publish(this.t(key), JSON.stringify(this.state[key]));
    } else {
      for (const key of ['car', 'amp', 'frc'] as const) await this.publish(this.t(key), JSON.stringify(this.state[key]));
      await this.publish(this.t('var'), '11');
      await this.publishPha();
    }
    await this.publishNrg();
    await this.tick();
    const every = this.goe.rbtIntervalMs ?? 1000;
    if (every > 0 && !this.timer) {
      this.timer = setInterval(() => void this.tick().catch(() => {}), every);
      this.timer.unref();
    }
  }

  /** rbt: time since boot in ms, as the charger publishes every second. */
  async tick(): Promise<void> {
    await this.publish(this.t('rbt'), String(Math.round(performance.now() - this.bootedAt)));
  }

  override async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await super.stop();
  }

  override drop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    super.drop();
  }

  /** Phases before/after the contactor: power flows on all three while charging (a three-phase supply). */
  private async publishPha(): Promise<void> {
    const on = this.state.car === 2;
    if (this.firmware === 'captured') await this.publish(this.t('pha'), JSON.stringify([on, on, on, true, true, true]));
  }

  private async publishNrg(): Promise<void> {
    const perPhase = Math.round(this.state.powerW / 3);
    const current = Math.round((perPhase / 230) * 10) / 10;
    await this.publish(this.t('nrg'), JSON.stringify([230, 231, 229, 0, current, current, current, perPhase, perPhase, perPhase, 0, this.state.powerW, 99, 99, 99, 0]));
  }

  /** What a charging car draws at the offered current, on three phases of 230 V. */
  private chargingPower(): number {
    return this.state.amp * 230 * 3;
  }

  /** Publishes car, phases and power after a change, and tells the follower. */
  private async changed(): Promise<void> {
    this.onChange?.(this.state);
    await this.publish(this.t('car'), String(this.state.car));
    await this.publishPha();
    await this.publishNrg();
  }

  /** A car plugged in and charging at the offered current on three phases. */
  async plugIn(): Promise<void> {
    this.state.car = this.state.frc === 1 ? 3 : 2;
    this.state.powerW = this.state.car === 2 ? this.chargingPower() : 0;
    await this.changed();
  }

  async unplug(): Promise<void> {
    this.state.car = 1;
    this.state.powerW = 0;
    await this.changed();
  }

  /** The car is full (its own limit reached): the charger says complete and draws nothing. */
  async complete(): Promise<void> {
    if (this.state.car !== 2) return;
    this.state.car = 4;
    this.state.powerW = 0;
    await this.changed();
  }

  protected async onCommand(topic: string, payload: string): Promise<void> {
    const match = topic.match(/\/([a-z]+)\/set$/);
    if (!match) return;
    const key = match[1]!;
    let value: unknown;
    try {
      value = JSON.parse(payload);
    } catch {
      return this.answer(() => this.publish(this.t(`${key}/result`), `invalid json IncompleteInput: ${key}`, false));
    }
    if (this.faults.rejecting) return this.answer(() => this.publish(this.t(`${key}/result`), 'mqtt write access disabled', false));
    if (key === 'frc' && (value === 0 || value === 1 || value === 2)) {
      await this.answer(async () => {
        this.state.frc = value as number;
        await this.publish(this.t(`${key}/result`), 'success', false);
        await this.publish(this.t('frc'), String(value));
        // Off holds the car waiting; neutral or on lets it charge (no schedule or eco mode here).
        if (this.state.car === 2 && value === 1) {
          this.state.car = 3;
          this.state.powerW = 0;
        } else if (this.state.car === 3 && value !== 1) {
          this.state.car = 2;
          this.state.powerW = this.chargingPower();
        }
        await this.changed();
      });
    } else if (key === 'amp' && typeof value === 'number' && Number.isInteger(value) && value >= 6 && value <= 32) {
      await this.answer(async () => {
        // A charging car takes the new current at once.
        this.state.amp = value;
        if (this.state.car === 2) this.state.powerW = this.chargingPower();
        await this.publish(this.t(`${key}/result`), 'success', false);
        await this.publish(this.t('amp'), String(value));
        if (this.state.car === 2) await this.changed();
      });
    } else {
      await this.answer(() => this.publish(this.t(`${key}/result`), `value not allowed ${payload}`, false));
    }
  }
}
