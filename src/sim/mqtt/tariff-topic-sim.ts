// A home system that republishes the current grid price on MQTT, as evcc does on
// `evcc/site/tariffGrid` (a plain number in currency per kWh, retained). It takes no commands.
import { MqttDeviceSim } from './mqtt-device-sim.ts';

export class TariffTopicSim extends MqttDeviceSim {
  price = 0.2874;

  constructor(url: string, readonly topic = 'evcc/site/tariffGrid') {
    super({ url });
  }

  protected commandTopics(): string[] {
    return [];
  }

  protected async publishAll(): Promise<void> {
    await this.publish(this.topic, String(this.price));
  }

  protected async onCommand(): Promise<void> {}

  /** A new price slot begins. */
  async setPrice(price: number): Promise<void> {
    this.price = price;
    await this.publish(this.topic, String(price));
  }
}
