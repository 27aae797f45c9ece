// What the connect page of an HVAC, home-power or tariff session needs from the drivers: the vendors
// of each domain this hub can reach locally, the fields the user fills in for each, and a probe that
// finds and reads the device those fields describe. The charger page's ChargerProber, for the other
// kinds: the page knows nothing of Modbus, HTTP or MQTT; each family that reaches a domain's makers
// gives a prober (src/driver-families.ts), and several are one through combinedDeviceProber.
import type { DriverBinding } from '../../domain/device.ts';
import type { DeviceKind, HvacType } from '../../domain/vocabulary.ts';
import { PairingProbeError, type PairingForm } from './pairing-prober.ts';

/** The domains of available-vendors whose devices are connected through a DeviceProber. */
export const DEVICE_CONNECT_DOMAINS = ['hvac', 'homePower', 'tariffs'] as const;
export type DeviceConnectDomain = (typeof DEVICE_CONNECT_DOMAINS)[number];

/** A form field's pattern for a host name or an IP address (IPv6 in brackets), as a URL's host is written. */
export const HOST_PATTERN = '[A-Za-z0-9]([A-Za-z0-9.\\-]{0,251}[A-Za-z0-9])?|\\[[0-9A-Fa-f:.]{2,45}\\]';

export interface ProbedDevice {
  kind: DeviceKind;
  /** How the hub reaches this device from now on; stored on the device, secrets included (and nowhere else). */
  driver: DriverBinding;
  model: string | null;
  name: string | null;
  hvacType: HvacType | null;
  /** The kind's state as first read, in API units; null when nothing was read yet. */
  state: Record<string, unknown> | null;
  /** staticData the device told beside vendor, name and model (e.g. a tariff's currency). */
  staticData: Record<string, unknown>;
}

/** One device found at the address the user gave, when there are several to choose from (a Modbus scan). */
export interface DeviceChoice {
  /** The value of the form's `device` field that picks it. */
  value: string;
  label: string;
  /** The kind it would be added as, when the choice is between kinds (the page names it). */
  kind?: DeviceKind;
}

/** What a probe found: the device, or the devices to choose from (the page asks, then probes again). */
export type ProbeOutcome = { device: ProbedDevice } | { choices: DeviceChoice[] };

export interface DeviceProber {
  /** The vendors of the domain this prober reaches, with the form fields each needs. */
  forms(domain: DeviceConnectDomain): ReadonlyMap<string, PairingForm>;
  /**
   * Finds the device the fields describe (checked against the vendor's form, trimmed; an optional
   * field left empty is absent); throws PairingProbeError when it cannot. Stops when `signal` aborts.
   */
  probe(domain: DeviceConnectDomain, vendor: string, fields: Record<string, string>, signal: AbortSignal): Promise<ProbeOutcome>;
}

/**
 * Several probers as one. A vendor reached by several (a Daikin unit through its own adapter over
 * HTTP or through ESPAltherma over MQTT) gets one form with every prober's fields, each optional: the
 * probe goes to the prober whose fields the user filled in.
 */
export function combinedDeviceProber(probers: readonly DeviceProber[]): DeviceProber {
  const formsOf = (domain: DeviceConnectDomain) => probers.map((prober) => ({ prober, forms: prober.forms(domain) }));
  return {
    forms(domain) {
      const merged = new Map<string, PairingForm>();
      for (const { forms } of formsOf(domain)) {
        for (const [vendor, form] of forms) {
          const before = merged.get(vendor);
          if (!before) {
            merged.set(vendor, form);
            continue;
          }
          const fields = [...before.fields, ...form.fields].map((field) => ({ ...field, required: false }));
          merged.set(vendor, { fields, hints: { ...before.hints, ...form.hints }, anyOf: true });
        }
      }
      return merged;
    },
    async probe(domain, vendor, fields, signal) {
      const owners = formsOf(domain).filter(({ forms }) => forms.has(vendor));
      if (owners.length === 0) throw new PairingProbeError('NOT_A_CHARGER', `${vendor} cannot be connected on this hub`);
      const given = (form: PairingForm) => form.fields.some((field) => fields[field.name] !== undefined && field.name !== 'device');
      const owner = owners.length === 1 ? owners[0]! : owners.find(({ forms }) => given(forms.get(vendor)!));
      if (!owner) throw new PairingProbeError('NOT_A_CHARGER', 'no way to reach the device was given');
      return owner.prober.probe(domain, vendor, fields, signal);
    },
  };
}

/** The binding a form's answers fill: each given field that is a setting of the driver. */
export function bindingOf(type: string, fields: Record<string, string>, settings: readonly string[]): DriverBinding {
  const binding: DriverBinding = { type };
  for (const name of settings) {
    const value = fields[name]?.trim();
    if (value) binding[name] = value;
  }
  return binding;
}
