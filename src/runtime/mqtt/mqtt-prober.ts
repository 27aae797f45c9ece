// Pairing over MQTT: the charger makers whose MQTT definitions can be paired from the hub's own page,
// and the probe that listens on the topics the user's answers describe before the charger is added.
import type { DriverBinding } from '../../domain/device.ts';
import { GO_E_PAIRING_FORM, PairingProbeError, type ChargerProber, type PairingForm, type ProbedCharger } from '../devices/pairing-prober.ts';
import { ProbeFailure, type MqttRuntime } from './mqtt-runtime.ts';

/** Per charger vendor: the definition that drives it and the form that fills its binding. */
const PAIRABLE: Record<string, { type: string; form: PairingForm }> = {
  GO_E: { type: 'go-e', form: GO_E_PAIRING_FORM },
};

const CHARGE_STATE_FIELDS = ['chargeRate', 'chargeCurrentMax', 'isPlugged', 'activePhases', 'chargingState'];

export class MqttChargerProber implements ChargerProber {
  /** `brokerForDevices`: the broker as a charger on the home network reaches it; undefined when unknown. */
  constructor(private readonly runtime: MqttRuntime, private readonly brokerForDevices: () => string | undefined) {}

  forms(): ReadonlyMap<string, PairingForm> {
    const broker = this.brokerForDevices();
    const hints: Record<string, string> = broker ? { broker } : {};
    return new Map<string, PairingForm>(Object.entries(PAIRABLE).map(([vendor, { form }]) => [vendor, { ...form, hints }]));
  }

  async probe(vendor: string, fields: Record<string, string>, signal: AbortSignal): Promise<ProbedCharger> {
    const pairable = PAIRABLE[vendor];
    if (!pairable) throw new PairingProbeError('NOT_A_CHARGER', `${vendor} cannot be paired on this hub`);
    const binding: DriverBinding = { type: pairable.type };
    for (const field of pairable.form.fields) {
      const value = fields[field.name]?.trim();
      if (value) binding[field.name] = value;
    }
    let heard;
    try {
      heard = await this.runtime.probe(binding, 'charger', signal);
    } catch (err) {
      if (signal.aborted) throw new PairingProbeError('TIMEOUT');
      const reason = err instanceof ProbeFailure ? err.reason : 'SILENT';
      throw new PairingProbeError(reason === 'BROKER' ? 'HUB_LINK' : reason === 'OFFLINE' ? 'OFFLINE' : 'UNREACHABLE', (err as Error).message);
    }
    const state: Record<string, unknown> = {};
    for (const field of CHARGE_STATE_FIELDS) if (heard.values[field] !== undefined) state[field] = heard.values[field];
    // Something answered on those topics, but nothing a charger of this make says about charging.
    if (state['chargingState'] === undefined && state['chargeCurrentMax'] === undefined) throw new PairingProbeError('NOT_A_CHARGER');
    return {
      driver: binding,
      model: typeof heard.staticValues['model'] === 'string' ? heard.staticValues['model'] : null,
      name: typeof heard.staticValues['name'] === 'string' ? heard.staticValues['name'] : null,
      state,
    };
  }
}
