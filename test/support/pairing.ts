// A charger prober for tests: pairs GO_E with the real form, answers from a table of serial numbers
// (no transport), counts its probes and can hold one until the test releases it. Its bindings are
// the MQTT prober's: the go-e driver, with the topic prefix only when the user gave one.
import type { DeviceConnectDomain, DeviceProber } from '../../src/runtime/devices/device-prober.ts';
import { GO_E_PAIRING_FORM, PairingProbeError, type ChargerProber, type PairingForm, type ProbeErrorCode, type ProbedCharger } from '../../src/runtime/devices/pairing-prober.ts';

export const GOOD_SERIAL = '123456';

export class TestProber implements ChargerProber {
  readonly calls: { vendor: string; fields: Record<string, string> }[] = [];
  /** Serial numbers and what probing them gives; any other serial is UNREACHABLE. */
  readonly chargers = new Map<string, ProbedCharger | ProbeErrorCode | Error>([
    [GOOD_SERIAL, {
      driver: { type: 'go-e', serial: GOOD_SERIAL },
      model: 'go-e Charger Gemini flex 22',
      name: 'Garage',
      state: { chargingState: 'UNPLUGGED', chargeRate: 0 },
    }],
    ['666666', 'REJECTED'],
    ['777777', new Error('socket exploded at /usr/lib/secret.js:1')],
  ]);
  private gate: Promise<void> | undefined;
  private openGate: (() => void) | undefined;
  private started: (() => void) | undefined;

  constructor(private readonly vendorForms: ReadonlyMap<string, PairingForm> = new Map([['GO_E', { ...GO_E_PAIRING_FORM, hints: { broker: 'mqtt://hub.test:1883' } }]])) {}

  forms(): ReadonlyMap<string, PairingForm> {
    return this.vendorForms;
  }

  async probe(vendor: string, fields: Record<string, string>, signal: AbortSignal): Promise<ProbedCharger> {
    this.calls.push({ vendor, fields });
    this.started?.();
    if (this.gate) await this.gate;
    signal.throwIfAborted();
    const found = this.chargers.get(fields['serial'] ?? '');
    if (found === undefined) throw new PairingProbeError('UNREACHABLE', `no answer from ${fields['serial']}`);
    if (typeof found === 'string') throw new PairingProbeError(found);
    if (found instanceof Error) throw found;
    return { ...found, driver: { ...found.driver, ...(fields['topicPrefix'] ? { topicPrefix: fields['topicPrefix'] } : {}) } };
  }

  /** Holds every probe until the returned release() is called; `started` resolves when one begins. */
  hold(): { started: Promise<void>; release: () => void } {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
    const started = new Promise<void>((resolve) => (this.started = resolve));
    return {
      started,
      release: () => {
        this.gate = undefined;
        this.openGate?.();
      },
    };
  }
}

/**
 * A device prober for tests of the API's side: it reaches the vendors given per domain (by default
 * one of each kind the examples name), with a one-field form; a probe is never expected.
 */
export function vendorsProber(vendors: Partial<Record<DeviceConnectDomain, readonly string[]>> = { hvac: ['DAIKIN'], homePower: ['SMA'], tariffs: ['TIBBER'] }): DeviceProber {
  return {
    forms: (domain) => new Map((vendors[domain] ?? []).map((vendor) => [vendor, { fields: [{ name: 'host', required: true, maxLength: 253 }] }])),
    probe: () => Promise.reject(new PairingProbeError('UNREACHABLE', 'this test prober probes nothing')),
  };
}
