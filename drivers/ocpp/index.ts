// OCPP makers' quirks, as data (src/runtime/ocpp/quirks.ts). A charger whose BootNotification
// vendor matches none of these runs with the generic definition.
import type { OcppQuirks } from '../../src/runtime/ocpp/quirks.ts';

export function builtInOcppDefinitions(): OcppQuirks[] {
  return [];
}
