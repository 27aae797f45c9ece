// Bulk import of devices from records shaped like the API's detail responses plus a `kind`
// (decisions §3). Every record is checked before anything is written; a single bad record means
// nothing is imported, and each problem is reported with its record index and field.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  BatteryChargeState, BatteryStaticData, ChargerChargeState, ChargerStaticData, HvacStaticData, MeterStaticData,
  PvInverterStaticData, PvPowerState, TariffStaticData, Timestamp, Uuid, VehicleStaticData, oneOf,
} from './schemas.ts';
import { DEVICE_KINDS, HVAC_TYPES, type DeviceKind } from './vocabulary.ts';
import { CHARGER_BINDING, STATE_KEY, canonicalBinding, type DeviceRecord, type DriverBinding } from './device.ts';
import { NO_DEFAULTS, identityWith, type IdentityOf } from './binding-identity.ts';
import { chargerBindingProblems } from './bindings.ts';
import { OCPP_BINDING, hasOcppPassword, ocppBindingProblems, splitOcppBinding } from './ocpp-binding.ts';
import { normalizeTimestamp, parseTimestamp, wholeSeconds } from './time.ts';
import { isPng } from './png.ts';
import { toValidationErrors } from './validation.ts';
import type { ValidationError } from './validation.ts';

const Driver = z.looseObject({ type: z.string().min(1).max(100) });
const ImagePng = z.string().max(3_000_000).describe('base64 PNG');

const common = {
  id: Uuid.optional(),
  userId: z.string().min(1).max(200),
  isOnline: z.boolean().default(false),
  lastUpdated: Timestamp.optional(),
  locationId: Uuid.optional(),
  driver: Driver.optional(),
};

/**
 * The kind's staticData with `model` optional: a driven device reports its model (an OCPP charger in
 * its BootNotification, a SunSpec or Huawei device in its registers, an HTTP gateway in its
 * discovery answer), and devices declared in YAML may leave it out, so that what `hub export` writes
 * imports again. A record without a driver still needs one (see `modelProblem`).
 */
const modelOptional = <T extends typeof BatteryStaticData | typeof PvInverterStaticData | typeof HvacStaticData | typeof ChargerStaticData | typeof VehicleStaticData>(schema: T) =>
  schema.extend({ model: z.string().min(1).max(200).optional() });

const RECORD_SCHEMAS: Record<DeviceKind, z.ZodType> = {
  battery: z.strictObject({ kind: z.literal('battery'), ...common, staticData: modelOptional(BatteryStaticData), chargeState: BatteryChargeState.partial({ lastUpdated: true }).optional() }),
  pvInverter: z.strictObject({ kind: z.literal('pvInverter'), ...common, staticData: modelOptional(PvInverterStaticData), powerState: PvPowerState.partial({ lastUpdated: true }).optional() }),
  meter: z.strictObject({ kind: z.literal('meter'), ...common, staticData: modelOptional(MeterStaticData) }),
  hvac: z.strictObject({ kind: z.literal('hvac'), ...common, type: oneOf(HVAC_TYPES), staticData: modelOptional(HvacStaticData), image: ImagePng.optional() }),
  charger: z.strictObject({ kind: z.literal('charger'), ...common, staticData: modelOptional(ChargerStaticData), chargeState: ChargerChargeState.partial({ lastUpdated: true }).optional() }),
  vehicle: z.strictObject({ kind: z.literal('vehicle'), ...common, staticData: modelOptional(VehicleStaticData), image: ImagePng.optional() }),
  tariff: z.strictObject({ kind: z.literal('tariff'), ...common, staticData: TariffStaticData }),
};

export interface ImportProblem extends ValidationError {
  index: number;
}

/** An OCPP charger's credentials as imported: its password already hashed. */
export interface ImportedOcppCredential {
  chargePointId: string;
  deviceId: string;
  passwordHash: string;
}

export interface PreparedImport {
  devices: DeviceRecord[];
  images: Map<string, Buffer>;
  ocppCredentials: ImportedOcppCredential[];
  /** Records whose binding reaches a stored device (another id): they carry that device's id now. */
  sameBinding: { index: number; id: string }[];
}

type Parsed = Record<string, any>;

