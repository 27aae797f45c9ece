// The shape of an MQTT driver definition: a device family that speaks MQTT (the device itself or a
// widely used bridge such as ebusd or TeslaMate), declared as data in drivers/mqtt/*.ts. Topics are
// templates over the binding's settings ({serial}, {prefix}…); values say where a field sits in a
// payload and how it becomes the API's unit or enum; commands say what to publish and how the
// device confirms. The engine (mqtt-runtime.ts) needs nothing else, except for the few encoders a
// device's own format calls for (schedule-encoders.ts), which are named here, not coded.
import type { CommandType, DeviceKind, VendorDomain } from '../../domain/vocabulary.ts';
import type { Unit } from '../driver-model.ts';

/** How a value is read from a message and turned into an API value. */
export interface ValueRule {
  /** Where the value sits: absent for the whole payload; `a.b[2]` in a JSON payload; `"Label (R1T)"`
   * (quoted) for a key with dots or spaces. */
  path?: string;
  /** What the value becomes; 'number' parses numeric strings, 'boolean' takes true/false, 1/0, on/off. */
  as: 'number' | 'boolean' | 'string';
  /** A factor applied to the raw number before unit conversion. */
  scale?: number;
  /** The payload's unit and the field's unit (W → kW…). */
  unit?: Unit;
  to?: Unit;
  digits?: number;
  /** Raw value (as text) → the field's value; a value not listed gives no field unless `otherwise`. */
  map?: Record<string, string | number | boolean>;
  otherwise?: string | number | boolean;
  /** Not from the message: a text from the binding's settings, kept with the message's other values
   * (e.g. `{currency}`, what a price feed is quoted in). */
  fromSettings?: Template;
}

export interface StateTopic {
  /** Topic template, e.g. `{prefix}/{serial}/car`. MQTT wildcards are not allowed. */
  topic: string;
  /** JSON payloads are parsed; plain ones are taken as text. */
  format: 'json' | 'plain';
  /** Field → rule. Fields of the kind's API state (chargeState…) are shown; others are kept as the
   * device's telemetry (HVAC, vehicle and tariff details have no state object in the API).
   * `static.model` and `static.name` name the device when it is paired. */
  fields: Record<string, ValueRule>;
}

export interface Availability {
  topic: string;
  /** The payload's value (after `path`) that means online / offline, compared as text. */
  path?: string;
  online: readonly string[];
  offline: readonly string[];
}

/** A value that goes into a published payload. `{value}` is the command's value in `unit`. */
export type Template = string;

export interface PublishStep {
  topic: Template;
  /** Text template: `{value}`, `{correlation}`, binding settings; JSON templates are written as text. */
  payload: Template;
  /** MQTT 5 response topic + correlation data on the request (generic request/response devices). */
  withResponseTopic?: Template;
  retain?: boolean;
}

export type Confirmation =
  /** The device answers on a topic: matched by MQTT 5 correlation data or a JSON path echoing ours. */
  | {
      by: 'response';
      topic: Template;
      correlation: 'property' | { path: string };
      /** Where success is read, and which values mean success (compared as text). */
      success: { path?: string; equals: readonly string[] };
      /** Where the device's own reason sits on a rejection. */
      reasonPath?: string;
    }
  /** The device shows the new value in its state: the field equals the command's target. */
  | { by: 'state'; field: string; equals?: string | number | boolean }
  /** The bridge echoes on a result topic: success values and anything else is a rejection. */
  | { by: 'result'; topic: Template; path?: string; success: readonly string[] };

/** How a command's payload becomes the value the device takes. */
export type CommandValue =
  | { from: 'none' }
  | { from: 'constant'; value: string | number | boolean }
  /** A number of the command payload (e.g. temperature, current), in the device's unit. */
  | { from: 'payload'; field: string; scale?: number; digits?: number; min?: number; max?: number }
  /** An enum of the payload mapped to the device's words. */
  | { from: 'payload-enum'; field: string; map: Record<string, string | number> }
  /** SET_SCHEDULE / SET_CHARGING_SCHEDULE: a named encoder writes the device's format. */
  | { from: 'schedule'; encoder: string };

export interface CommandSpec {
  value: CommandValue;
  /** One step for most devices; several for a schedule that spans one message per day. The
   * encoder of a schedule gives one value per step (`{value}` of step n is its n-th part); other
   * commands give every step the same `{value}` (a write, then a request to read it back). */
  publish: readonly PublishStep[];
  confirm: Confirmation;
  timeoutMs?: number;
}

export interface SettingSpec {
  required?: boolean;
  default?: string;
  /** Checked when a binding is opened; topic parts must not hold MQTT wildcards. */
  pattern?: string;
  description: string;
}

export interface MqttDriverDefinition {
  protocol: 'mqtt';
  /** The binding's `type`. */
  type: string;
  title: string;
  /** Makers whose devices this definition reaches locally; registered in the vendor catalog. */
  vendors: ReadonlyArray<{ domain: VendorDomain; code: string }>;
  /** The bridge or API the topics come from, for the README and the logs. */
  source: string;
  kinds: readonly DeviceKind[];
  /** Binding settings the topic templates use. */
  settings: Record<string, SettingSpec>;
  availability?: Availability;
  /** No message for this long means the device is offline (bridges without a last will). */
  staleAfterMs?: number;
  /** A setting, in seconds, that replaces staleAfterMs per binding (a feed whose cadence only the
   * installer knows). */
  staleAfterSetting?: string;
  /** Topics to publish to ask for fresh values (a refresh); ebusd answers `/get`, go-e publishes on its own. */
  refresh?: readonly PublishStep[];
  state: readonly StateTopic[];
  commands?: Partial<Record<CommandType, CommandSpec>>;
  /** The binding may carry its own `state`, `availability` and `commands` (the generic definition). */
  configurable?: boolean;
}

/** Identity helper that type-checks a definition where it is written. */
export function defineMqttDriver<const T extends MqttDriverDefinition>(definition: T): T {
  return definition;
}
