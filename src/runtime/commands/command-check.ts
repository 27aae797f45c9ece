// Whether a command can be accepted for a device, checked before it is stored: its type is among
// what the device's driver offers (CommandWorker.offers), and its value is within what that driver
// takes (a number's range, an enum's words), checked as the driver will. Every front door refuses
// the same way (the API with a 400, Home Assistant's topics with a log line), so nothing that must
// fail is stored to fail later.
import type { CommandType } from '../../domain/vocabulary.ts';
import { commandValues } from './command-values.ts';
import { CommandFailure, type CommandShape } from './executor.ts';

export interface Refusal {
  /** The payload's field at fault, or undefined when the command itself is not offered. */
  field?: string;
  message: string;
}

/** Why the command cannot be taken for a device offering `offers`, or undefined when it can. */
export function refusal(offers: ReadonlyMap<CommandType, CommandShape>, type: CommandType, payload: unknown): Refusal | undefined {
  const shape = offers.get(type);
  if (!shape) {
    const offered = [...offers.keys()];
    return { message: `${type} is not offered for this device: ${offered.length > 0 ? `what it offers is ${offered.join(', ')}` : 'no driver of the hub can command it'}` };
  }
  if (!shape.value) return undefined;
  try {
    commandValues(shape.value, type, payload, {});
  } catch (err) {
    if (!(err instanceof CommandFailure)) throw err;
    const field = 'field' in shape.value ? shape.value.field : undefined;
    return field === undefined ? { message: err.message } : { field, message: err.message };
  }
  return undefined;
}
