// Checks of the binding types the hub itself defines (no driver definition checks them): the import
// and the configuration file refuse a mistake with the same words.
import type { ValidationError } from './validation.ts';
import { CHARGER_BINDING } from './device.ts';
import { Uuid } from './schemas.ts';
import type { DeviceKind } from './vocabulary.ts';

/** What is wrong with a `charger` binding on a device of this kind; fields are relative to the binding. */
export function chargerBindingProblems(kind: DeviceKind, binding: Record<string, unknown>): ValidationError[] {
  const problems: ValidationError[] = [];
  if (kind !== 'vehicle') {
    problems.push({ field: 'type', message: `a ${kind} cannot be bound to a charger: "${CHARGER_BINDING}" binds a vehicle with no driver of its own to the charger it charges at` });
  }
  const chargerId = binding['chargerId'];
  if (chargerId === undefined) problems.push({ field: 'chargerId', message: 'is required: the id of the charger the vehicle charges at' });
  else if (!Uuid.safeParse(chargerId).success) problems.push({ field: 'chargerId', message: 'must be a UUID: the id of the charger the vehicle charges at' });
  // Nothing else is read from it, so anything else is a mistake (a misspelt chargerId, say).
  for (const key of Object.keys(binding)) {
    if (key !== 'type' && key !== 'chargerId') problems.push({ field: key, message: 'is not a known field of a charger binding (it has type and chargerId)' });
  }
  return problems;
}
