// Connecting devices that answer over HTTP(S) on the home network: a Daikin adapter (HVAC), an
// Enphase gateway (the owner's token) and a Powerwall gateway (the customer login). The device is
// recognised by its own discovery answer, as `hub scan` does (http-discovery.ts); over HTTPS the
// certificate it presents is pinned in the binding (trust on first use, as `hub devices add` does);
// then one read with the credentials given proves them, so a wrong token is said on the page.
import type { Clock } from '../../domain/time.ts';
import type { DriverBinding } from '../../domain/device.ts';
import { BATTERY_VENDORS, type DeviceKind } from '../../domain/vocabulary.ts';
import { HOST_PATTERN, type DeviceConnectDomain, type DeviceProber, type ProbeOutcome } from '../devices/device-prober.ts';
import { PairingProbeError, type PairingForm } from '../devices/pairing-prober.ts';
import { discoverHttp, type DiscoveredHttpDevice } from './http-discovery.ts';
import { AuthRefusedError, HttpReader, HttpStatusError } from './http-reader.ts';
import type { HttpDriverRegistry } from './http-registry.ts';

const HOST = { name: 'host', required: true, pattern: HOST_PATTERN, maxLength: 253 } as const;
const PORT = { name: 'port', required: false, pattern: '[0-9]{1,5}', maxLength: 5 } as const;

interface Way {
  domain: DeviceConnectDomain;
  /** The definitions that may answer, in the order they are asked. */
  types: readonly string[];
  form: PairingForm;
}

const WAYS: Record<string, Way> = {
  // A BRP072C answers only with the uuid registered with its key (docs/drivers-http.md), sent with the discovery too.
  DAIKIN: {
    domain: 'hvac', types: ['daikin-brp084', 'daikin-brp069'],
    form: { fields: [HOST, PORT, { name: 'uuid', required: false, pattern: '[0-9A-Fa-f\\-]{32,36}', maxLength: 36, masked: true }] },
  },
  ENPHASE: {
    domain: 'homePower', types: ['enphase-envoy'],
    form: { fields: [HOST, PORT, { name: 'token', required: true, pattern: '[A-Za-z0-9_\\-]+\\.[A-Za-z0-9_\\-]+\\.[A-Za-z0-9_\\-]*', maxLength: 4096, masked: true }] },
  },
  TESLA: {
    domain: 'homePower', types: ['tesla-powerwall'],
    form: {
      fields: [HOST, PORT, { name: 'email', required: true, pattern: '[^\\s@]+@[^\\s@]+', maxLength: 254 }, { name: 'password', required: true, pattern: '\\S{1,128}', maxLength: 128, masked: true }],
    },
  },
};

/** The kind a gateway is connected as: its main one (a Powerwall is a battery, an Envoy a PV system). */
const KIND_PREFERENCE: readonly DeviceKind[] = ['hvac', 'battery', 'pvInverter', 'meter'];

export class HttpDeviceProber implements DeviceProber {
  constructor(private readonly registry: HttpDriverRegistry, private readonly clock: Clock, private readonly timeoutMs = 3000) {}

  forms(domain: DeviceConnectDomain): ReadonlyMap<string, PairingForm> {
    return new Map(Object.entries(WAYS).filter(([, way]) => way.domain === domain && way.types.some((t) => this.registry.has(t))).map(([vendor, way]) => [vendor, way.form]));
  }

  async probe(domain: DeviceConnectDomain, vendor: string, fields: Record<string, string>, signal: AbortSignal): Promise<ProbeOutcome> {
    const way = WAYS[vendor];
    if (!way || way.domain !== domain) throw new PairingProbeError('NOT_A_CHARGER', `${vendor} is not reached over HTTP`);
    const host = fields['host'];
    if (!host) throw new PairingProbeError('NOT_A_CHARGER', 'no host given');
    const port = fields['port'] !== undefined ? Number(fields['port']) : undefined;
    if (port !== undefined && !(port >= 1 && port <= 65535)) throw new PairingProbeError('UNREACHABLE', 'no such port');
    const found = await discoverHttp(host, this.registry, { timeoutMs: this.timeoutMs, port, types: way.types.filter((t) => this.registry.has(t)), settings: fields });
    if (signal.aborted) throw new PairingProbeError('TIMEOUT');
    const device = found[0];
    if (!device) throw new PairingProbeError('UNREACHABLE', `no ${vendor} device answered at the host`);
    const { definition } = device;
    const maker = definition.vendors[0]!.code;
    // The API's battery has vendors of its own: an Envoy's IQ Batteries are not one.
    const kind = KIND_PREFERENCE.find((k) => definition.kinds[k] && device.kinds.includes(k) && (k !== 'battery' || (BATTERY_VENDORS as readonly string[]).includes(maker)));
    if (!kind) throw new PairingProbeError('NOT_A_CHARGER', 'the device offers no kind this page connects');
    const binding = discoveredBinding(device, host, fields);
    let state: Record<string, unknown>;
    let staticRead: Record<string, unknown> = {};
    try {
      const reader = new HttpReader(definition, binding, this.clock);
      // A first read with the credentials given: a wrong token or password is found now, not later.
      state = await reader.readState(kind, { timeoutMs: 10_000, signal });
      staticRead = await reader.readStatic(kind, { timeoutMs: 10_000, signal }).catch(() => ({}));
    } catch (err) {
      if (signal.aborted) throw new PairingProbeError('TIMEOUT');
      const refused = err instanceof AuthRefusedError || (err instanceof HttpStatusError && (err.status === 401 || err.status === 403));
      throw new PairingProbeError(refused ? 'REJECTED' : 'UNREACHABLE', (err as Error).message);
    }
    const model = discoveredModel(device);
    return {
      device: {
        kind, driver: binding, model, name: null, hvacType: kind === 'hvac' ? 'AC' : null,
        state: Object.keys(state).length > 0 ? state : null, staticData: staticRead,
      },
    };
  }
}

/**
 * The binding of a device found at `host` (this page's and `hub devices add`'s): the port and scheme
 * it answered on, the definition's settings given, and over HTTPS the certificate it presented, pinned.
 */
export function discoveredBinding(device: DiscoveredHttpDevice, host: string, given: Readonly<Record<string, string | undefined>>): DriverBinding {
  const { definition } = device;
  const binding: DriverBinding = { type: definition.type, host, port: device.port };
  if (device.scheme !== definition.scheme) binding['scheme'] = device.scheme;
  for (const name of Object.keys(definition.settings)) if (given[name] !== undefined) binding[name] = given[name];
  if (device.certificate) binding['tls'] = device.certificate;
  return binding;
}

/** The model a found device is stored with: the definition's product and the model it told. */
export function discoveredModel(device: DiscoveredHttpDevice): string {
  const { definition } = device;
  return (device.model ? `${definition.title.split(' (')[0]} ${device.model}` : definition.title).slice(0, 200);
}
