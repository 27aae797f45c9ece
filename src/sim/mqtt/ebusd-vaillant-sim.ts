// ebusd 26.1 with a Vaillant VRC700 (or VRC720) on its bus, as its MQTT client publishes it
// (john30/ebusd @856bb0d: src/ebusd/mqtthandler.cpp, src/lib/ebus/data.cpp): `{prefix}/global/running`
// true (retained, last will false), `global/signal`, and each message on `{prefix}/{circuit}/{name}`,
// not retained, with the name as the loaded definitions write it: the generated ones ebusd downloads
// by default since 24.1 (eBUS/ebus.github.io @f1e4a1d en/vaillant/15.700.csv: Z1DayTemp,
// Z1Timer_Monday, HwcTimer_Monday, one field named `value`, timers six TTM fields from/to) or the
// archived CSV files (john30/ebusd-configuration @cdc11e1 archived/en/vaillant/15.700.csv:
// z1DayTemp, z1Timer.Monday, hwcTimer.Monday, fields named after their template: tempv, opmode,
// sfmode; timers slot1-3 = from;to three times). The message names and field layouts below are
// written by hand from those two files (GPL-3.0, not copied).
//
// Output modes: plain (the default: the value, fields joined by `;`), `--mqttjson`
// (`{"value": {"value": 21.5}}`; fields whose name repeats are keyed by index with their name:
// `{"0": {"name": "from", "value": "06:00"}, …}`) and `--mqttjson=short` (`{"value": 21.5}`).
// `…/get` and `…/set` find a message by name regardless of case (as ebusd's message map does); a get
// whose data is `?N` also puts the message on the poll list at priority N. A write publishes the
// message with the written value as TTM decodes it: 24:00 is TTM's replacement value 0x90, so it
// reads back as `-:-`. A write ebusd or the controller refuses is only logged: nothing is published,
// which is what the `rejecting` fault does. The sim publishes only what was read (polled or got).
import { MqttDeviceSim } from './mqtt-device-sim.ts';

const OPMODES = ['off', 'auto', 'day', 'night'];
const SFMODES = ['auto', 'ventilation', 'party', 'veto', 'onedayaway', 'onedayathome', 'load'];
/** TTM: hh:m0 from 00:00 to 24:00, or -:- for an unused slot. */
const TTM = /^(?:(?:[01]\d|2[0-3]):[0-5]0|24:00|-:-)$/;
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

type Kind = 'temp' | 'opmode' | 'sfmode' | 'timer';
export type EbusdNaming = 'generated' | 'archived';
export type EbusdOutput = 'plain' | 'json' | 'json-short';

interface MessageDef {
  /** Names in the generated and the archived definitions. */
  names: Record<EbusdNaming, string>;
  kind: Kind;
  writable: boolean;
}

const value = (generated: string, kind: Kind, writable: boolean): MessageDef => ({
  names: { generated, archived: generated.replace(/^Z(\d)/, 'z$1') }, kind, writable,
});

/** The VRC700's messages the hub uses, in both namings (see the header). */
const MESSAGES: readonly MessageDef[] = [
  value('Z1RoomTemp', 'temp', false),
  value('Z1DayTemp', 'temp', true),
  value('Z1NightTemp', 'temp', true),
  value('Z1ActualRoomTempDesired', 'temp', false),
  value('Z1OpMode', 'opmode', true),
  value('Z1SFMode', 'sfmode', true),
  value('HwcStorageTemp', 'temp', false),
  value('HwcTempDesired', 'temp', true),
  value('HwcOpMode', 'opmode', true),
  value('HwcSFMode', 'sfmode', true),
  value('DisplayedOutsideTemp', 'temp', false),
  ...DAYS.map((day) => ({ names: { generated: `Z1Timer_${day}`, archived: `z1Timer.${day}` }, kind: 'timer' as const, writable: true })),
  ...DAYS.map((day) => ({ names: { generated: `HwcTimer_${day}`, archived: `hwcTimer.${day}` }, kind: 'timer' as const, writable: true })),
];

/** Field names as each naming's definitions give them (archived: the template's field name). */
const ARCHIVED_FIELD: Record<Exclude<Kind, 'timer'>, string> = { temp: 'tempv', opmode: 'opmode', sfmode: 'sfmode' };

export interface EbusdSimOptions {
  prefix?: string;
  circuit?: string;
  names?: EbusdNaming;
  output?: EbusdOutput;
  /** Messages ebusd has read already (its own poll configuration, or scan): published on connect. */
  preread?: boolean;
}

