// The CALLERROR codes of OCPP-J 1.6 (§4.2.3), and the translation of those ocpp-rpc answers
// malformed frames with. The library writes OCPP 2.0.1 codes (RpcFrameworkError,
// MessageTypeNotSupported, OccurrenceConstraintViolation, FormatViolation) whatever the
// subprotocol; a 1.6 charger knows only these ten, spelled as the 1.6 text spells them
// (FormationViolation and OccurenceConstraintViolation, as ocpp-rpc itself keeps the first for 1.6,
// lib/client.js, and mobilityhouse/ocpp spells the second, ocpp/exceptions.py).
export const OCPP16_ERROR_CODES = [
  'NotImplemented', 'NotSupported', 'InternalError', 'ProtocolError', 'SecurityError', 'FormationViolation',
  'PropertyConstraintViolation', 'OccurenceConstraintViolation', 'TypeConstraintViolation', 'GenericError',
] as const;
export type Ocpp16ErrorCode = (typeof OCPP16_ERROR_CODES)[number];

const KNOWN = new Set<string>(OCPP16_ERROR_CODES);

/**
 * The 1.6 code for a code ocpp-rpc chose. Its RpcFrameworkError covers a frame that is not JSON
 * (syntactically incorrect: FormationViolation) and one that is JSON but not a CALL, CALLRESULT or
 * CALLERROR array with a string id (ProtocolError, as mobilityhouse/ocpp answers a frame that is not
 * a list or lacks elements, ocpp/messages.py `unpack`); an unknown MessageTypeId is a field with an
 * invalid value (PropertyConstraintViolation, the same library's answer).
 */
export function ocpp16ErrorCode(code: string, description: string): Ocpp16ErrorCode {
  if (KNOWN.has(code)) return code as Ocpp16ErrorCode;
  switch (code) {
    case 'RpcFrameworkError':
      return /JSON/.test(description) ? 'FormationViolation' : 'ProtocolError';
    case 'FormatViolation':
      return 'FormationViolation';
    case 'OccurrenceConstraintViolation':
      return 'OccurenceConstraintViolation';
    case 'MessageTypeNotSupported':
      return 'PropertyConstraintViolation';
    default:
      return 'GenericError';
  }
}

/** An outgoing frame with a CALLERROR's code put in OCPP 1.6 terms; any other frame as it was. */
export function ocpp16Frame(frame: string): string {
  // The library writes frames with JSON.stringify: a CALLERROR starts with `[4,`.
  if (!frame.startsWith('[4,')) return frame;
  let parsed: unknown;
  try {
    parsed = JSON.parse(frame);
  } catch {
    return frame;
  }
  if (!Array.isArray(parsed) || typeof parsed[2] !== 'string') return frame;
  const code = ocpp16ErrorCode(parsed[2], String(parsed[3] ?? ''));
  if (code === parsed[2]) return frame;
  parsed[2] = code;
  return JSON.stringify(parsed);
}
