// Configuration: a YAML file (HUB_CONFIG) checked against a schema with defaults, then environment
// overrides. Every problem is reported at once, with its path and a plain reason.
import { accessSync, constants, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { configProblems, yamlProblem, ENV_FIELDS, type ConfigProblem } from './config-problems.ts';
import { configuredDeviceProblems } from './configured-devices.ts';
import { ConfigSchema, type Config } from './config-schema.ts';

export { ConfigSchema, LOG_LEVELS, type Config } from './config-schema.ts';

export class ConfigError extends Error {
  constructor(readonly problems: ConfigProblem[], source: string) {
    super(`${source}:\n${problems.map((p) => `  ${p.field}: ${p.message}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Reads HUB_CONFIG (if set), applies environment overrides, validates everything at once. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  let fileValues: Record<string, unknown> = {};
  const source = env['HUB_CONFIG'] ? resolve(env['HUB_CONFIG']) : 'configuration';
  if (env['HUB_CONFIG']) {
    let text: string;
    try {
      text = readFileSync(source, 'utf8');
    } catch (err) {
      throw new ConfigError([{ field: '(file)', message: `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` }], source);
    }
    try {
      fileValues = (parseYaml(text) ?? {}) as Record<string, unknown>;
    } catch (err) {
      throw new ConfigError([yamlProblem(err)], source);
    }
    if (typeof fileValues !== 'object' || Array.isArray(fileValues)) {
      throw new ConfigError([{ field: '(file)', message: 'must be a YAML mapping' }], source);
    }
  }
  const merged = structuredClone(fileValues) as Record<string, any>;
  const problems: ConfigProblem[] = [];
  const http = (merged['http'] ??= {});
  if (env['HUB_DATA_DIR']) merged['dataDir'] = env['HUB_DATA_DIR'];
  if (env['HUB_HTTP_HOST']) http['host'] = env['HUB_HTTP_HOST'];
  if (env['HUB_HTTP_PORT'] !== undefined && env['HUB_HTTP_PORT'] !== '') {
    if (/^\d+$/.test(env['HUB_HTTP_PORT'])) http['port'] = Number(env['HUB_HTTP_PORT']);
    else problems.push({ field: 'HUB_HTTP_PORT', message: 'must be a port number' });
  }
  if (env['HUB_PUBLIC_URL']) http['publicUrl'] = env['HUB_PUBLIC_URL'];
  if (env['HUB_MQTT_URL']) merged['mqtt'] = { ...(merged['mqtt'] ?? {}), url: env['HUB_MQTT_URL'] };
  if (env['HUB_MQTT_DEVICE_URL']) merged['mqtt'] = { ...(merged['mqtt'] ?? {}), deviceUrl: env['HUB_MQTT_DEVICE_URL'] };
  if (env['HUB_API_KEY']) merged['apiKey'] = env['HUB_API_KEY'];
  if (env['HUB_LOG_LEVEL']) merged['logLevel'] = env['HUB_LOG_LEVEL'];
  const fromEnv = new Set(Object.entries(ENV_FIELDS).filter(([, variable]) => env[variable]).map(([field]) => field));
  const result = ConfigSchema.safeParse(merged, { reportInput: true });
  if (!result.success) {
    problems.push(...configProblems(result.error.issues, fromEnv));
    problems.push(...devicesDespiteOtherProblems(merged, result.error.issues));
  } else {
    problems.push(...configuredDeviceProblems(result.data));
    problems.push(...unreadableFiles(result.data));
  }
  if (problems.length > 0 || !result.success) throw new ConfigError(problems, source);
  return result.data;
}

/**
 * Every file a setting names (certificates, keys, CAs) must be readable at start: a relay whose
 * caFile is missing looped on ENOENT at run time, while `config check` said OK.
 */
function unreadableFiles(config: Config): ConfigProblem[] {
  const files: Array<[string, string | undefined]> = [
    ['http.tls.certFile', config.http.tls?.certFile], ['http.tls.keyFile', config.http.tls?.keyFile],
    ['mqtt.caFile', config.mqtt?.caFile], ['mqtt.certFile', config.mqtt?.certFile], ['mqtt.keyFile', config.mqtt?.keyFile],
    ['relay.caFile', config.relay?.caFile], ['relay.certFile', config.relay?.certFile], ['relay.keyFile', config.relay?.keyFile],
    ...Object.entries(config.cloud).map(([maker, settings]): [string, string | undefined] => [`cloud.${maker}.caFile`, (settings as { caFile?: string } | undefined)?.caFile]),
  ];
  const problems: ConfigProblem[] = [];
  for (const [field, file] of files) {
    if (file === undefined) continue;
    try {
      accessSync(file, constants.R_OK);
    } catch (err) {
      problems.push({ field, message: `cannot be read: ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})` });
    }
  }
  return problems;
}

/**
 * The declared devices' own problems while other parts of the file have theirs, so that every
 * problem is reported at once: sections with problems fall back to their defaults, and devices
 * whose entries have problems are left out (their problems are already listed).
 */
function devicesDespiteOtherProblems(merged: Record<string, any>, issues: readonly z.core.$ZodIssue[]): ConfigProblem[] {
  if (!Array.isArray(merged['devices'])) return [];
  const broken = new Set(issues.map((issue) => issue.path[0]));
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(merged)) if (key !== 'devices' && !broken.has(key)) rest[key] = value;
  // A broker section with problems of its own still says a broker is meant.
  if (broken.has('mqtt') && merged['mqtt']) rest['mqtt'] = { url: 'mqtt://broker.invalid' };
  const base = ConfigSchema.safeParse(rest);
  if (!base.success) return [];
  const deviceSchema = ConfigSchema.shape.devices.unwrap().element;
  // Sparse: configuredDeviceProblems walks the entries that parsed, under their own indexes.
  const devices: Config['devices'] = [];
  merged['devices'].forEach((entry: unknown, index: number) => {
    const parsed = deviceSchema.safeParse(entry);
    if (parsed.success) devices[index] = parsed.data;
  });
  const problems = configuredDeviceProblems({ ...base.data, devices });
  // A bus the broken modbus section may well declare is not a problem of the device.
  return broken.has('modbus') ? problems.filter((p) => !p.field.endsWith('.driver.bus')) : problems;
}

export function databasePath(config: Config): string {
  return resolve(config.dataDir, 'hub.db');
}

/**
 * Why a relay URL is worth a warning, or undefined: over plain mqtt:// or ws:// every relayed call's
 * X-API-KEY and answer cross the internet readable by anyone on the way. Allowed (a relay on the
 * home network, a test bench), but never silently.
 */
export function relayUrlWarning(url: string): string | undefined {
  if (!/^(mqtt|ws):\/\//.test(url)) return undefined;
  return `relay.url ${url.split('://')[0]}:// is not encrypted: the API keys in every relayed request and every answer travel readable; use mqtts:// or wss://`;
}
