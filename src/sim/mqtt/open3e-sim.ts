// open3e in listener mode on a Viessmann E3 heat pump, as its client publishes (open3e/open3e
// @6553c10, 2026-07-15: README, src/open3e/Open3Eclient.py, Open3Ecodecs.py, Open3Eenums.py), started with
//   -m broker:port:{prefix} -mfstr "{ecuAddr:03X}_{didNumber}_{didName}" -j -l {commandTopic} -r … -t …
// On connect it publishes `{prefix}/LWT` online (retained), registered as its last will offline
// (retained). Each data point is published as one JSON message (json.dumps of the decoded value) on
// `{prefix}/680_{did}_{name}`, not retained, every `intervalMs` and on a read command; without `-j`
// a plain `read` splits objects into sub-topics. Writes (`{"mode":"write","data":[[did, v]]}`, or
// `["424.Comfort", v]` for one member) answer nothing; an enum member is written by its text
// (O3EEnum.encode looks the text up in its list: `["1415.Mode", "Heating"]`), an unknown text raises
// and writes nothing. A refused write (the `rejecting` fault, a read-only DID, a value out of range)
// leaves the value as it was. The `silent` fault makes it publish nothing at all, as when the CAN bus
// stops while open3e itself still runs.
import { MqttDeviceSim } from './mqtt-device-sim.ts';

type Value = number | string | Record<string, unknown>;

interface DataPoint {
  name: string;
  value: Value;
  writable?: (value: Value) => boolean;
  /** Enum members: member → the enum's list (ID → text), written by text. */
  enums?: Record<string, Record<number, string>>;
}

/** Open3Eenums.py "OpModes". */
const OP_MODES: Record<number, string> = { 0: 'Off', 1: 'Heating', 2: 'Parallel Operation: Heating HotWater', 3: 'Parallel Operation: Heating Cooling', 4: 'TestMode', 5: 'Cooling', 255: 'Automatic' };

export interface Open3eOptions {
  prefix?: string;
  commandTopic?: string;
  /** The ECU address (0x680: the main controller). */
  ecu?: number;
  /** `-t`: how often the `-r` list is read and published; 0: only on request. */
  intervalMs?: number;
  /** `-j`: one JSON message per data point. */
  json?: boolean;
}

const sensor = (actual: number) => ({ Actual: actual, Minimum: actual - 2, Maximum: actual + 3, Average: actual, SensorStatus: { ID: 0, Text: 'Connected' } });
const inRange = (min: number, max: number) => (v: Value) => typeof v === 'number' && v >= min && v <= max;

export class Open3eSim extends MqttDeviceSim {
  readonly prefix: string;
  readonly commandTopic: string;
  readonly ecu: number;
  /** DID → data point, as Open3Edatapoints.md names and shapes them. */
  readonly points = new Map<number, DataPoint>([
    [268, { name: 'FlowTemperatureSensor', value: sensor(34.2) }],
    [271, { name: 'DomesticHotWaterSensor', value: sensor(47.1) }],
    [274, { name: 'OutsideTemperatureSensor', value: sensor(6.3) }],
    [396, { name: 'DomesticHotWaterTemperatureSetpoint', value: 47.5, writable: inRange(10, 60) }],
    [424, { name: 'MixerOneCircuitRoomTemperatureSetpoint', value: { Comfort: 23, Standard: 21, Reduced: 15, Increased: 0, Duration: 0 }, writable: () => true }],
    [1415, { name: 'MixerOneCircuitOperationState', value: { Mode: { ID: 1, Text: 'Heating' }, State: { ID: 2, Text: 'Normal' } }, writable: () => true, enums: { Mode: OP_MODES } }],
  ]);
  private timer: NodeJS.Timeout | undefined;

  constructor(url: string, private readonly settings: Open3eOptions = {}) {
    super({ url, will: { topic: `${settings.prefix ?? 'open3e'}/LWT`, payload: 'offline', retain: true, qos: 0 } });
    this.prefix = settings.prefix ?? 'open3e';
    this.commandTopic = settings.commandTopic ?? 'open3e/cmnd';
    this.ecu = settings.ecu ?? 0x680;
  }

  topicOf(did: number): string {
    return `${this.prefix}/${this.ecu.toString(16).toUpperCase().padStart(3, '0')}_${did}_${this.points.get(did)!.name}`;
  }

  protected commandTopics(): string[] {
    return [this.commandTopic];
  }

  protected async publishAll(): Promise<void> {
    await this.publish(`${this.prefix}/LWT`, 'online', true);
    await this.readAll();
    if (this.settings.intervalMs && !this.timer) this.timer = setInterval(() => void this.readAll().catch(() => {}), this.settings.intervalMs);
  }

  /** One round of the `-r` list. */
  async readAll(): Promise<void> {
    for (const did of this.points.keys()) await this.read(did, this.settings.json ?? true);
  }

  private async read(did: number, json: boolean): Promise<void> {
    const point = this.points.get(did);
    if (!point || this.faults.silent) return;
    if (json) return this.publish(this.topicOf(did), pythonJson(point.value), false);
    // showread → mqttdump: objects become one sub-topic per member, each str(value).
    const dump = async (topic: string, value: unknown): Promise<void> => {
      if (value !== null && typeof value === 'object') {
        for (const [key, item] of Object.entries(value)) await dump(`${topic}/${key}`, item);
      } else {
        await this.publish(topic, String(value), false);
      }
    };
    await dump(this.topicOf(did), point.value);
  }

  protected async onCommand(_topic: string, payload: string): Promise<void> {
    let command: { mode?: unknown; data?: unknown; addr?: unknown };
    try {
      command = JSON.parse(payload);
    } catch {
      return; // "bad payload" on stdout
    }
    const addr = command.addr === undefined ? this.ecu : Number(command.addr);
    if (addr !== this.ecu || !Array.isArray(command.data)) return;
    await this.answer(async () => {
      if (command.mode === 'read' || command.mode === 'read-json') {
        for (const did of command.data as unknown[]) await this.read(Number(did), command.mode === 'read-json' || (this.settings.json ?? true));
      } else if (command.mode === 'write') {
        for (const item of command.data as unknown[]) if (Array.isArray(item)) this.write(String(item[0]), item[1] as Value);
      }
    });
  }

  /** writeByDid: `396` or `424.Comfort` (did.sub); a refused write changes nothing. */
  private write(key: string, value: Value): void {
    const [didText, sub] = key.split('.');
    const point = this.points.get(Number(didText));
    if (!point?.writable || this.faults.rejecting) return;
    if (sub === undefined) {
      if (point.writable(value)) point.value = value;
      return;
    }
    if (typeof point.value !== 'object' || !(sub in point.value)) return;
    const list = point.enums?.[sub];
    if (list) {
      const id = Object.entries(list).find(([, text]) => text === value)?.[0];
      if (typeof value !== 'string' || id === undefined) return; // "not found": nothing written
      point.value = { ...point.value, [sub]: { ID: Number(id), Text: value } };
      return;
    }
    if (typeof value !== 'number') return;
    point.value = { ...point.value, [sub]: value };
  }

  override async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await super.stop();
  }
}

/** json.dumps as Python writes it: ", " and ": " between items. */
function pythonJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`).join(', ')}}`;
}
