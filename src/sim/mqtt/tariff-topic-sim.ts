// A home system that republishes the current grid price on MQTT, as evcc does (evcc-io/evcc @b29b49e,
// server/mqtt.go, core/site.go): `evcc/site/tariffGrid` (currency per kWh, retained, at most three
// decimals: `%.3f` with trailing zeros trimmed), `evcc/site/currency` and the alive indicator
// `evcc/updated` (unix seconds, retained), sent with each round of values (`beat()`). It takes no commands.
// With a curve (`setForecast`), the day-ahead prices as evcc republishes them: core/site_tariffs.go
// publishTariffs sends `forecast` with its Grid rates as [start unix s, end unix s, price]
// (forecastRates), which server/mqtt.go publishComplex spreads over `evcc/site/forecast/grid` (the
// count), `…/grid/<n>` (3, the rate's count of values) and `…/grid/<n>/1`, `/2`, `/3`, each a float64
// through encode (`%.3f`, trailing zeros trimmed), all retained; an empty curve erases the count.
import { MqttDeviceSim } from './mqtt-device-sim.ts';

export class TariffTopicSim extends MqttDeviceSim {
  price = 0.2874;

  currency = 'EUR';

  /** The curve published, if any: each slot's start and end (ms) and price. */
  forecast: readonly ForecastSlot[] | undefined;

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
    if (this.forecast) await this.publishForecast(this.forecast);
  }

  /** The forecast topic: `<root>/site/forecast/grid` (a feed other than evcc has none). */
  get forecastTopic(): string | undefined {
    return this.root === null ? undefined : `${this.root}/site/forecast/grid`;
  }

  /** A new curve (evcc republishes the whole of it with each round of values). */
  async setForecast(slots: readonly ForecastSlot[]): Promise<void> {
    this.forecast = slots;
    await this.beat();
    await this.publishForecast(slots);
  }

  private async publishForecast(slots: readonly ForecastSlot[]): Promise<void> {
    const topic = this.forecastTopic;
    if (topic === undefined) return;
    await this.publish(topic, slots.length === 0 ? '' : String(slots.length));
    for (const [i, slot] of slots.entries()) {
      await this.publish(`${topic}/${i + 1}`, '3');
      await this.publish(`${topic}/${i + 1}/1`, evccFloat(slot.startMs / 1000));
      await this.publish(`${topic}/${i + 1}/2`, evccFloat(slot.endMs / 1000));
      await this.publish(`${topic}/${i + 1}/3`, evccFloat(slot.price));
    }
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

export interface ForecastSlot {
  startMs: number;
  endMs: number;
  price: number;
}

/** server/mqtt.go encode: fmt.Sprintf("%.3f") with trailing zeros and a trailing dot trimmed. */
export function evccFloat(value: number): string {
  return value.toFixed(3).replace(/0+$/, '').replace(/\.$/, '');
}
