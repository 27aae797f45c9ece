// From a command's payload to the value a device takes, for every driver family: a number in the
// device's unit, a word of the device's vocabulary, a constant, or an encoded schedule.
import type { CommandType } from '../../domain/vocabulary.ts';
import type { CommandValue } from '../families/definition-parts.ts';
import { round } from '../values/values.ts';
import { CommandFailure } from './executor.ts';
import { encodeSchedule } from './schedules.ts';

/** The value(s) the device takes: one for most commands, one per step for a split schedule. */
export function commandValues(value: CommandValue, type: CommandType, payload: unknown, settings: Record<string, string>): (string | number | boolean)[] {
  const body = (payload ?? {}) as Record<string, unknown>;
  switch (value.from) {
    case 'none':
      return [''];
    case 'constant':
      return [value.value];
    case 'payload': {
      const raw = body[value.field];
      if (typeof raw !== 'number' || !Number.isFinite(raw)) throw new CommandFailure(`${type} needs a number in "${value.field}".`);
      if ((value.min !== undefined && raw < value.min) || (value.max !== undefined && raw > value.max)) {
        throw new CommandFailure(`${type}: ${value.field} ${raw} is outside what the device accepts (${value.min ?? '…'} to ${value.max ?? '…'}).`);
      }
      return [round(raw * (value.scale ?? 1), value.digits ?? 2)];
    }
    case 'payload-enum': {
      const raw = body[value.field];
      const mapped = typeof raw === 'string' ? value.map[raw] : undefined;
      if (mapped === undefined) {
        throw new CommandFailure(`${type}: the device has no equivalent of ${value.field} ${String(raw)}; it accepts ${Object.keys(value.map).join(', ')}.`);
      }
      return [mapped];
    }
    case 'schedule':
      return encodeSchedule(value.encoder, body, settings);
  }
}