/** How the import tells that a binding reaches a device already bound: the rule, and the stored devices. */
export interface BoundDevices {
  /** bindingIdentity with the driver definitions' defaults (src/binding-defaults.ts). */
  identityOf: IdentityOf;
  /** The stored device with this identity, if any. */
  deviceAt(identity: string): string | undefined;
}

/** No stored device, and bindings compared as written (for callers that know no definitions). */
const NONE_BOUND: BoundDevices = { identityOf: identityWith(NO_DEFAULTS), deviceAt: () => undefined };

/**
 * Checks every record and turns them into device records; throws ImportError listing all problems.
 * `ocppOwner` names the device that holds a charge point id already, if any; `bound` the stored
 * device a binding reaches already (by `bindingIdentity`, defaults applied), if any: a record bound
 * to it takes its id (the caller decides whether that update may happen) and is listed in `sameBinding`.
 */
export function prepareImport(
  input: unknown, nowMs: number, existingKind: (id: string) => DeviceKind | undefined, ocppOwner: (chargePointId: string) => string | undefined = () => undefined,
  bound: BoundDevices = NONE_BOUND,
): PreparedImport {
  const problems: ImportProblem[] = [];
  if (!Array.isArray(input)) throw new ImportError([{ index: -1, field: '(file)', message: 'must be a JSON array of device records' }]);
  const devices: DeviceRecord[] = [];
  const images = new Map<string, Buffer>();
  const seen = new Map<string, number>();
  const chargePoints = new Map<string, number>();
  const ocppCredentials: ImportedOcppCredential[] = [];
  const inFile = new Map<string, number>();
  const sameBinding: PreparedImport['sameBinding'] = [];

  input.forEach((raw: unknown, index) => {
    const kind = (raw as { kind?: unknown } | null)?.kind;
    if (typeof kind !== 'string' || !(DEVICE_KINDS as readonly string[]).includes(kind)) {
      problems.push({ index, field: 'kind', message: `must be one of ${DEVICE_KINDS.join(', ')}` });
      return;
    }
    const result = RECORD_SCHEMAS[kind as DeviceKind].safeParse(raw, { reportInput: true });
    if (!result.success) problems.push(...toValidationErrors(result.error.issues).map((p) => ({ index, ...p })));
    // Identity is checked whatever else is wrong with the record, so that every problem is named.
    // UUIDs are case-insensitive (RFC 9562) and the API looks ids up in lower case: so are they kept.
    const givenId = (raw as { id?: unknown }).id;
    let id = typeof givenId === 'string' ? givenId.toLowerCase() : randomUUID();
    // Two records (or a record and a stored device) bound to the same device are one device.
    const driver = (raw as { driver?: unknown }).driver;
    const identity = isObject(driver) && typeof driver['type'] === 'string' ? bound.identityOf(kind as DeviceKind, driver as DriverBinding) : null;
    if (identity !== null) {
      const first = inFile.get(identity);
      // An OCPP charger's charge point id is checked below, in its own words: not said twice.
      if (first !== undefined && !(isObject(driver) && driver['type'] === OCPP_BINDING)) problems.push({ index, field: 'driver', message: `reaches the same ${kind} as record ${first} (same driver and address)` });
      else inFile.set(identity, index);
      const owner = bound.deviceAt(identity);
      if (owner !== undefined && owner !== id) {
        id = owner;
        sameBinding.push({ index, id });
      }
    }
    const earlier = seen.get(id);
    if (earlier !== undefined) problems.push({ index, field: 'id', message: `repeats the id of record ${earlier}` });
    else seen.set(id, index);
    const stored = existingKind(id);
    if (stored !== undefined && stored !== kind) problems.push({ index, field: 'id', message: `belongs to an existing ${stored}` });
    // Any other binding is its driver's to check when the device is driven; this one no driver reads.
    if (isObject(driver) && driver['type'] === CHARGER_BINDING) {
      problems.push(...chargerBindingProblems(kind as DeviceKind, driver).map((p) => ({ index, field: `driver.${p.field}`, message: p.message })));
    }
    let ocppOk = true;
    if (isObject(driver) && driver['type'] === OCPP_BINDING) {
      // A record of a plain export has no password: the charger waits for it (hub devices secret).
      const ocpp = ocppBindingProblems(kind as DeviceKind, driver, { passwordOptional: true });
      problems.push(...ocpp.map((p) => ({ index, field: `driver.${p.field}`, message: p.message })));
      ocppOk = ocpp.length === 0;
      const chargePointId = driver['chargePointId'];
      if (ocppOk && typeof chargePointId === 'string') {
        const first = chargePoints.get(chargePointId);
        const owner = ocppOwner(chargePointId);
        if (first !== undefined) problems.push({ index, field: 'driver.chargePointId', message: `repeats the charge point id of record ${first}` });
        else if (owner !== undefined && owner !== id) problems.push({ index, field: 'driver.chargePointId', message: `is the charge point id of charger ${owner} already` });
        else chargePoints.set(chargePointId, index);
      }
    }
    const missingModel = modelProblem(kind as DeviceKind, raw);
    if (missingModel) problems.push({ index, ...missingModel });
    if (!result.success || !ocppOk || missingModel) return;
    if (hasOcppBinding(result.data)) {
      const driver = (result.data as Parsed)['driver'];
      const chargePointId = String(driver['chargePointId']);
      // Without a password, a charger this device holds already keeps the one it has.
      if (hasOcppPassword(driver) || ocppOwner(chargePointId) !== id) {
        const split = splitOcppBinding(driver);
        (result.data as Parsed)['driver'] = split.binding;
        ocppCredentials.push({ chargePointId, deviceId: id, passwordHash: split.passwordHash });
      }
    }
    const record = result.data as Parsed;
    if (record['image'] !== undefined) {
      const png = Buffer.from(record['image'], 'base64');
      if (!isPng(png)) problems.push({ index, field: 'image', message: 'must be a base64-encoded PNG' });
      else images.set(id, png);
    }
    devices.push(toDevice(kind as DeviceKind, id, record, nowMs));
  });

  if (problems.length > 0) throw new ImportError(problems);
  return { devices, images, ocppCredentials, sameBinding };
}

