// An ESPAltherma board on a Daikin Altherma, as its classic firmware publishes (raomin/ESPAltherma
// include/mqtt.h, src/main.cpp, README): `{prefix}/LWT` Online (retained, last will Offline), the
// selected values as one JSON object on `{prefix}/ATTR` (not retained, every `intervalMs`), the
// thermostat relay on `{prefix}/POWER` (only the second letter of ON/OFF counts) echoed on
// `{prefix}/STATE`, and Smart Grid `{prefix}/sg/set` 0-3 echoed on `{prefix}/sg/state` when built
// with PIN_SG1. STATE is not republished after a reboot. There is no error topic: a command it does
// not understand is printed on its serial port only.
import { MqttDeviceSim } from './mqtt-device-sim.ts';

export interface EspAlthermaOptions {
  prefix?: string;
  /** How often ATTR is published (the firmware's loop); 0: only on connect and on `publishAttr()`. */
  intervalMs?: number;
  /** Built with PIN_SG1 (Smart Grid relays). */
  smartGrid?: boolean;
}

export class EspAlthermaSim extends MqttDeviceSim {
  readonly prefix: string;
  /** Labels of ALTHERMA(LT_CA_CB_04-08KW).h: numbers bare, text quoted, RSSI as text. */
  readonly attributes: Record<string, string | number> = {
    'Operation Mode': 'Heating',
    'Outdoor air temp.(R1T)': 7.5,
    'Indoor ambient temp. (R1T)': 21.2,
    'Leaving water temp. before BUH (R1T)': 35.1,
    'Inlet water temp.(R4T)': 30.4,
    'LW setpoint (main)': 35,
    'DHW tank temp. (R5T)': 48.3,
    'DHW setpoint': 50,
    'Error Code': '00',
    'WifiRSSI': '-67dBm',
  };
  thermostat: 'ON' | 'OFF' = 'ON';
  smartGridMode = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(url: string, private readonly settings: EspAlthermaOptions = {}) {
    const prefix = settings.prefix ?? 'espaltherma';
    super({ url, will: { topic: `${prefix}/LWT`, payload: 'Offline', retain: true, qos: 0 } });
    this.prefix = prefix;
  }

  protected commandTopics(): string[] {
    return [`${this.prefix}/POWER`, ...(this.settings.smartGrid === false ? [] : [`${this.prefix}/sg/set`])];
  }

  protected async publishAll(): Promise<void> {
    await this.publish(`${this.prefix}/LWT`, 'Online');
    await this.publishAttr();
    if (this.settings.intervalMs && !this.timer) this.timer = setInterval(() => void this.publishAttr().catch(() => {}), this.settings.intervalMs);
  }

  async publishAttr(): Promise<void> {
    await this.publish(`${this.prefix}/ATTR`, JSON.stringify(this.attributes), false);
  }

  protected async onCommand(topic: string, payload: string): Promise<void> {
    if (topic === `${this.prefix}/POWER`) {
      // callbackTherm: ON → relay closed; OFF → open; anything else ignored (R… reboots).
      const word = payload[1] === 'N' ? 'ON' : payload[1] === 'F' ? 'OFF' : undefined;
      if (!word) return;
      await this.answer(async () => {
        this.thermostat = word;
        await this.publish(`${this.prefix}/STATE`, word, false);
      });
    } else if (topic === `${this.prefix}/sg/set`) {
      const mode = '0123'.indexOf(payload[0] ?? '');
      if (mode < 0) return;
      await this.answer(async () => {
        this.smartGridMode = mode;
        await this.publish(`${this.prefix}/sg/state`, String(mode), false);
      });
    }
  }

  override drop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    super.drop();
  }

  override async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await super.stop();
  }
}
