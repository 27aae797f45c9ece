// Seed data for the benchmark: 10,000 device records of every kind, spread over a few thousand
// households the way an installer's fleet would be (several vendors per kind, real model names,
// names people give their devices, mostly online, updated within the last day), written as the
// JSON array that `npm run hub -- import FILE` accepts.
//
// Why generated and not fixed: the list and filter figures depend on how many rows a query has to
// look at, so the data must have a realistic size and spread. It is generated from a fixed seed, so
// every run measures the same database, and the generator also computes what the hub should answer
// to the text filters (their totalElements), which run.ts checks before it trusts any timing.
import { writeFileSync } from 'node:fs';

/** How many devices of each kind; 10,000 in all, 1,400 of them batteries. */
export const KIND_COUNTS = {
  battery: 1400,
  pvInverter: 2000,
  meter: 1600,
  hvac: 1800,
  charger: 1200,
  vehicle: 1200,
  tariff: 800,
} as const;

type Kind = keyof typeof KIND_COUNTS;

const HOUSEHOLDS = 3000;

/** Vendors of each kind and the models each sells (as they appear on type plates and in apps). */
const CATALOG: Record<Kind, Record<string, string[]>> = {
  battery: {
    FRONIUS: ['BYD Battery-Box Premium HVS 10.2', 'BYD Battery-Box Premium HVM 13.8', 'Fronius Reserva 9.5'],
    SMA: ['Sunny Boy Storage 3.7', 'Sunny Island 4.4M', 'SMA Home Storage 9.8'],
    HUAWEI: ['LUNA2000-5-S0', 'LUNA2000-10-S0', 'LUNA2000-15-S0'],
    TESLA: ['Powerwall 2', 'Powerwall 3', 'Powerwall+'],
  },
  pvInverter: {
    FRONIUS: ['Symo GEN24 10.0 Plus', 'Primo GEN24 6.0 Plus', 'Tauro 50-3-P'],
    SMA: ['Sunny Tripower 8.0', 'Sunny Boy 5.0', 'Sunny Tripower X 15'],
    HUAWEI: ['SUN2000-10KTL-M1', 'SUN2000-6KTL-L1'],
    TESLA: ['Tesla Solar Inverter 7.6'],
    ENPHASE: ['IQ8M Microinverter', 'IQ7+ Microinverter'],
  },
  meter: {
    FRONIUS: ['Smart Meter TS 65A-3', 'Smart Meter IP'],
    SMA: ['Sunny Home Manager 2.0', 'Energy Meter 2.0'],
    HUAWEI: ['DTSU666-H', 'DDSU666-H'],
    TESLA: ['Backup Gateway 2'],
    ENPHASE: ['IQ Gateway Metered'],
  },
  hvac: {
    VIESSMANN: ['Vitocal 250-A', 'Vitocal 200-S', 'Vitodens 200-W'],
    DAIKIN: ['Altherma 3 H HT', 'Altherma 3 R', 'Perfera FTXM35R'],
    VAILLANT: ['aroTHERM plus VWL 75/6', 'ecoTEC plus VC 25CS', 'flexoTHERM exclusive'],
  },
  charger: {
    EASEE: ['Easee Home', 'Easee Charge'],
    GO_E: ['go-eCharger Gemini flex 22 kW', 'go-eCharger HOMEfix 11 kW'],
    ZAPTEC: ['Zaptec Go', 'Zaptec Pro'],
  },
  vehicle: {
    TESLA: ['Model 3 Long Range', 'Model Y Performance'],
    MERCEDES: ['EQA 250+', 'EQE 300'],
    BMW: ['i4 eDrive40', 'iX3'],
    MINI: ['Cooper SE'],
    VW: ['ID.4 Pro', 'ID.3 Pure'],
    AUDI: ['Q4 50 e-tron quattro'],
    SKODA: ['Enyaq iV 80'],
    VOLVO: ['EX30 Twin Motor'],
    CUPRA: ['Born 58 kWh'],
  },
  tariff: {
    TIBBER: ['Dynamic hourly price'],
    OSTROM: ['SimplyDynamic'],
    OCTOPUS_ENERGY: ['Octopus Go', 'Agile Octopus', 'Intelligent Octopus Go'],
    LUOX: ['Luox Dynamic'],
  },
};

