// What every driver family's registry does alike (Modbus, MQTT, HTTP): one definition per binding
// `type`, checked when it is registered, refused loudly when unknown or registered twice, and its
// makers entered in the vendor catalog. Each family adds how a binding becomes its definition.
import type { VendorCatalog } from '../../domain/vendors.ts';
import type { VendorDomain } from '../../domain/vocabulary.ts';

export class UnknownDriverError extends Error {
  constructor(family: string, type: string, known: string[]) {
    super(`unknown ${family}driver type "${type}" (known: ${known.join(', ')})`);
    this.name = 'UnknownDriverError';
  }
}

export interface RegisteredDefinition {
  type: string;
  vendors: ReadonlyArray<{ domain: VendorDomain; code: string }>;
}

export class DefinitionRegistry<D extends RegisteredDefinition> {
  private readonly definitions = new Map<string, D>();

  /** `family` names the registry in its errors ("MQTT " for "unknown MQTT driver type"); `check` throws on a malformed definition. */
  constructor(private readonly family: string, private readonly check: (definition: D) => void, definitions: readonly D[] = []) {
    for (const definition of definitions) this.register(definition);
  }

  register(definition: D): void {
    if (this.definitions.has(definition.type)) throw new Error(`${this.family}driver type "${definition.type}" is registered twice`);
    this.check(definition);
    this.definitions.set(definition.type, definition);
  }

  has(type: string): boolean {
    return this.definitions.has(type);
  }

  get(type: string): D {
    const definition = this.definitions.get(type);
    if (!definition) throw new UnknownDriverError(this.family, type, [...this.definitions.keys()]);
    return definition;
  }

  all(): D[] {
    return [...this.definitions.values()];
  }

  /**
   * The definitions' makers become available vendors, except cars: a car maker is available where a
   * partner's app can connect it (POST /connections/vehicles), which is the cloud family's connect
   * page; a car read through a bridge (TeslaMate, CarConnectivity) is added by the installer.
   */
  registerVendors(catalog: VendorCatalog): void {
    for (const definition of this.definitions.values()) {
      for (const { domain, code } of definition.vendors) if (domain !== 'vehicles') catalog.registerVendor(domain, code);
    }
  }
}
