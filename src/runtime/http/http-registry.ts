// The registry of HTTP driver definitions: one per binding `type`, checked when registered (every
// rule reads an endpoint that exists), and how a binding becomes a device's target and settings.
import type { DriverBinding } from '../../domain/device.ts';
import { fingerprintOf, type HttpTarget, type PinnedCertificate } from '../../transport/http-device.ts';
import type { HttpDriverDefinition, HttpFieldRule } from './definition.ts';
import { DefinitionRegistry } from '../families/definition-registry.ts';

export class HttpDriverRegistry extends DefinitionRegistry<HttpDriverDefinition> {
  constructor(definitions: readonly HttpDriverDefinition[] = []) {
    super('HTTP ', checkDefinition, definitions);
  }
}

/** Where the binding's device answers: host, port, scheme and the accepted certificate. */
export function targetOf(definition: HttpDriverDefinition, binding: DriverBinding): HttpTarget {
  const host = binding['host'];
  if (typeof host !== 'string' || host === '') throw new Error(`driver ${definition.type}: the binding needs host (the device's address)`);
  const scheme = binding['scheme'] ?? definition.scheme;
  if (scheme !== 'http' && scheme !== 'https') throw new Error(`driver ${definition.type}: scheme must be http or https`);
  const port = binding['port'] ?? (scheme === 'https' ? 443 : 80);
  if (!Number.isInteger(port) || (port as number) < 1 || (port as number) > 65535) throw new Error('port must be 1-65535');
  return { scheme, host, port: port as number, pinned: pinnedOf(binding) };
}

/** The certificate the installer accepted, kept in the binding as `tls: { sha256, pem }`. */
export function pinnedOf(binding: DriverBinding): PinnedCertificate | undefined {
  const tls = binding['tls'];
  if (tls === null || typeof tls !== 'object') return undefined;
  const { sha256, pem } = tls as Record<string, unknown>;
  // Fingerprints are compared as Node shows them (upper-case hex); a file may give lower case.
  return typeof sha256 === 'string' && typeof pem === 'string' ? { sha256: sha256.toUpperCase(), pem } : undefined;
}

/** The binding's settings as text (defaults filled), refusing a missing required one. */
export function httpSettingsOf(definition: HttpDriverDefinition, binding: DriverBinding): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, spec] of Object.entries(definition.settings)) {
    const raw = binding[name] ?? spec.default;
    if (raw === undefined || raw === '') {
      if (spec.required) throw new Error(`driver ${definition.type}: setting "${name}" is required (${spec.description})`);
      continue;
    }
    const value = String(raw);
    const scheme = binding['scheme'] ?? definition.scheme;
    if (spec.scheme && binding[name] !== undefined && scheme !== spec.scheme) {
      throw new Error(`driver ${definition.type}: setting "${name}" applies over ${spec.scheme} only (${spec.description}); this device is reached over ${String(scheme)}`);
    }
    if (spec.pattern && !new RegExp(`^(?:${spec.pattern})$`).test(value)) {
      throw new Error(`driver ${definition.type}: setting "${name}" does not look right (${spec.description})`);
    }
    out[name] = value;
  }
  return out;
}

/**
 * Every problem of a binding the runtime could not use, for a configuration check: its target and
 * settings as above, the timing settings (positive whole milliseconds; the runtime would silently
 * use its defaults), and, for HTTPS, the pinned certificate the runtime needs to connect at all
 * (`tls: { sha256, pem }`, the fingerprint being the certificate's).
 */
export function httpBindingProblems(definition: HttpDriverDefinition, binding: DriverBinding): string[] {
  const problems: string[] = [];
  const where = `driver ${definition.type}`;
  let target: HttpTarget | undefined;
  try {
    target = targetOf(definition, binding);
  } catch (err) {
    problems.push((err as Error).message);
  }
  try {
    httpSettingsOf(definition, binding);
  } catch (err) {
    problems.push((err as Error).message);
  }
  for (const name of ['pollIntervalMs', 'timeoutMs']) {
    const value = binding[name];
    if (value !== undefined && !(Number.isInteger(value) && (value as number) > 0)) problems.push(`${where}: ${name} must be a whole number of milliseconds above 0`);
  }
  const tls = binding['tls'];
  if (tls !== undefined || target?.scheme === 'https') {
    const howTo = 'add the device once with `hub devices add` and copy its tls from `hub export`';
    const { sha256, pem } = (tls !== null && typeof tls === 'object' ? tls : {}) as Record<string, unknown>;
    if (typeof sha256 !== 'string' || typeof pem !== 'string') {
      problems.push(`${where}: HTTPS needs the device's certificate pinned as tls: { sha256, pem } (${howTo})`);
    } else {
      let actual: string | undefined;
      try {
        actual = fingerprintOf(pem);
      } catch {
        problems.push(`${where}: tls.pem is not a PEM certificate (${howTo})`);
      }
      if (actual !== undefined && actual.toUpperCase() !== sha256.toUpperCase()) {
        problems.push(`${where}: tls.sha256 is not the fingerprint of tls.pem (which is ${actual})`);
      }
    }
  }
  return problems;
}

/**
 * The secrets the device needs and the binding lacks (an Envoy's token, a Powerwall's password):
 * `hub export` leaves secrets out, so a device imported from one has none until they are given
 * again (`hub devices secret`).
 */
export function missingSecrets(definition: HttpDriverDefinition, binding: DriverBinding): string[] {
  return Object.entries(definition.settings)
    .filter(([name, spec]) => spec.secret && spec.required && (binding[name] === undefined || binding[name] === ''))
    .map(([name]) => name);
}

/** Why a device lacking these secrets is not read, and what gives them back; for listings, the API and the log. */
export function missingSecretsReason(deviceId: string, names: readonly string[]): string {
  const which = names.join(' and ');
  // Both ways to run the command: from a checkout, and on a hub installed as a service.
  const command = `devices secret ${deviceId} ${names[0]}`;
  return `no ${which} in its binding (an export leaves secrets out): give it with \`npm run hub -- ${command}\` (installed: \`sudo home-energy-hub ${command}\`)`;
}

function rulesOf(rules: Record<string, HttpFieldRule | readonly HttpFieldRule[]>): HttpFieldRule[] {
  return Object.values(rules).flatMap((r) => (Array.isArray(r) ? r : [r as HttpFieldRule]));
}

function checkDefinition(definition: HttpDriverDefinition): void {
  const where = `driver ${definition.type}`;
  for (const [kind, mapping] of Object.entries(definition.kinds)) {
    const fields = Object.keys(mapping!.fields);
    for (const rule of rulesOf({ ...mapping!.fields, ...mapping!.staticData })) {
      if ('from' in rule && !definition.endpoints[rule.from]) throw new Error(`${where}: ${kind} reads unknown endpoint ${rule.from}`);
      if ('sign' in rule && !fields.includes(rule.sign)) throw new Error(`${where}: ${kind} derives a sign from unknown field ${rule.sign}`);
    }
  }
  for (const [type, command] of Object.entries(definition.commands ?? {})) {
    if (command?.readFirst && !definition.endpoints[command.readFirst]) throw new Error(`${where}: command ${type} reads unknown endpoint ${command.readFirst}`);
  }
  if (definition.auth.scheme === 'bearer' || definition.auth.scheme === 'header') {
    if (!definition.settings[definition.auth.setting]) throw new Error(`${where}: authentication names unknown setting ${definition.auth.setting}`);
  }
}
