// An ESPAltherma board on a Daikin Altherma, as its classic firmware publishes (raomin/ESPAltherma
// @10a1948: include/mqtt.h, src/main.cpp, README): `{prefix}/LWT` Online (retained, last will
// Offline), the selected values as one JSON object on `{prefix}/ATTR` (not retained, every
// `intervalMs`), keyed by the labels of the model's definition file (include/def/*.h: give the
// file's labels in `labels`; by default those of ALTHERMA(LT_CA_CB_04-08KW).h that the hub maps), the
// thermostat relay on `{prefix}/POWER` (only the second letter of ON/OFF counts) echoed on
// `{prefix}/STATE` (retained), and Smart Grid `{prefix}/sg/set` 0-3 echoed on `{prefix}/sg/state`
// when built with PIN_SG1; on every (re)connect `sg/state` is published as 0 (not retained), whatever
// the relays are. There is no error topic: a command it does not understand is printed on its serial
// port only.
import { MqttDeviceSim } from './mqtt-device-sim.ts';

export interface EspAlthermaOptions {
  prefix?: string;
  /** How often ATTR is published (the firmware's loop); 0: only on connect and on `publishAttr()`. */
  intervalMs?: number;
  /** Built with PIN_SG1 (Smart Grid relays). */
  smartGrid?: boolean;
  /** The labels of a definition file (include/def/*.h), all published: known ones with a value of
   * their kind, the others 0. */
  labels?: readonly string[];
}

/** Values by label, for every label variant of the current English definition files. */
const VALUES: Record<string, string | number> = {
  'Operation Mode': 'Heating',
  'R1T-Outdoor air temp.': 7.5, 'Outdoor air temp.': 7.5, 'Outdoor air temp.(C)': 7.5, 'Outdoor Ambient or Ext Sensor': 7.5,
  'Indoor ambient temp. (R1T)': 21.2,
  'Leaving water temp. before BUH (R1T)': 35.1, 'Outlet Water Heat Exch. Temp. (R1T)': 35.1, 'Outlet PHE(R1T)': 35.1, '[HPSU] Tv inflow Temp  (R1T)': 35.1,
  'Inlet water temp.(R4T)': 30.4, 'Inlet temperature(R4T)': 30.4, 'Inlet water temp.(C)': 30.4,
  'LW setpoint (main)': 35, 'H/P Outlet Setpoint': 35,
  'DHW tank temp. (R5T)': 48.3, 'DHW temperature(R5T)': 48.3, 'DHW tank temp.(C)': 48.3,
  'DHW setpoint': 50,
  'Error Code': '00',
};

/** The labels of a definition file, commented out or not: `{0x10,0,217,1,-1,"Operation Mode"},`. */
export function definitionLabels(header: string): string[] {
  return [...header.matchAll(/\{\s*0x[0-9a-fA-F]+\s*,\s*\d+\s*,\s*\d+\s*,\s*\d+\s*,\s*-?\d+\s*,\s*"([^"]*)"\s*\}/g)].map((m) => m[1]!);
}

export class EspAlthermaSim extends MqttDeviceSim {
  readonly prefix: string;
  /** Labels of ALTHERMA(LT_CA_CB_04-08KW).h: numbers bare, text quoted, RSSI as text. */
  readonly attributes: Record<string, string | number> = {
    'Operation Mode': 'Heating',
    'R1T-Outdoor air temp.': 7.5,
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
    if (settings.labels) {
      for (const key of Object.keys(this.attributes)) delete this.attributes[key];
      for (const label of settings.labels) this.attributes[label] = VALUES[label] ?? 0;
      this.attributes['WifiRSSI'] = '-67dBm';
    }
  }

  protected commandTopics(): string[] {
    return [`${this.prefix}/POWER`, ...(this.settings.smartGrid === false ? [] : [`${this.prefix}/sg/set`])];
  }

  protected async publishAll(): Promise<void> {
    await this.publish(`${this.prefix}/LWT`, 'Online');
    // reconnectMqtt: sg/state 0, not retained, whatever the relays are.
    if (this.settings.smartGrid !== false) await this.publish(`${this.prefix}/sg/state`, '0', false);
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
        await this.publish(`${this.prefix}/STATE`, word, true);
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
