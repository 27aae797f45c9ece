// One catalog of error codes: status and message shape. Handlers throw ApiError; onError renders it.
import type { DeviceKind } from '../domain/vocabulary.ts';
import { KIND_LABEL, KIND_TAG } from '../domain/vocabulary.ts';

export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  BATTERY_NOT_FOUND: 404,
  CHARGER_NOT_FOUND: 404,
  HVAC_NOT_FOUND: 404,
  PV_INVERTER_NOT_FOUND: 404,
  TARIFF_NOT_FOUND: 404,
  VEHICLE_NOT_FOUND: 404,
  METER_NOT_FOUND: 404,
  DEVICE_IMAGE_NOT_FOUND: 404,
  HVAC_SCHEDULES_NOT_AVAILABLE: 404,
  METHOD_NOT_ALLOWED: 405,
  TELEMATICS_NOT_SUPPORTED: 405,
  PAYLOAD_TOO_LARGE: 413,
  EXPECTATION_FAILED: 417,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
  DEVICE_IS_DISCONNECTED: 503,
  STORAGE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

const DEFAULT_MESSAGE: Partial<Record<ErrorCode, string>> = {
  BAD_REQUEST: 'Bad request',
  UNAUTHORIZED: 'Unauthorized',
  FORBIDDEN: 'Forbidden',
  NOT_FOUND: 'Not found',
  DEVICE_IMAGE_NOT_FOUND: 'Device image not found',
  METHOD_NOT_ALLOWED: 'Method not allowed',
  TELEMATICS_NOT_SUPPORTED: 'This hub cannot connect this vehicle vendor',
  PAYLOAD_TOO_LARGE: 'Payload too large',
  UNSUPPORTED_MEDIA_TYPE: 'Unsupported media type',
  EXPECTATION_FAILED: 'Expectation failed',
  TOO_MANY_REQUESTS: 'Too many requests',
  INTERNAL_SERVER_ERROR: 'Internal server error',
  DEVICE_IS_DISCONNECTED: 'Device is disconnected',
  STORAGE_UNAVAILABLE: 'The hub cannot store writes now; try again later',
};

import type { ValidationError } from '../domain/validation.ts';
import type { StorageUnavailable } from '../store/storage-fault.ts';
export type { ValidationError };

export class ApiError extends Error {
  readonly status: ErrorStatus;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly validationErrors?: ValidationError[],
    headers: Record<string, string> = {},
  ) {
    super(message ?? DEFAULT_MESSAGE[code] ?? code);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
    this.headers = headers;
  }
}

/** `[BATTERY] Battery <id> not found`, with the kind's error code. */
export function notFound(kind: DeviceKind, id: string): ApiError {
  const tag = KIND_TAG[kind];
  return new ApiError(`${tag}_NOT_FOUND` as ErrorCode, `[${tag}] ${KIND_LABEL[kind]} ${id} not found`);
}

export function badRequest(validationErrors: ValidationError[]): ApiError {
  return new ApiError('BAD_REQUEST', 'Bad request', validationErrors);
}

/**
 * A write the hub could not store (the card is full or read-only): 503 with Retry-After, and a
 * message that says which. Nothing was acknowledged (decisions.md §5).
 */
export function storageUnavailable(err: StorageUnavailable): ApiError {
  return new ApiError('STORAGE_UNAVAILABLE', err.message, undefined, { 'Retry-After': String(err.retryAfterSeconds) });
}

/** 503 for a device the hub cannot reach now; `reason` (the driver's words: "the token expired on …") tells why. */
export function disconnected(kind: DeviceKind, id: string, reason?: string): ApiError {
  const why = reason ? `: ${reason}` : '';
  return new ApiError('DEVICE_IS_DISCONNECTED', `[${KIND_TAG[kind]}] ${KIND_LABEL[kind]} ${id} is disconnected${why}`.slice(0, 500));
}
