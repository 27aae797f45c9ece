// What a device secret is, for every driver family and every place that must not show one: the
// export, `hub devices list`, binding identity and messages. A secret is a setting of a binding whose
// name says so: a password (a Powerwall's customer password, an OCPP charger's password or its
// hash), a token (an Envoy's owner token, a car's refresh token), a secret (a cloud application's
// client secret), an API key (Volvo's VCC API key) or a Daikin BRP072C's registered uuid, which
// works as its key. Definitions mark their secret settings (`secret: true`); a test holds every one
// of them, and none of their other settings, to this rule (test/domain/secrets.test.ts), so that
// one rule decides also for bindings no definition describes (a generic MQTT device's, a YAML file's).
import type { DriverBinding } from './device.ts';

const SECRET_NAME = /password|passphrase|secret|token|api-?key|uuid/i;

/**
 * The secret settings the drivers know by name, for what takes names, not a rule: the log's
 * redaction (src/log.ts). Each is a secret by the rule, and every definition's secret is here (tested).
 */
export const KNOWN_SECRET_SETTINGS = ['password', 'token', 'refreshToken', 'clientSecret', 'vccApiKey', 'apiKey', 'uuid', 'passphrase'] as const;

/** Whether a binding setting of this name holds a secret. */
export function isSecretSetting(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * Secrets good once: a car's OAuth refresh token is replaced by the maker at each use (BMW CarData,
 * Volvo), so a copy on another hub would log this one out, or be useless. Never exported, not
 * even encrypted: the hub that imports the car asks its owner for a new login.
 */
export function isSingleUseSecret(name: string): boolean {
  return name === 'refreshToken';
}

/** The binding split into what may be shown and its secrets. */
export function splitSecrets(binding: DriverBinding): { binding: DriverBinding; secrets: Record<string, unknown> } {
  const shown: Record<string, unknown> = {};
  const secrets: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(binding)) {
    if (name !== 'type' && isSecretSetting(name)) secrets[name] = value;
    else shown[name] = value;
  }
  return { binding: shown as DriverBinding, secrets };
}

/** The binding without its secrets, for a listing, a message or an export. */
export function withoutSecrets(binding: DriverBinding): DriverBinding {
  return splitSecrets(binding).binding;
}

/** JSON with object keys sorted, to compare two bindings whatever order their settings were written in. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'object' && v !== null && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v));
}
