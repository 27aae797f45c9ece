// What the pairing page needs from the drivers: which charger vendors can be paired, the fields the
// user fills in for each, and a probe that reaches the charger those fields describe. The pairing
// page knows nothing of MQTT or Modbus; a prober per transport implements this.
import type { DriverBinding } from '../../domain/device.ts';

export interface PairingField {
  /** The form field's name; its label and help text live in the translations under the vendor. */
  name: string;
  required: boolean;
  /** A JavaScript regular expression the whole (trimmed) value must match, as in HTML `pattern`. */
  pattern?: string;
  maxLength: number;
  /** A secret the user types (an application's client secret): not shown on screen, never filled in again. */
  masked?: boolean;
}

export interface PairingForm {
  fields: ReadonlyArray<PairingField>;
  /** Values the vendor's instructions show the user, e.g. `{ broker: 'mqtt://hub.local:1883' }`. */
  hints?: Readonly<Record<string, string>>;
  /** Values a fresh form starts with (an OCPP charger's generated password); called each time the form is shown. */
  initialValues?(): Record<string, string>;
  /** Every field optional, but one of them must be given (a device reached one way or another). */
  anyOf?: boolean;
}

export interface ProbedCharger {
  /** How the hub reaches this charger from now on; stored on the device. */
  driver: DriverBinding;
  model: string | null;
  name: string | null;
  /** The charger's chargeState as first read, in API units; null when not read yet. */
  state: Record<string, unknown> | null;
}

export interface ChargerProber {
  /** The vendors this hub can pair, with the form fields each needs. */
  forms(): ReadonlyMap<string, PairingForm>;
  /**
   * Reaches the charger described by the user's fields; throws PairingProbeError(code, ...) when it cannot.
   * `fields` are checked against the vendor's form and trimmed; an optional field left empty is absent
   * (the prober applies its default). Stop when `signal` aborts (the page's time limit).
   */
  probe(vendor: string, fields: Record<string, string>, signal: AbortSignal): Promise<ProbedCharger>;
}

/**
 * Why a probe failed, as the user can act on it; each code has a translated message on the page.
 * UNREACHABLE: nothing answered (charger off, MQTT API not enabled, wrong broker).
 * NOT_A_CHARGER: something answered, but not a charger of this vendor (wrong serial, wrong prefix).
 * TIMEOUT: the probe ran out of time. REJECTED: the charger refused (e.g. a wrong password).
 * OFFLINE: the charger's bridge reports it offline. HUB_LINK: the hub itself could not listen (its
 * broker is down or refused the subscription), so nothing is known about the charger.
 */
export const PROBE_ERROR_CODES = ['UNREACHABLE', 'NOT_A_CHARGER', 'TIMEOUT', 'REJECTED', 'OFFLINE', 'HUB_LINK'] as const;
export type ProbeErrorCode = (typeof PROBE_ERROR_CODES)[number];

export class PairingProbeError extends Error {
  constructor(readonly code: ProbeErrorCode, message?: string) {
    super(message ?? code);
    this.name = 'PairingProbeError';
  }
}

/**
 * The go-e form: the charger's serial number and the MQTT topic prefix set in the go-e app. Kept
 * here, beside the interface, because the page's translations are written for these field names;
 * the GO_E prober returns it from forms().
 */
export const GO_E_PAIRING_FORM: PairingForm = {
  fields: [
    { name: 'serial', required: true, pattern: '[0-9]{6,12}', maxLength: 12 },
    { name: 'topicPrefix', required: false, pattern: '[A-Za-z0-9_\\-]+(/[A-Za-z0-9_\\-]+)*', maxLength: 64 },
  ],
};

/** Several probers as one: the vendors of all, each probe by the prober that pairs its vendor. */
export function combinedProber(probers: readonly ChargerProber[]): ChargerProber {
  const owner = (vendor: string) => probers.find((p) => p.forms().has(vendor));
  return {
    forms: () => new Map(probers.flatMap((p) => [...p.forms()])),
    probe: (vendor, fields, signal) => {
      const prober = owner(vendor);
      if (!prober) return Promise.reject(new PairingProbeError('NOT_A_CHARGER', `${vendor} cannot be paired on this hub`));
      return prober.probe(vendor, fields, signal);
    },
  };
}