/** What people call their devices (a number is sometimes added: "Garage battery 2"). */
const NAMES: Record<Kind, string[]> = {
  battery: ['Garage battery', 'Cellar battery', 'Home storage', 'Basement storage', 'Utility room battery', 'Battery', 'House battery', 'Storage east'],
  pvInverter: ['Roof south', 'Roof east', 'Roof west', 'Carport', 'Garage roof', 'Balcony', 'Barn roof'],
  meter: ['Grid connection point', 'Main meter', 'Heat pump meter', 'Wallbox meter', 'Consumption meter'],
  hvac: ['Underfloor heating', 'Hot water tank', 'Living room', 'Bedroom AC', 'Office', 'Heat pump', 'Radiators upstairs'],
  charger: ['Driveway', 'Garage wallbox', 'Carport charger', 'Wallbox'],
  vehicle: ['Family car', 'Commuter', 'Company car', 'Second car', 'Weekend car'],
  tariff: ['Dynamic hourly price', 'Night rate', 'Variable tariff', 'Home electricity'],
};

const HVAC_TYPES = ['AC', 'HEATING_CIRCUIT', 'DHW', 'THERMOSTAT'] as const;
const BATTERY_MODES = ['AUTO', 'SELF_CONSUMPTION', 'EXPORT_FOCUS', 'MANUAL'] as const;
const BATTERY_STATES = ['CHARGING', 'DISCHARGING', 'IDLE', 'FAULT'] as const;
const CHARGER_STATES = ['UNPLUGGED', 'PREPARING', 'CHARGING', 'FINISHED', 'STOPPED', 'FAULT'] as const;
const PV_STATES = ['PRODUCING', 'IDLE', 'FAULT'] as const;
const COUNTRIES = [['DE', 'EUR'], ['DE', 'EUR'], ['AT', 'EUR'], ['NL', 'EUR'], ['GB', 'GBP']] as const;

/** The text filters of figure (c): mixed case on purpose, matching is case-insensitive. */
export const TEXT_FILTERS: { name: string; model: string }[] = [
  { name: 'Garage', model: 'hvs' },
  { name: 'cellar', model: 'LUNA2000' },
  { name: 'storage', model: 'powerwall' },
  { name: 'battery', model: 'sunny' },
];

export interface SeedResult {
  file: string;
  total: number;
  kinds: Record<Kind, number>;
  households: number;
  /** Battery ids for the detail reads, spread over the fleet. */
  batteryIds: string[];
  /** Vehicle ids for the command submissions. */
  vehicleIds: string[];
  /** Detail paths (under /v1.0.0) of the other kinds, each as the origin documents its detail read, spread over the fleet. */
  detailPaths: Record<string, string[]>;
  /** Each text filter with the number of batteries it matches (what totalElements must say). */
  filters: { query: string; expectedTotal: number }[];
}

