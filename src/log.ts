// Structured logs (pino). Nothing secret is ever passed to a log call; the redaction is a second
// line of defence for headers and keys should an object carrying them slip through.
import pino, { type Logger } from 'pino';

export type { Logger };

export function createLogger(level = process.env['HUB_LOG_LEVEL'] ?? 'info', destination?: pino.DestinationStream): Logger {
  return pino({
    level,
    base: { app: 'home-energy-hub' },
    redact: { paths: ['*.headers', 'headers', '*.apiKey', 'apiKey', '*.key', 'key', '*.password', 'password'], censor: '[redacted]' },
    serializers: { err: (err: Error) => ({ type: err.name, message: err.message }) },
  }, destination);
}

/** A logger that writes nothing, for tests and CLI runs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
