// OCPP makers' quirks, as data (src/runtime/ocpp/definition.ts), chosen by the chargePointVendor of a
// charger's BootNotification. A charger that matches none runs with the generic definition.
import type { OcppQuirks } from '../../src/runtime/ocpp/definition.ts';
import { easee } from './easee.ts';
import { zaptec } from './zaptec.ts';

export function builtInOcppDefinitions(): OcppQuirks[] {
  return [zaptec, easee];
}
