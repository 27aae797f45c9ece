// Structured logs (pino). Nothing secret is ever passed to a log call; the redaction is a second
// line of defence for headers, keys and device secrets should an object carrying them slip through
// (pino's paths name fields, not patterns: the device secrets the drivers know, src/domain/secrets.ts).
import pino, { type Logger } from 'pino';
import { KNOWN_SECRET_SETTINGS } from './domain/secrets.ts';

const SECRET_FIELDS = ['key', ...KNOWN_SECRET_SETTINGS];

export type { Logger };

export function createLogger(level = process.env['HUB_LOG_LEVEL'] ?? 'info', destination?: pino.DestinationStream): Logger {
  return pino({
    level,
    base: { app: 'home-energy-hub' },
    redact: { paths: ['*.headers', 'headers', ...SECRET_FIELDS.flatMap((field) => [`*.${field}`, field])], censor: '[redacted]' },
    serializers: { err: (err: Error) => ({ type: err.name, message: err.message }) },
  }, destination);
}

/** A logger that writes nothing, for tests and CLI runs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
