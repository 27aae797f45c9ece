// Connecting HVAC units and tariffs whose bridge publishes on the household broker: a Vaillant
// through ebusd, a Viessmann through open3e, a Daikin Altherma through ESPAltherma, a tariff's price
// on a topic (evcc's site/tariffGrid or any plain number). The probe listens on the topics the
// user's answers describe (MqttRuntime.probe, as for a go-e charger) before the device is added.
import type { DriverBinding } from '../../domain/device.ts';
import type { DeviceConnectDomain, DeviceProber, ProbeOutcome } from '../devices/device-prober.ts';
import { PairingProbeError, type PairingForm } from '../devices/pairing-prober.ts';
import { ProbeFailure, type MqttRuntime } from './mqtt-runtime.ts';

/** An MQTT topic filter without wildcards, levels separated by `/` (the drivers' own pattern). */
const TOPIC = '[^/#+\\s]+(/[^/#+\\s]+)*';

interface Way {
  /** The definition that drives it. */
  type: string;
  kind: 'hvac' | 'tariff';
  hvacType: 'HEATING_CIRCUIT' | null;
  form: PairingForm;
  /** Form field name -> binding setting, where they differ. */
  settingOf?: Record<string, string>;
}

const HVAC_WAYS: Record<string, Way> = {
  VAILLANT: {
    type: 'ebusd-vaillant-zone', kind: 'hvac', hvacType: 'HEATING_CIRCUIT',
    form: {
      fields: [
        { name: 'prefix', required: false, pattern: TOPIC, maxLength: 64 },
        { name: 'circuit', required: false, pattern: '[A-Za-z0-9_.\\-]{1,16}', maxLength: 16 },
        { name: 'zone', required: false, pattern: '[1-3]', maxLength: 1 },
      ],
    },
  },
  VIESSMANN: {
    type: 'open3e-viessmann-circuit', kind: 'hvac', hvacType: 'HEATING_CIRCUIT',
    form: {
      fields: [
        { name: 'prefix', required: false, pattern: TOPIC, maxLength: 64 },
        { name: 'ecu', required: false, pattern: '[0-9A-Fa-f]{3}', maxLength: 3 },
      ],
    },
  },
  // A Daikin is reached through its own adapter over HTTP too: this field names the other way.
  DAIKIN: {
    type: 'espaltherma', kind: 'hvac', hvacType: 'HEATING_CIRCUIT', settingOf: { espalthermaPrefix: 'prefix' },
    form: { fields: [{ name: 'espalthermaPrefix', required: false, pattern: TOPIC, maxLength: 64 }] },
  },
};

const TARIFF_WAY: Way = {
  type: 'tariff-topic', kind: 'tariff', hvacType: null,
  form: {
    fields: [
      { name: 'priceTopic', required: false, pattern: TOPIC, maxLength: 128 },
      { name: 'currency', required: false, pattern: '[A-Z]{3}', maxLength: 3 },
    ],
  },
};

/** The tariff vendors: the price comes from the household's own publisher, whoever the supplier is. */
const TARIFF_VENDORS = ['TIBBER', 'OSTROM', 'OCTOPUS_ENERGY', 'LUOX'] as const;

const EVCC_PRICE = /^(.*)site\/tariffGrid$/;

export class MqttDeviceProber implements DeviceProber {
  /** `brokerForDevices`: the broker as a bridge on the home network reaches it; undefined when unknown. */
  constructor(private readonly runtime: MqttRuntime, private readonly brokerForDevices: () => string | undefined) {}

  private waysOf(domain: DeviceConnectDomain): Record<string, Way> {
    if (domain === 'hvac') return HVAC_WAYS;
    if (domain === 'tariffs') return Object.fromEntries(TARIFF_VENDORS.map((vendor) => [vendor, TARIFF_WAY]));
    return {};
  }

  forms(domain: DeviceConnectDomain): ReadonlyMap<string, PairingForm> {
    const broker = this.brokerForDevices();
    const hints: Record<string, string> = broker ? { broker } : {};
    return new Map(Object.entries(this.waysOf(domain)).map(([vendor, way]) => [vendor, { ...way.form, hints }]));
  }

  async probe(domain: DeviceConnectDomain, vendor: string, fields: Record<string, string>, signal: AbortSignal): Promise<ProbeOutcome> {
    const way = this.waysOf(domain)[vendor];
    if (!way) throw new PairingProbeError('NOT_A_CHARGER', `${vendor} is not reached over MQTT`);
    const binding: DriverBinding = { type: way.type };
    for (const field of way.form.fields) {
      const value = fields[field.name]?.trim();
      if (value) binding[way.settingOf?.[field.name] ?? field.name] = field.name === 'ecu' ? value.toUpperCase() : value;
    }
    if (way.kind === 'tariff') tariffTopics(binding);
    let heard;
    try {
      heard = await this.runtime.probe(binding, way.kind, signal);
    } catch (err) {
      if (signal.aborted) throw new PairingProbeError('TIMEOUT');
      const reason = err instanceof ProbeFailure ? err.reason : 'SILENT';
      throw new PairingProbeError(reason === 'BROKER' ? 'HUB_LINK' : reason === 'OFFLINE' ? 'OFFLINE' : 'UNREACHABLE', (err as Error).message);
    }
    const values = Object.entries(heard.values).filter(([name, value]) => !name.startsWith('_') && value !== undefined);
    // Something answered there, but not what this bridge or a price says (another bridge's topics).
    if (way.kind === 'tariff' ? typeof heard.values['pricePerKwh'] !== 'number' : values.length === 0) throw new PairingProbeError('NOT_A_CHARGER');
    const currency = heard.values['currency'];
    return {
      device: {
        kind: way.kind, driver: binding, hvacType: way.hvacType, state: null,
        model: typeof heard.staticValues['model'] === 'string' ? heard.staticValues['model'] : null,
        name: typeof heard.staticValues['name'] === 'string' ? heard.staticValues['name'] : null,
        staticData: way.kind === 'tariff' && typeof currency === 'string' ? { currency } : {},
      },
    };
  }
}

/**
 * A price topic other than evcc's comes with no currency, heartbeat or forecast topic of evcc's: those
 * are emptied, so the currency is the one given, the price alone keeps the tariff heard and no curve
 * is listened for. evcc's under another prefix (`home/evcc/site/tariffGrid`) has its companions under
 * that prefix.
 */
function tariffTopics(binding: DriverBinding): void {
  const topic = typeof binding['priceTopic'] === 'string' ? binding['priceTopic'] : undefined;
  if (topic === undefined) return;
  const evcc = EVCC_PRICE.exec(topic);
  if (evcc) {
    binding['currencyTopic'] = `${evcc[1]}site/currency`;
    binding['heartbeatTopic'] = `${evcc[1]}updated`;
    binding['forecastTopic'] = `${evcc[1]}site/forecast/grid`;
    return;
  }
  binding['currencyTopic'] = '';
  binding['heartbeatTopic'] = '';
  binding['forecastTopic'] = '';
}
