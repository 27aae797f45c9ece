// The shape of an HTTP(S) driver definition: a device family that answers on the home network over
// HTTP, declared as data in drivers/http/*.ts. Endpoints say what to ask and how the answer is
// written (JSON, or `key=value,key=value` as Daikin's adapters answer); each kind maps API fields
// onto values of those answers with the MQTT family's value rules (paths, units, enum maps) and
// the Modbus family's field rules (sign, clamp, first-that-yields). Authentication, rate limits
// and commands are data too; the engine (http-runtime.ts, http-reader.ts) needs nothing else.
import type { CommandType, DeviceKind, VendorDomain } from '../../domain/vocabulary.ts';
import type { CommandValue, SettingSpec, ValueRule } from '../families/definition-parts.ts';

export interface HttpEndpoint {
  method?: 'GET' | 'POST';
  /** Path and query, a template over the binding's settings. */
  path: string;
  format: 'json' | 'keyvalue';
  /** A JSON body sent with the request (a POST that asks for several values at once). */
  body?: string;
  /** Not every device has it (a gateway without batteries): a 404 leaves its fields absent. */
  optional?: boolean;
}

/** A value of an endpoint's answer, with the field rule's sign/clamp options on top; `when` reads
 * it only while another value of that answer is one of those listed (a setpoint kept per mode). */
export type HttpValueRule = ValueRule & {
  from: string; invert?: boolean; min?: number; max?: number;
  when?: { path: string; equals: readonly string[] };
};

export type HttpFieldRule =
  | HttpValueRule
  /** An enum member chosen by the sign of a field already mapped (chargingState from chargeRate). */
  | { sign: string; positive: string; negative: string; zero: string; deadband?: number }
  | { constant: string | number };

export interface HttpKindMapping {
  fields: Record<string, HttpFieldRule | readonly HttpFieldRule[]>;
  /** staticData read when the device is first reached (model, serial, capacity…). */
  staticData?: Record<string, HttpFieldRule | readonly HttpFieldRule[]>;
}

export type HttpAuth =
  | { scheme: 'none' }
  /** A long-lived token in a setting, sent as `Authorization: Bearer …` (Enphase's owner token). */
  | { scheme: 'bearer'; setting: string }
  /**
   * A login call whose answer sets session cookies (Powerwall's customer login); the cookies go with
   * every request and the login is made again, once, when the device answers 401 or 403.
   */
  | { scheme: 'login'; path: string; body: string; cookies: readonly string[] }
  /** A fixed header from a setting (Daikin BRP072C's `X-Daikin-uuid` registered with its key). */
  | { scheme: 'header'; header: string; setting: string };

export interface HttpCommand {
  value: CommandValue;
  /** Read first: its raw values fill `{name}` in the request (a Daikin set needs every setting). */
  readFirst?: string;
  method?: 'GET' | 'POST';
  /** Path template; `{value}` is filled first, then the settings and the values read first, so that
   * `{dt{value}}` names the setpoint the unit keeps for the mode being set. */
  path: string;
  /** Query parameters, each a template as above. */
  query?: Record<string, string>;
  /** Per value of the command, query parameters that replace the ones above (OFF powers off). */
  queryByValue?: Record<string, Record<string, string>>;
  /** A JSON body template (filled as the path), and per value of the command one that replaces it. */
  body?: string;
  bodyByValue?: Record<string, string>;
  /** Values of the answer read first, by name, for the templates (which setpoint the mode uses). */
  values?: Record<string, ValueRule>;
  /** How `{value}` is written: `hex-byte` as one byte of hex (a number, rounded). */
  encode?: 'hex-byte';
  /** The answer that means success: a JSON/keyvalue path and its accepted values. */
  success?: { path: string; equals: readonly string[] };
  /** Confirmation: after the write the state is read again and this field must show the target. */
  confirm: {
    field: string;
    /** The field's value per value sent, when they differ (mode code "3" shows as COOL). */
    equals?: Record<string, string | number>;
    /** The value sent was scaled for the device (°C × 2): the field shows it divided by this. */
    divide?: number;
  };
}

export interface HttpDriverDefinition {
  protocol: 'http';
  /** The binding's `type`. */
  type: string;
  title: string;
  vendors: ReadonlyArray<{ domain: VendorDomain; code: string }>;
  /** The firmware and community documentation followed, for the README and the logs. */
  source: string;
  /** http (Daikin BRP069) or https with a pinned certificate; the binding may say otherwise. */
  scheme: 'http' | 'https';
  defaults: {
    pollIntervalMs: number;
    timeoutMs: number;
    /** The least time between two requests to the device (its own rate limits). */
    minGapMs?: number;
  };
  /** `secret`: never shown, exported or logged; `scheme`: the setting applies only over that scheme
   * (a Daikin BRP072C's uuid over HTTPS; a BRP069 over HTTP takes none). */
  settings: Record<string, SettingSpec & { secret?: boolean; scheme?: 'http' | 'https' }>;
  auth: HttpAuth;
  endpoints: Record<string, HttpEndpoint>;
  kinds: Partial<Record<DeviceKind, HttpKindMapping>>;
  commands?: Partial<Record<CommandType, HttpCommand>>;
  /** How `hub scan` recognises the device: an endpoint read without authentication, and the
   * values of its answer that name the device (a pattern that must match, and what to show). */
  discovery?: {
    path: string;
    /** POST with this JSON body (a BRP084 answers only its /dsiot/multireq); GET without. */
    body?: string;
    /** The answer must match this regular expression. */
    matches: string;
    /** Regular expressions whose first group gives the model, serial and firmware. */
    model?: string;
    serial?: string;
    firmware?: string;
    kinds: readonly DeviceKind[];
  };
}

/** Identity helper that type-checks a definition where it is written. */
export function defineHttpDriver<const T extends HttpDriverDefinition>(definition: T): T {
  return definition;
}
