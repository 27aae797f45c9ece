// Query and path parameter schemas of the list and detail endpoints (decisions §2, "List queries").
import { z } from 'zod';
import { oneOf, schemaRegistry, Timestamp, Uuid } from '../domain/schemas.ts';
import {
  BATTERY_CHARGING_STATES, COMMAND_STATES, HOME_POWER_VENDORS, HVAC_TYPES, HVAC_VENDORS, SORT_FIELDS, USER_SORT_FIELDS,
  VEHICLE_VENDORS,
} from '../domain/vocabulary.ts';
import { parseTimestamp } from '../domain/time.ts';
import { withShortcut } from '../domain/validation.ts';

const INT32_MAX = 2_147_483_647;

/** A whole number in a query string, documented as an integer. */
export function intParam(min: number, max: number, fallback: number) {
  const message = `must be a whole number from ${min} to ${max}`;
  const schema = z
    .string()
    .regex(/^\d{1,10}$/, message)
    .transform(Number)
    .pipe(z.number().min(min, message).max(max, message))
    .default(fallback);
  schemaRegistry.add(schema, { jsonSchema: { type: 'integer', format: 'int32', minimum: min, maximum: max, default: fallback } });
  return schema;
}

function boolParam() {
  const schema = z.enum(['true', 'false'], { error: 'must be true or false' }).transform((v) => v === 'true');
  schemaRegistry.add(schema, { jsonSchema: { type: 'boolean' } });
  return schema;
}

/**
 * A date-time in a query string, as epoch ms. Parsing drops digits finer than a millisecond, which
 * suits an upper bound; a lower bound rounds them up instead, so that `lastUpdatedFrom` never lets
 * in a device updated before it (decisions §2: the bounds are inclusive).
 */
function timeParam(bound: 'from' | 'to') {
  return Timestamp.transform((text) => {
    const ms = parseTimestamp(text)!;
    return bound === 'from' && /\.\d{3}\d*[1-9]/.test(text) ? ms + 1 : ms;
  });
}

const text = z.string().max(200, 'must be at most 200 characters long');

/**
 * A device id in a path or the `uuid` filter, in lower case: UUIDs are case-insensitive (RFC 9562),
 * and the hub keeps ids in lower case (the importer and the configuration lower them too).
 */
const DeviceId = Uuid.transform((id) => id.toLowerCase());

const paging = {
  sortOrder: oneOf(['ASC', 'DESC']).default('DESC'),
  page: intParam(0, INT32_MAX, 0),
  size: intParam(1, 100, 10),
};

const subscriptionFilters = {
  sortField: oneOf(SORT_FIELDS).default('USER_ID'),
  uuid: DeviceId.optional(),
  userId: text.optional(),
  isOnline: boolParam().optional(),
  name: text.optional(),
  model: text.optional(),
  lastUpdatedFrom: timeParam('from').optional(),
  lastUpdatedTo: timeParam('to').optional(),
  ...paging,
};

export const BatteryListQuery = z.object({
  ...subscriptionFilters,
  vendor: oneOf(HOME_POWER_VENDORS).optional(),
  chargingState: oneOf(BATTERY_CHARGING_STATES).optional(),
});

export const HvacListQuery = z.object({
  ...subscriptionFilters,
  vendor: oneOf(HVAC_VENDORS).optional(),
  type: oneOf(HVAC_TYPES).optional(),
});

export const VehicleListQuery = z.object({
  ...subscriptionFilters,
  vendor: oneOf(VEHICLE_VENDORS).optional(),
  vin: text.optional(),
});

export const UserListQuery = z.object({
  sortField: oneOf(USER_SORT_FIELDS).default('VENDOR'),
  ...paging,
});

/** Hourly consumption: pages of up to 2000 hours, 100 by default (the origin's figures). */
export const ConsumptionQuery = z.object({
  page: intParam(0, INT32_MAX, 0),
  size: intParam(1, 2000, 100),
});

export const CommandListQuery = z.object({
  state: oneOf([...COMMAND_STATES, 'ALL']).default('PENDING'),
});

export const UserIdParam = z.string().min(1).max(200, 'must be at most 200 characters long');

const UUID_PATTERN = Uuid.def.pattern!;

/**
 * Path parameters: `{ batteryId: uuid }` and the like, ids turned to lower case (so a not-found
 * message names the id as the hub keeps it); valid ones skip Zod (see withShortcut).
 */
export function idParams<const K extends string>(...names: K[]) {
  const schema = z.object(Object.fromEntries(names.map((n) => [n, n === 'userId' ? UserIdParam : DeviceId])) as Record<K, typeof UserIdParam | typeof DeviceId>);
  return withShortcut(schema, (input) => {
    const out = {} as Record<K, string>;
    for (const name of names) {
      const value = (input as Record<string, unknown>)[name];
      if (typeof value !== 'string') return undefined;
      if (name === 'userId') {
        if (value.length < 1 || value.length > 200) return undefined;
        out[name] = value;
      } else {
        if (!UUID_PATTERN.test(value)) return undefined;
        out[name] = value.toLowerCase();
      }
    }
    return out as z.output<typeof schema>;
  });
}

export type ListQueryOutput = z.output<typeof UserListQuery> & Partial<z.output<typeof BatteryListQuery>>;