/** Writes the seed file and describes what is in it. Same seed, same file. */
export function writeSeed(file: string, seed = 20261107): SeedResult {
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const uuid = () => {
    const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
    hex[12] = '4';
    hex[16] = '89ab'[Math.floor(random() * 4)]!;
    const s = hex.join('');
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  };
  const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

  const households = Array.from({ length: HOUSEHOLDS }, (_, i) => ({
    userId: `household-${String(i + 1).padStart(5, '0')}`,
    locationId: uuid(),
  }));
  // Skewed towards the first households: some installers' customers have many devices.
  const household = () => households[Math.floor(random() ** 1.6 * HOUSEHOLDS)]!;
  const now = Date.UTC(2026, 10, 7, 12, 0, 0);
  const at = (minutesAgoMax: number) => new Date(now - Math.floor(random() * minutesAgoMax) * 60_000).toISOString().replace('.000Z', 'Z');

  const records: Record<string, unknown>[] = [];
  const batteryIds: string[] = [];
  const vehicleIds: string[] = [];
  const batteries: { name: string | undefined; model: string }[] = [];
  const detailPaths: Record<string, string[]> = {
    'GET /vehicles/{id}': [], 'GET /users/{u}/hvacs/{id}': [], 'GET /users/{u}/meters/{id}': [],
    'GET /pv-inverters/{id}': [], 'GET /users/{u}/chargers/{id}': [], 'GET /users/{u}/tariffs/{id}': [],
  };
  const DETAIL_OF: Partial<Record<Kind, (id: string, userId: string) => [string, string]>> = {
    vehicle: (id) => ['GET /vehicles/{id}', `/vehicles/${id}`],
    hvac: (id, u) => ['GET /users/{u}/hvacs/{id}', `/users/${u}/hvacs/${id}`],
    meter: (id, u) => ['GET /users/{u}/meters/{id}', `/users/${u}/meters/${id}`],
    pvInverter: (id) => ['GET /pv-inverters/{id}', `/pv-inverters/${id}`],
    charger: (id, u) => ['GET /users/{u}/chargers/{id}', `/users/${u}/chargers/${id}`],
    tariff: (id, u) => ['GET /users/{u}/tariffs/{id}', `/users/${u}/tariffs/${id}`],
  };

  for (const kind of Object.keys(KIND_COUNTS) as Kind[]) {
    for (let i = 0; i < KIND_COUNTS[kind]; i++) {
      const owner = household();
      const vendor = pick(Object.keys(CATALOG[kind]));
      const model = pick(CATALOG[kind][vendor]!);
      const baseName = pick(NAMES[kind]);
      const name = random() < 0.05 ? undefined : random() < 0.2 ? `${baseName} ${1 + Math.floor(random() * 3)}` : baseName;
      const id = uuid();
      const lastUpdated = at(24 * 60);
      const record: Record<string, unknown> = {
        kind, id, userId: owner.userId, isOnline: random() < 0.9, lastUpdated, locationId: owner.locationId,
      };
      switch (kind) {
        case 'battery': {
          const capacity = round(5 + random() * 15);
          record['staticData'] = { vendor, ...(name ? { name } : {}), model, siteName: 'Home', batteryCapacity: capacity };
          const state = pick(BATTERY_STATES);
          record['chargeState'] = {
            lastUpdated, mode: pick(BATTERY_MODES),
            chargeRate: state === 'CHARGING' ? round(random() * 5) : state === 'DISCHARGING' ? -round(random() * 5) : 0,
            stateOfCharge: Math.floor(random() * 101), chargeLimitMin: 10, chargeLimitMax: 100,
            maxChargeRate: round(capacity / 2), maxDischargeRate: round(capacity / 2), chargingState: state,
          };
          batteryIds.push(id);
          batteries.push({ name, model });
          break;
        }
        case 'pvInverter':
          record['staticData'] = { vendor, ...(name ? { name } : {}), model, siteName: 'Home' };
          record['powerState'] = { lastUpdated, state: pick(PV_STATES), solarPower: round(random() * 10) };
          break;
        case 'meter':
          record['staticData'] = { vendor, ...(name ? { name } : {}), model, siteName: 'Home' };
          break;
        case 'hvac':
          record['type'] = pick(HVAC_TYPES);
          record['staticData'] = { vendor, ...(name ? { name } : {}), model };
          break;
        case 'charger':
          record['staticData'] = { vendor, model, ...(name ? { name } : {}) };
          record['chargeState'] = {
            lastUpdated, chargeRate: round(random() * 11), chargeCurrentMax: pick([16, 32]), isPlugged: random() < 0.6,
            activePhases: pick([1, 3]), chargingState: pick(CHARGER_STATES),
          };
          break;
        case 'vehicle':
          record['staticData'] = { vendor, ...(name ? { name } : {}), model };
          vehicleIds.push(id);
          break;
        case 'tariff': {
          const [countryCode, currency] = pick(COUNTRIES);
          record['staticData'] = { vendor, countryCode, name: name ?? model, currency, lastUpdated };
          break;
        }
      }
      records.push(record);
      const detail = DETAIL_OF[kind]?.(id, owner.userId);
      if (detail) detailPaths[detail[0]]!.push(detail[1]);
    }
  }
  writeFileSync(file, JSON.stringify(records));

  const filters = TEXT_FILTERS.map(({ name, model }) => ({
    query: `name=${encodeURIComponent(name)}&model=${encodeURIComponent(model)}`,
    expectedTotal: batteries.filter((b) => b.name?.toLowerCase().includes(name.toLowerCase()) && b.model.toLowerCase().includes(model.toLowerCase())).length,
  }));
  const every = (ids: string[], n: number) => ids.filter((_, i) => i % Math.floor(ids.length / n) === 0).slice(0, n);
  return {
    file,
    total: records.length,
    kinds: { ...KIND_COUNTS },
    households: new Set(records.map((r) => r['userId'])).size,
    batteryIds: every(batteryIds, 100),
    vehicleIds: every(vehicleIds, 100),
    detailPaths: Object.fromEntries(Object.entries(detailPaths).map(([name, paths]) => [name, every(paths, 100)])),
    filters,
  };
}

/** A small, fast, seedable PRNG (public domain), so the data set is the same on every run. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