export class EbusdVaillantSim extends MqttDeviceSim {
  readonly prefix: string;
  readonly circuit: string;
  readonly naming: EbusdNaming;
  readonly output: EbusdOutput;
  /** Canonical (generated) name → the value as ebusd prints it in plain mode. */
  readonly messages = new Map<string, string>([
    ['Z1RoomTemp', '20.5'],
    ['Z1DayTemp', '21'],
    ['Z1NightTemp', '17'],
    ['Z1ActualRoomTempDesired', '21'],
    ['Z1OpMode', 'auto'],
    ['Z1SFMode', 'auto'],
    ['HwcStorageTemp', '46.5'],
    ['HwcTempDesired', '50'],
    ['HwcOpMode', 'auto'],
    ['HwcSFMode', 'auto'],
    ['DisplayedOutsideTemp', '4.5'],
    ...DAYS.map((day) => [`Z1Timer_${day}`, '06:00;22:00;-:-;-:-;-:-;-:-'] as [string, string]),
    ...DAYS.map((day) => [`HwcTimer_${day}`, '05:30;07:00;17:00;21:00;-:-;-:-'] as [string, string]),
  ]);
  /** Poll priorities set through `…/get` with `?N`, by canonical name. */
  readonly pollPriorities = new Map<string, number>();
  /** Messages read at least once (what ebusd publishes on a reconnect). */
  private readonly read = new Set<string>();

  constructor(url: string, options: EbusdSimOptions = {}) {
    const prefix = options.prefix ?? 'ebusd';
    super({ url, will: { topic: `${prefix}/global/running`, payload: 'false', retain: true, qos: 1 } });
    this.prefix = prefix;
    this.circuit = options.circuit ?? '700';
    this.naming = options.names ?? 'generated';
    this.output = options.output ?? 'plain';
    if (options.preread !== false) for (const name of this.messages.keys()) this.read.add(name);
  }

  /** The topic of a message by its canonical name, in this ebusd's naming. */
  topicOf(canonical: string): string {
    return `${this.prefix}/${this.circuit}/${definitionOf(canonical).names[this.naming]}`;
  }

  protected commandTopics(): string[] {
    return [`${this.prefix}/${this.circuit}/+/get`, `${this.prefix}/${this.circuit}/+/set`];
  }

  protected async publishAll(): Promise<void> {
    await this.publish(`${this.prefix}/global/running`, 'true');
    await this.publish(`${this.prefix}/global/signal`, 'true');
    for (const name of this.read) await this.publishMessage(name);
  }

  private async publishMessage(canonical: string): Promise<void> {
    const text = this.messages.get(canonical);
    if (text === undefined) return;
    this.read.add(canonical);
    await this.publish(this.topicOf(canonical), this.payloadOf(definitionOf(canonical), text), false);
  }

  /** A message's value in this ebusd's output mode (data.cpp SingleDataField::read). */
  payloadOf(def: MessageDef, text: string): string {
    if (this.output === 'plain') return text;
    const short = this.output === 'json-short';
    const json = (v: string) => (def.kind === 'temp' && v !== '-' ? v : JSON.stringify(v));
    if (def.kind === 'timer') {
      // from/to repeat: each field keyed by its index, with its name.
      const parts = text.split(';').map((v, i) => `"${i}":${short ? json(v) : ` {"name": "${i % 2 === 0 ? 'from' : 'to'}", "value": ${json(v)}}`}`);
      return `{${parts.map((p) => `\n     ${p}`).join(',')}}`;
    }
    const field = this.naming === 'generated' ? 'value' : ARCHIVED_FIELD[def.kind];
    return short ? `{"${field}":${json(text)}}` : `{\n     "${field}": {"value": ${json(text)}}}`;
  }

  /** A value changes on the bus (e.g. the room warms up) and ebusd publishes it. */
  async update(canonical: string, text: string): Promise<void> {
    this.messages.set(canonical, text);
    await this.publishMessage(canonical);
  }

  protected async onCommand(topic: string, payload: string): Promise<void> {
    const match = topic.slice(`${this.prefix}/${this.circuit}/`.length).match(/^(.+)\/(get|set)$/);
    if (!match) return;
    const [, name, action] = match as unknown as [string, string, 'get' | 'set'];
    // ebusd finds the message regardless of case; a name of the other naming is "not found" (logged).
    const def = MESSAGES.find((m) => m.names[this.naming].toLowerCase() === name.toLowerCase());
    if (!def) return;
    const canonical = def.names.generated;
    if (action === 'get') {
      const priority = /^\?([1-9])$/.exec(payload.trim());
      if (priority) this.pollPriorities.set(canonical, Number(priority[1]));
      return this.answer(() => this.publishMessage(canonical));
    }
    const written = def.writable ? accepted(def.kind, payload) : undefined;
    // Not writable, not understood, or refused by the controller: logged by ebusd, nothing published.
    if (written === undefined || this.faults.rejecting) return;
    await this.answer(async () => {
      this.messages.set(canonical, written);
      await this.publishMessage(canonical);
    });
  }
}

function definitionOf(canonical: string): MessageDef {
  const def = MESSAGES.find((m) => m.names.generated === canonical);
  if (!def) throw new Error(`the simulated VRC700 has no message ${canonical}`);
  return def;
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
      // Written and read back through TTM: 24:00 (0x90) is the replacement value, printed -:-.
      return fields.length === 6 && fields.every((f) => TTM.test(f)) ? fields.map((f) => (f === '24:00' ? '-:-' : f)).join(';') : undefined;
    }
  }
}