function toDevice(kind: DeviceKind, id: string, record: Parsed, nowMs: number): DeviceRecord {
  const { vendor, name, model, ...rest } = record['staticData'] as Parsed;
  if (rest['lastUpdated']) rest['lastUpdated'] = normalizeTimestamp(rest['lastUpdated']);
  const stateKey = STATE_KEY[kind];
  const state = stateKey && record[stateKey] ? { ...(record[stateKey] as Parsed) } : null;
  if (state?.['lastUpdated']) state['lastUpdated'] = normalizeTimestamp(state['lastUpdated']);
  return {
    id,
    kind,
    userId: record['userId'],
    vendor,
    name: name ?? null,
    model: model ?? null,
    isOnline: record['isOnline'],
    // Whole seconds, as the drivers write them: the lastUpdated filters compare what the API shows.
    lastUpdatedMs: record['lastUpdated'] ? wholeSeconds(parseTimestamp(record['lastUpdated'])!) : null,
    locationId: record['locationId']?.toLowerCase() ?? null,
    hvacType: kind === 'hvac' ? record['type'] : null,
    staticData: rest,
    state,
    driver: record['driver'] ? canonicalBinding(record['driver']) : null,
    createdAtMs: nowMs,
  };
}

/** Without a driver nothing will ever report the model: such a record must give it (kinds that have one). */
function modelProblem(kind: DeviceKind, raw: unknown): ValidationError | undefined {
  if (kind === 'tariff' || !isObject(raw) || raw['driver'] !== undefined || !isObject(raw['staticData'])) return undefined;
  if (raw['staticData']['model'] !== undefined) return undefined;
  return { field: 'staticData.model', message: 'is required for a device without a driver (a driver reads it from the device)' };
}

function hasOcppBinding(record: unknown): boolean {
  return (record as Parsed)['driver']?.['type'] === OCPP_BINDING;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class ImportError extends Error {
  constructor(readonly problems: ImportProblem[]) {
    super(`${problems.length} problem${problems.length === 1 ? '' : 's'} in the import file; nothing was imported`);
    this.name = 'ImportError';
  }
}
