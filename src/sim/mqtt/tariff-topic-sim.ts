// A home system that republishes the current grid price on MQTT, as evcc does (evcc-io/evcc @b29b49e,
// server/mqtt.go, core/site.go): `evcc/site/tariffGrid` (currency per kWh, retained, at most three
// decimals: `%.3f` with trailing zeros trimmed), `evcc/site/currency` and the alive indicator
// `evcc/updated` (unix seconds, retained), sent with each round of values (`beat()`). It takes no commands.
import { MqttDeviceSim } from './mqtt-device-sim.ts';

export class TariffTopicSim extends MqttDeviceSim {
  price = 0.2874;

  currency = 'EUR';

  constructor(url: string, readonly topic = 'evcc/site/tariffGrid', readonly root: string | null = 'evcc') {
    super({ url });
  }

  protected commandTopics(): string[] {
    return [];
  }

  protected async publishAll(): Promise<void> {
    await this.beat();
    if (this.root !== null) await this.publish(`${this.root}/site/currency`, this.currency);
    await this.publish(this.topic, evccFloat(this.price));
  }

  /** evcc/updated: published as evcc sends values (at most once a second). */
  async beat(): Promise<void> {
    if (this.root !== null) await this.publish(`${this.root}/updated`, String(Math.floor(Date.now() / 1000)));
  }

  protected async onCommand(): Promise<void> {}

  /** A new price slot begins. */
  async setPrice(price: number): Promise<void> {
    this.price = price;
    await this.beat();
    await this.publish(this.topic, evccFloat(price));
  }
}

/** server/mqtt.go encode: fmt.Sprintf("%.3f") with trailing zeros and a trailing dot trimmed. */
export function evccFloat(value: number): string {
  return value.toFixed(3).replace(/0+$/, '').replace(/\.$/, '');
}
