// The binding of a charger that speaks OCPP 1.6J to the hub (decisions §4 "OCPP chargers"):
// `{"type": "ocpp", "chargePointId": "...", "password": "..."}`, checked alike by the import, the
// configuration file and the pairing page. The password never stays in the binding: it is hashed into
// the store's OCPP credentials, and the stored binding keeps the charge point id and the settings.
// An export sealed with a passphrase carries `passwordHash` instead, which an import takes back as it
// is; a plain export carries neither (the hash of an installer's password is guessable offline).
import type { DriverBinding } from './device.ts';
import type { ValidationError } from './validation.ts';
import { NO_PASSWORD, PASSWORD_PATTERN, PASSWORD_RULE, hashPassword, isPasswordHash } from './ocpp-password.ts';
import type { DeviceKind } from './vocabulary.ts';

export const OCPP_BINDING = 'ocpp';

/** A problem of a binding: the field (relative to the binding) and why. */
export type BindingProblem = ValidationError;

/**
 * A charge point id as the hub accepts it: 1–48 characters of RFC 3986's unreserved set, which is
 * what the OCPP 1.6 security whitepaper asks of an identity that is the last segment of the URL.
 */
export const CHARGE_POINT_ID_PATTERN = /^[A-Za-z0-9._~-]{1,48}$/;
/** OCPP 1.6 IdToken: CiString20. */
const ID_TAG_PATTERN = /^[\x20-\x7e]{1,20}$/;

const FIELDS: Record<string, string> = {
  type: 'the binding type',
  chargePointId: 'the charger\'s identity, the last segment of ws(s)://<hub>/ocpp/{chargePointId}',
  password: 'its HTTP Basic auth password (stored only as a hash)',
  passwordHash: 'instead of password: the hash an export gives',
  idTags: 'the RFID/idTags the hub accepts from this charger',
  freeCharging: 'true: the hub accepts every idTag (free charging)',
};

/** The settings the runtime reads from a stored OCPP binding. */
export interface OcppSettings {
  chargePointId: string;
  idTags: readonly string[];
  freeCharging: boolean;
}

export function isOcppBinding(binding: DriverBinding | null | undefined): binding is DriverBinding & { chargePointId: string } {
  return binding?.type === OCPP_BINDING && typeof binding['chargePointId'] === 'string';
}

export function ocppSettings(binding: DriverBinding): OcppSettings {
  const idTags = Array.isArray(binding['idTags']) ? (binding['idTags'] as unknown[]).filter((t): t is string => typeof t === 'string') : [];
  return { chargePointId: String(binding['chargePointId']), idTags, freeCharging: binding['freeCharging'] === true };
}

/** What is wrong with an `ocpp` binding on a device of this kind; fields are relative to the binding. No message repeats a password. */
export function ocppBindingProblems(kind: DeviceKind, binding: Record<string, unknown>, options: { passwordOptional?: boolean } = {}): BindingProblem[] {
  const problems: BindingProblem[] = [];
  if (kind !== 'charger') problems.push({ field: 'type', message: `a ${kind} cannot be bound over OCPP: "${OCPP_BINDING}" binds a charger` });
  const id = binding['chargePointId'];
  if (id === undefined) problems.push({ field: 'chargePointId', message: `is required: ${FIELDS['chargePointId']}` });
  else if (typeof id !== 'string' || !CHARGE_POINT_ID_PATTERN.test(id)) {
    problems.push({ field: 'chargePointId', message: 'must be 1 to 48 letters, digits or . _ ~ - (the OCPP 1.6 security whitepaper\'s identity)' });
  }
  const password = binding['password'];
  const hash = binding['passwordHash'];
  if (password !== undefined && hash !== undefined) problems.push({ field: 'passwordHash', message: 'give password or passwordHash, not both' });
  else if (password === undefined && hash === undefined) {
    if (!options.passwordOptional) problems.push({ field: 'password', message: 'is required: the password the charger authenticates with' });
  } else if (password !== undefined && (typeof password !== 'string' || !PASSWORD_PATTERN.test(password))) problems.push({ field: 'password', message: PASSWORD_RULE });
  else if (hash !== undefined && (typeof hash !== 'string' || !isPasswordHash(hash))) problems.push({ field: 'passwordHash', message: 'must be a password hash as the hub exports it (scrypt$N$r$p$salt$hash)' });
  const idTags = binding['idTags'];
  if (idTags !== undefined && (!Array.isArray(idTags) || idTags.length > 100 || !idTags.every((t) => typeof t === 'string' && ID_TAG_PATTERN.test(t)))) {
    problems.push({ field: 'idTags', message: 'must be a list of at most 100 idTags, each 1 to 20 printable ASCII characters (OCPP 1.6 IdToken)' });
  }
  const free = binding['freeCharging'];
  if (free !== undefined && typeof free !== 'boolean') problems.push({ field: 'freeCharging', message: 'must be true or false' });
  for (const key of Object.keys(binding)) {
    if (!(key in FIELDS)) problems.push({ field: key, message: `is not a known field of an ocpp binding (it has ${Object.keys(FIELDS).join(', ')})` });
  }
  return problems;
}

/**
 * A checked OCPP binding split into what is stored with the device and the password's hash. A
 * binding with neither (a record of a plain export, which leaves the hash out) gets NO_PASSWORD:
 * the charger is refused until it is given its password again (`hub devices secret ID password`),
 * and its charge point id stays its own meanwhile.
 */
export function splitOcppBinding(binding: DriverBinding): { binding: DriverBinding; passwordHash: string } {
  const { password, passwordHash, ...stored } = binding;
  return {
    binding: stored as DriverBinding,
    passwordHash: typeof passwordHash === 'string' ? passwordHash : typeof password === 'string' ? hashPassword(password) : NO_PASSWORD,
  };
}

/** Whether an OCPP binding carries its password (or its hash). */
export function hasOcppPassword(binding: Record<string, unknown>): boolean {
  return binding['password'] !== undefined || binding['passwordHash'] !== undefined;
}
