// What the partner's redirectUrl receives when the user leaves the pairing page: the outcome as
// query parameters appended to redirectUrl (its own query and fragment are kept; a parameter of the
// same name is replaced).
//
//   status=SUCCESS&chargerId=<uuid>           the charger was added for the session's userId
//   status=SUCCESS&vehicleId=<uuid>           the car was added (or, connected again, its login renewed)
//   status=CANCELLED                          the user pressed Cancel
//   status=FAILED&error=VENDOR_NOT_SUPPORTED  the hub cannot pair or connect this vendor (the user went back)
//   status=FAILED&error=SESSION_EXPIRED       the link had expired (the user went back)

export type PairingOutcome =
  | { status: 'SUCCESS'; chargerId: string }
  | { status: 'SUCCESS'; vehicleId: string }
  | { status: 'CANCELLED' }
  | { status: 'FAILED'; error: 'VENDOR_NOT_SUPPORTED' | 'SESSION_EXPIRED' };

export function outcomeUrl(redirectUrl: string, outcome: PairingOutcome): string {
  const url = new URL(redirectUrl);
  for (const name of ['status', 'chargerId', 'vehicleId', 'error'] as const) url.searchParams.delete(name);
  for (const [name, value] of Object.entries(outcome)) url.searchParams.set(name, value);
  return url.href;
}
