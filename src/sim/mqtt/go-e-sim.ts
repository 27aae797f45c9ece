// A go-e Charger as its MQTT API v2 documents it (goecharger/go-eCharger-API-v2, mqtt-en.md):
// retained JSON values per key under `{prefix}/{serial}/`, writes on `{key}/set` answered on
// `{key}/result` (not retained) with `success` or an error text, and a last will `mcc` = false.
import { MqttDeviceSim } from './mqtt-device-sim.ts';

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

  constructor(url: string, readonly serial = '012345', readonly prefix = 'go-eCharger') {
    super({ url, will: { topic: `${prefix}/${serial}/mcc`, payload: 'false', retain: true, qos: 1 } });
  }

  private t(key: string): string {
    return `${this.prefix}/${this.serial}/${key}`;
  }

  protected commandTopics(): string[] {
    return [this.t('+/set')];
  }

  protected async publishAll(): Promise<void> {
    await this.publish(this.t('mcc'), 'true');
    for (const key of ['car', 'amp', 'frc', 'pnp', 'typ', 'fna'] as const) await this.publish(this.t(key), JSON.stringify(this.state[key]));
    await this.publishNrg();
  }

  private async publishNrg(): Promise<void> {
    const perPhase = Math.round(this.state.powerW / 3);
    const current = Math.round((perPhase / 230) * 10) / 10;
    await this.publish(this.t('nrg'), JSON.stringify([230, 231, 229, 0, current, current, current, perPhase, perPhase, perPhase, 0, this.state.powerW, 99, 99, 99, 0]));
  }

  /** A car plugged in and charging at the offered current on three phases. */
  async plugIn(): Promise<void> {
    this.state.car = this.state.frc === 1 ? 3 : 2;
    this.state.powerW = this.state.car === 2 ? this.state.amp * 230 * 3 : 0;
    await this.publish(this.t('car'), String(this.state.car));
    await this.publishNrg();
  }

  async unplug(): Promise<void> {
    this.state.car = 1;
    this.state.powerW = 0;
    await this.publish(this.t('car'), '1');
    await this.publishNrg();
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
        if (this.state.car === 2 && value === 1) {
          this.state.car = 3;
          this.state.powerW = 0;
        } else if (this.state.car === 3 && value === 2) {
          this.state.car = 2;
          this.state.powerW = this.state.amp * 230 * 3;
        }
        await this.publish(this.t('car'), String(this.state.car));
        await this.publishNrg();
      });
    } else if (key === 'amp' && typeof value === 'number' && Number.isInteger(value) && value >= 6 && value <= 32) {
      await this.answer(async () => {
        this.state.amp = value;
        await this.publish(this.t(`${key}/result`), 'success', false);
        await this.publish(this.t('amp'), String(value));
      });
    } else {
      await this.answer(() => this.publish(this.t(`${key}/result`), `value not allowed ${payload}`, false));
    }
  }
}
