// A message on one of the hub's Home Assistant command topics, as the hub's command: the climate's
// setpoint (a number of °C) and mode (heat, off… mapped back to SET_MODE's words), a vehicle's
// charging buttons (any payload: Home Assistant sends PRESS) and charging current (a number of A).
// Anything the device is not offered is refused with a reason for the log, never stored.
import type { CommandType } from '../../domain/vocabulary.ts';
import { refusal } from '../commands/command-check.ts';
import type { CommandShape } from '../commands/executor.ts';
import { COMMAND_OF_TOPIC, hubMode, type Offers } from './controls.ts';

export interface HaCommand {
  type: CommandType;
  payload?: Record<string, unknown>;
}

/** The command a topic's name and payload ask for, or why none. */
export function haCommand(name: string, text: string, offers: Offers): HaCommand | string {
  const type = COMMAND_OF_TOPIC[name];
  if (!type) return `no command is named ${name}`;
  const shape = offers.get(type);
  if (!shape) return `${type} is not offered for this device`;
  const command = asCommand(type, text, shape);
  if (typeof command === 'string') return command;
  // Within what was offered (the number's min and max are the driver's range): checked as the
  // driver will, so that a value out of range is refused here, not stored to fail.
  return refusal(offers, type, command.payload)?.message ?? command;
}

function asCommand(type: CommandType, text: string, shape: CommandShape): HaCommand | string {
  switch (type) {
    case 'SET_TEMPERATURE':
    case 'SET_CHARGING_CURRENT': {
      const value = Number(text.trim());
      if (text.trim() === '' || !Number.isFinite(value)) return `${type} needs a number, not ${JSON.stringify(text.slice(0, 40))}`;
      return { type, payload: { [type === 'SET_TEMPERATURE' ? 'temperature' : 'current']: value } };
    }
    case 'SET_MODE': {
      const mode = hubMode(text.trim(), shape);
      return mode ? { type, payload: { mode } } : `the device takes no mode ${JSON.stringify(text.slice(0, 40))}`;
    }
    default:
      return { type };
  }
}
