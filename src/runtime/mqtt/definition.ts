// The shape of an MQTT driver definition: a device family that speaks MQTT (the device itself or a
// widely used bridge such as ebusd or TeslaMate), declared as data in drivers/mqtt/*.ts. Topics are
// templates over the binding's settings ({serial}, {prefix}…); values say where a field sits in a
// payload and how it becomes the API's unit or enum; commands say what to publish and how the
// device confirms. The engine (mqtt-runtime.ts) needs nothing else, except for the few encoders a
// device's own format calls for (schedule-encoders.ts), which are named here, not coded.
import type { CommandType, DeviceKind, VendorDomain } from '../../domain/vocabulary.ts';
import type { CommandValue, SettingSpec, Template, ValueRule } from '../families/definition-parts.ts';

export type { CommandValue, SettingSpec, Template, ValueRule };

export interface StateTopic {
  /** Topic template, e.g. `{prefix}/{serial}/car`. MQTT wildcards are not allowed. */
  topic: string;
  /** JSON payloads are parsed; plain ones are taken as text; 'ebusd' takes ebusd's payload in any of
   * its modes (plain, or --mqttjson with or without `short`) as its fields' values joined by `;`,
   * the form ebusd prints and takes for writes. */
  format: 'json' | 'plain' | 'ebusd';
  /** A topic named by a setting the installer may leave empty: not listened to then. */
  optional?: boolean;
  /** Field → rule. Fields of the kind's API state (chargeState…) are shown; others are kept as the
   * device's telemetry (HVAC, vehicle and tariff details have no state object in the API).
   * `static.model` and `static.name` name the device when it is paired. Fields whose name starts
   * with `_` are the definition's own working values (inputs of `derived`), never stored. No fields:
   * a heartbeat, which only tells that the device is there. */
  fields: Record<string, ValueRule>;
  /** The topic is the count of a list published one value per topic under it (see SeriesSpec). */
  series?: SeriesSpec;
}

/**
 * A list a publisher spreads over topics, as evcc publishes its slices (server/mqtt.go
 * publishComplex @b29b49e): the topic itself carries the count of valid slots, slot n's parts sit at
 * `<topic>/<n>/<at>` (n from 1). Heard through `+` wildcards under the topic only; a count beyond
 * `maxSlots`, an index past it, a part not declared or a value its rule does not take are ignored,
 * so what a publisher sends never grows the list past `maxSlots`. The list kept in `field` is the
 * slots 1..count whose every part is known, in order (a slot left over from a longer list, past
 * the count, is not in it); none until the count is heard. An empty count is an empty list (evcc
 * erases a nil slice), an empty part erases that part.
 */
export interface SeriesSpec {
  field: string;
  maxSlots: number;
  /** The slot's fields: where each sits under the slot (`at`, one topic level) and its rule. */
  slot: Record<string, ValueRule & { at: string }>;
}

/** A field worked out from others: the first of `firstOf` that has a value (and whose condition holds). */
export interface DerivedField {
  firstOf: ReadonlyArray<string | { field: string; when: { field: string; equals: readonly string[] } }>;
}

/**
 * Topic variants of one bridge (an older firmware's prefix, a renamed set of messages). Each variant
 * gives values to template placeholders; `setting` names the binding setting that picks one, and
 * `auto` (its default) listens on every variant and follows the one the device is heard on.
 */
export interface Dialects {
  setting: string;
  variants: Record<string, Record<string, Template>>;
  /** The variant used to write before the device was heard. */
  preferred: string;
  /**
   * A request the device answers under its own variant's topic, sent in every variant before a
   * first write whose topic differs by variant, so that a write never goes to the other one.
   */
  probe?: PublishStep;
}

export interface Availability {
  topic: string;
  /** The payload's value (after `path`) that means online / offline, compared as text. */
  path?: string;
  online: readonly string[];
  offline: readonly string[];
  /** A topic named by a setting the installer may leave empty: not listened to then. */
  optional?: boolean;
}

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
  | {
      by: 'state'; field: string; equals?: string | number | boolean;
      /** Parts (split by `separator`) the device echoes in another form that means the same. */
      sameAs?: { separator: string; map: Record<string, string> };
    }
  /**
   * The bridge echoes on a result topic: success values (templates: `{value}` is the value sent) and
   * anything else is a rejection, unless `others` is 'ignore' (a topic the bridge also publishes on
   * its own). The reason of a rejection may follow on `reasonTopic`.
   */
  | { by: 'result'; topic: Template; path?: string; success: readonly string[]; others?: 'reject' | 'ignore'; reasonTopic?: Template };

export interface CommandSpec {
  value: CommandValue;
  /** One step for most devices; several for a schedule that spans one message per day. The
   * encoder of a schedule gives one value per step (`{value}` of step n is its n-th part); other
   * commands give every step the same `{value}` (a write, then a request to read it back). */
  publish: readonly PublishStep[];
  confirm: Confirmation;
  timeoutMs?: number;
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
  /** Several: the device is online when none says offline and at least one says online. */
  availability?: Availability | readonly Availability[];
  /** No message for this long means the device is offline (bridges without a last will, or whose
   * will is not certain: then it applies even while the availability topic says online). */
  staleAfterMs?: number;
  /** A setting, in seconds, that replaces staleAfterMs per binding (a feed whose cadence only the
   * installer knows). */
  staleAfterSetting?: string;
  /** Topics to publish to ask for fresh values (a refresh); ebusd answers `/get`, go-e publishes on its own. */
  refresh?: readonly PublishStep[];
  /** Published whenever the hub begins to listen (a device opened, each broker connection): a bridge
   * told what to report from now on (ebusd's poll priorities). */
  onListen?: readonly PublishStep[];
  dialects?: Dialects;
  /** Fields worked out from the state topics' values. */
  derived?: Record<string, DerivedField>;
  state: readonly StateTopic[];
  commands?: Partial<Record<CommandType, CommandSpec>>;
  /** The binding may carry its own `state`, `availability` and `commands` (the generic definition). */
  configurable?: boolean;
}

/** Identity helper that type-checks a definition where it is written. */
export function defineMqttDriver<const T extends MqttDriverDefinition>(definition: T): T {
  return definition;
}
