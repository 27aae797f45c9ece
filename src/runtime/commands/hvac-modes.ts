// What an HVAC unit's modes are, in the hub's words (SET_MODE's HEAT, COOL, DRY, AUTO, REDUCED, OFF),
// read through its driver: the modes SET_MODE takes there, and the mode the unit reports now. The
// API's HVAC detail and Home Assistant's climate entity both show these.
import type { DeviceRecord } from '../../domain/device.ts';
import { HVAC_MODES, type CommandType, type HvacMode } from '../../domain/vocabulary.ts';
import type { CommandShape } from './executor.ts';

export type Offers = ReadonlyMap<CommandType, CommandShape>;

/** The modes SET_MODE takes on this unit (its driver's map), in the vocabulary's order; none when it takes no mode. */
export function capableModes(offers: Offers): HvacMode[] {
  const shape = offers.get('SET_MODE');
  if (shape?.value?.from !== 'payload-enum') return [];
  const map = shape.value.map;
  return HVAC_MODES.filter((mode) => mode in map);
}

/**
 * The mode the unit is in, read back through the driver's own words: SET_MODE's map says which
 * device word each mode writes, and its confirming state field holds the word the unit reports (or
 * the shape's `stateWords`, where the runtime stores another word than the one it sends). Without a
 * SET_MODE, a `mode` the driver reports in the hub's words. Undefined when the unit has not said.
 */
export function currentMode(device: DeviceRecord, offers: Offers): HvacMode | undefined {
  const shape = offers.get('SET_MODE');
  if (shape?.value?.from !== 'payload-enum') {
    const reported = device.state?.['mode'];
    return (HVAC_MODES as readonly unknown[]).includes(reported) ? reported as HvacMode : undefined;
  }
  const word = shape.stateField === undefined ? undefined : device.state?.[shape.stateField];
  if (word === undefined || word === null) return undefined;
  for (const [mode, deviceWord] of Object.entries(shape.value.map)) {
    const shown = shape.stateWords?.[mode] ?? deviceWord;
    if (String(shown).toLowerCase() === String(word).toLowerCase() && (HVAC_MODES as readonly string[]).includes(mode)) return mode as HvacMode;
  }
  return undefined;
}
