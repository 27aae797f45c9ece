// What the partner's redirectUrl receives when the user leaves the pairing page: the outcome as
// query parameters appended to redirectUrl (its own query and fragment are kept; a parameter of the
// same name is replaced).
//
//   status=SUCCESS&chargerId=<uuid>           the charger was added for the session's userId
//   status=SUCCESS&vehicleId=<uuid>           the car was added (or, connected again, its login renewed)
//   status=SUCCESS&hvacId=<uuid>              an HVAC unit was added (or was this user's already)
//   status=SUCCESS&batteryId=<uuid>           a home-power device was added as a battery (likewise
//                 pvInverterId, meterId)      a PV inverter, a meter)
//   status=SUCCESS&tariffId=<uuid>            a tariff was added
//   status=CANCELLED                          the user pressed Cancel
//   status=FAILED&error=VENDOR_NOT_SUPPORTED  the hub cannot pair or connect this vendor (the user went back)
//   status=FAILED&error=SESSION_EXPIRED       the link had expired (the user went back)

export type PairingOutcome =
  | { status: 'SUCCESS'; chargerId: string }
  | { status: 'SUCCESS'; vehicleId: string }
  | { status: 'SUCCESS'; hvacId: string }
  | { status: 'SUCCESS'; batteryId: string }
  | { status: 'SUCCESS'; pvInverterId: string }
  | { status: 'SUCCESS'; meterId: string }
  | { status: 'SUCCESS'; tariffId: string }
  | { status: 'CANCELLED' }
  | { status: 'FAILED'; error: 'VENDOR_NOT_SUPPORTED' | 'SESSION_EXPIRED' };

/** Every parameter an outcome sets: a redirectUrl's own parameter of one of these names is replaced. */
const OUTCOME_PARAMETERS = ['status', 'chargerId', 'vehicleId', 'hvacId', 'batteryId', 'pvInverterId', 'meterId', 'tariffId', 'error'] as const;

/** The redirect's id parameter for a device of this kind (a charger's chargerId, a tariff's tariffId…). */
export function successOf(kind: 'charger' | 'vehicle' | 'hvac' | 'battery' | 'pvInverter' | 'meter' | 'tariff', id: string): PairingOutcome {
  return { status: 'SUCCESS', [`${kind}Id`]: id } as PairingOutcome;
}

export function outcomeUrl(redirectUrl: string, outcome: PairingOutcome): string {
  const url = new URL(redirectUrl);
  for (const name of OUTCOME_PARAMETERS) url.searchParams.delete(name);
  for (const [name, value] of Object.entries(outcome)) url.searchParams.set(name, value);
  return url.href;
}
