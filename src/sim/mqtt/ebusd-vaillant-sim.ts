// ebusd with a Vaillant VRC700 on its bus, as ebusd's MQTT client publishes it in its default
// payload mode (john30/ebusd wiki "3.3. MQTT client", src/ebusd/mqtthandler.cpp; messages of
// ebusd-configuration 15.700.csv): `{prefix}/global/running` true (retained, last will false),
// `global/signal`, and each message as its bare value on `{prefix}/{circuit}/{name}`, not retained.
// `…/get` reads a message and publishes it; `…/set` writes it, and on success ebusd publishes the
// message with the new value. A write ebusd or the controller refuses is only logged: nothing is
// published, which is what the `rejecting` fault does.
import { MqttDeviceSim } from './mqtt-device-sim.ts';

const OPMODES = ['off', 'auto', 'day', 'night'];
const SFMODES = ['auto', 'ventilation', 'party', 'veto', 'load'];
/** TTM: hh:m0 from 00:00 to 24:00, or -:- for an unused slot. */
const TTM = /^(?:(?:[01]\d|2[0-3]):[0-5]0|24:00|-:-)$/;
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

type Kind = 'temp' | 'opmode' | 'sfmode' | 'timer';

export class EbusdVaillantSim extends MqttDeviceSim {
  /** Message name → the value as ebusd prints it. */
  readonly messages = new Map<string, string>([
    ['z1RoomTemp', '20.5'],
    ['z1DayTemp', '21'],
    ['z1NightTemp', '17'],
    ['z1ActualRoomTempDesired', '21'],
    ['z1OpMode', 'auto'],
    ['z1SFMode', 'auto'],
    ['HwcStorageTemp', '46.5'],
    ['HwcTempDesired', '50'],
    ['HwcOpMode', 'auto'],
    ['HwcSFMode', 'auto'],
    ['DisplayedOutsideTemp', '4.5'],
    ...DAYS.map((day) => [`z1Timer.${day}`, '06:00;22:00;-:-;-:-;-:-;-:-'] as [string, string]),
    ...DAYS.map((day) => [`hwcTimer.${day}`, '05:30;07:00;17:00;21:00;-:-;-:-'] as [string, string]),
  ]);

  /** Writable messages (r;w in 15.700.csv) and what their write input must look like. */
  private readonly writable = new Map<string, Kind>([
    ['z1DayTemp', 'temp'], ['z1NightTemp', 'temp'], ['z1OpMode', 'opmode'], ['z1SFMode', 'sfmode'],
    ['HwcTempDesired', 'temp'], ['HwcOpMode', 'opmode'], ['HwcSFMode', 'sfmode'],
    ...DAYS.map((day) => [`z1Timer.${day}`, 'timer'] as [string, Kind]),
    ...DAYS.map((day) => [`hwcTimer.${day}`, 'timer'] as [string, Kind]),
  ]);

  constructor(url: string, readonly prefix = 'ebusd', readonly circuit = '700') {
    super({ url, will: { topic: `${prefix}/global/running`, payload: 'false', retain: true, qos: 1 } });
  }

  private t(name: string): string {
    return `${this.prefix}/${this.circuit}/${name}`;
  }

  protected commandTopics(): string[] {
    return [this.t('+/get'), this.t('+/set')];
  }

  protected async publishAll(): Promise<void> {
    await this.publish(`${this.prefix}/global/running`, 'true');
    await this.publish(`${this.prefix}/global/signal`, 'true');
    // What ebusd has polled so far; message topics are not retained (no --mqttretain).
    for (const name of this.messages.keys()) await this.publishMessage(name);
  }

  private async publishMessage(name: string): Promise<void> {
    const value = this.messages.get(name);
    if (value !== undefined) await this.publish(this.t(name), value, false);
  }

  /** A value changes on the bus (e.g. the room warms up) and ebusd publishes it. */
  async update(name: string, value: string): Promise<void> {
    this.messages.set(name, value);
    await this.publishMessage(name);
  }

  protected async onCommand(topic: string, payload: string): Promise<void> {
    const match = topic.slice(`${this.prefix}/${this.circuit}/`.length).match(/^(.+)\/(get|set)$/);
    if (!match) return;
    const [, name, action] = match as unknown as [string, string, 'get' | 'set'];
    if (action === 'get') return this.answer(() => this.publishMessage(name));
    const kind = this.writable.get(name);
    const value = kind ? accepted(kind, payload) : undefined;
    // Not writable, not understood, or refused by the controller: logged by ebusd, nothing published.
    if (value === undefined || this.faults.rejecting) return;
    await this.answer(async () => {
      this.messages.set(name, value);
      await this.publishMessage(name);
    });
  }
}

/** The value ebusd would write and echo for a write input, or undefined when it refuses it. */
function accepted(kind: Kind, input: string): string | undefined {
  switch (kind) {
    case 'temp': {
      const number = Number(input);
      return input.trim() !== '' && Number.isFinite(number) ? String(number) : undefined;
    }
    case 'opmode':
      return OPMODES.includes(input) ? input : undefined;
    case 'sfmode':
      return SFMODES.includes(input) ? input : undefined;
    case 'timer': {
      const fields = input.split(';');
      return fields.length === 6 && fields.every((f) => TTM.test(f)) ? input : undefined;
    }
  }
}
