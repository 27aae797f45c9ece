// Pairing over OCPP (EASEE, ZAPTEC): the page gives the user what to enter in the maker's portal, the
// hub's OCPP address as the charger reaches it on the home network, a charge point id of their
// choosing and a freshly generated password, and the hub waits for the charger's BootNotification.
// The charger usually connects while the user is still on the page: a charge point id the hub does
// not know yet is let in with the page's password (see runtime/ocpp/ocpp-pairing.ts).
import { CHARGE_POINT_ID_PATTERN } from '../../domain/ocpp-binding.ts';
import { generatePassword } from '../../domain/ocpp-password.ts';
import { gatewayHost } from '../../domain/device-address.ts';
import type { Store } from '../../store/store.ts';
import type { OcppRuntime } from './ocpp-runtime.ts';
import { PairingProbeError, type ChargerProber, type PairingForm, type ProbedCharger } from '../devices/pairing-prober.ts';

/** The makers paired over OCPP, in the order of the vendor catalog. */
export const OCPP_PAIRABLE_VENDORS = ['EASEE', 'ZAPTEC'] as const;

const FIELDS: PairingForm['fields'] = [
  // CHARGE_POINT_ID_PATTERN, as an HTML pattern (its v flag wants the hyphen escaped).
  { name: 'chargePointId', required: true, pattern: '[A-Za-z0-9._~\\-]{1,48}', maxLength: 48 },
  // PASSWORD_PATTERN: 16 to 40 printable ASCII characters.
  { name: 'password', required: true, pattern: '[!-~]{16,40}', maxLength: 40 },
];

export class OcppChargerProber implements ChargerProber {
  /** `ocppUrl()`: the endpoint as chargers on the home network reach it, e.g. ws://192.168.1.20:8080/ocpp. */
  constructor(private readonly runtime: OcppRuntime, private readonly store: Store, private readonly ocppUrl: () => string) {}

  forms(): ReadonlyMap<string, PairingForm> {
    const form: PairingForm = {
      fields: FIELDS,
      hints: { ocppUrl: this.ocppUrl() },
      initialValues: () => {
        const password = generatePassword();
        this.runtime.expectPairing(password);
        return { password };
      },
    };
    return new Map(OCPP_PAIRABLE_VENDORS.map((vendor) => [vendor, form]));
  }

  async probe(vendor: string, fields: Record<string, string>, signal: AbortSignal): Promise<ProbedCharger> {
    if (!(OCPP_PAIRABLE_VENDORS as readonly string[]).includes(vendor)) throw new PairingProbeError('NOT_A_CHARGER', `${vendor} is not paired over OCPP`);
    const chargePointId = fields['chargePointId'] ?? '';
    const password = fields['password'] ?? '';
    if (!CHARGE_POINT_ID_PATTERN.test(chargePointId)) throw new PairingProbeError('NOT_A_CHARGER', 'not a charge point id');
    // A charge point id is one charger's: another household cannot take it over by pairing.
    if (this.store.ocpp.credential(chargePointId)) throw new PairingProbeError('REJECTED', 'the charge point id belongs to a charger of this hub');
    let session;
    try {
      session = await this.runtime.awaitPairing(chargePointId, password, signal);
    } catch {
      throw new PairingProbeError('TIMEOUT', 'the charger did not connect with this id and password');
    }
    const state: Record<string, unknown> = { ...session.values() };
    return {
      driver: { type: 'ocpp', chargePointId, password },
      model: session.model ?? null,
      name: null,
      state: Object.keys(state).length > 0 ? state : null,
    };
  }
}

/**
 * The hub's OCPP endpoint as a charger on the home network reaches it (decisions §4, "Addresses
 * shown to devices"): at the gateway's address (domain/device-address.ts), with the public URL's
 * own port or else the listening one. Undefined when the hub listens on loopback only: no charger
 * can reach it.
 */
export function ocppAddressForDevices(publicUrl: string, listenHost: string, port: number, tls: boolean): string | undefined {
  const scheme = tls ? 'wss' : 'ws';
  const gateway = gatewayHost(publicUrl, listenHost);
  if (!gateway) return undefined;
  return gateway.fromPublicUrl ? `${scheme}://${new URL(publicUrl).host}/ocpp` : `${scheme}://${gateway.host}:${port}/ocpp`;
}
