// The vendor catalog: every maker the API knows, by domain, with its display name. A maker is
// *available* only when a driver that reaches its devices locally has declared it (registerVendor).
import { VENDOR_DOMAINS, type VendorDomain } from './vocabulary.ts';

export const VENDOR_NAMES: Record<string, string> = {
  FRONIUS: 'Fronius',
  SMA: 'SMA',
  HUAWEI: 'Huawei',
  TESLA: 'Tesla',
  ENPHASE: 'Enphase',
  VIESSMANN: 'Viessmann',
  DAIKIN: 'Daikin',
  VAILLANT: 'Vaillant',
  EASEE: 'Easee',
  GO_E: 'go-e',
  ZAPTEC: 'Zaptec',
  MERCEDES: 'Mercedes-Benz',
  BMW: 'BMW',
  MINI: 'MINI',
  VW: 'Volkswagen',
  AUDI: 'Audi',
  SKODA: 'Škoda',
  VOLVO: 'Volvo',
  CUPRA: 'CUPRA',
  TIBBER: 'Tibber',
  OSTROM: 'Ostrom',
  OCTOPUS_ENERGY: 'Octopus Energy',
  LUOX: 'Luox Energy',
};

export interface VendorEntry {
  id: string;
  name: string;
  logoUrl: string;
}

export class VendorCatalog {
  private readonly available = new Map<VendorDomain, Set<string>>(VENDOR_DOMAINS.map((d) => [d, new Set<string>()]));

  /** Declares that a driver reaches this maker's devices of this domain locally. */
  registerVendor(domain: VendorDomain, code: string): void {
    if (!(code in VENDOR_NAMES)) throw new Error(`unknown vendor code ${code}`);
    this.available.get(domain)!.add(code);
  }

  isAvailable(domain: VendorDomain, code: string): boolean {
    return this.available.get(domain)!.has(code);
  }

  /** The body of GET /connections/available-vendors; logos are served by the hub under `baseUrl`. */
  availableVendors(baseUrl: string): Record<VendorDomain, VendorEntry[]> {
    const out = {} as Record<VendorDomain, VendorEntry[]>;
    for (const domain of VENDOR_DOMAINS) {
      out[domain] = [...this.available.get(domain)!].sort().map((id) => ({
        id,
        name: VENDOR_NAMES[id]!,
        logoUrl: `${baseUrl}/logos/${logoFileName(id)}`,
      }));
    }
    return out;
  }
}

export function logoFileName(code: string): string {
  return `${code.toLowerCase().replace(/_/g, '-')}.svg`;
}
