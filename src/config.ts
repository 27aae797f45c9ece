// Configuration: a YAML file (HUB_CONFIG) checked against a schema with defaults, then environment
// overrides. Every problem is reported at once, with its path and a plain reason.
import { accessSync, constants, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { configProblems, yamlProblem, ENV_FIELDS, type ConfigProblem } from './config-problems.ts';
import { DEVICE_KINDS, HVAC_TYPES } from './domain/vocabulary.ts';
import { configuredDeviceProblems } from './configured-devices.ts';
import { isLoopbackHost } from './domain/device-address.ts';

const Port = z.int().min(0).max(65535);

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;

export const ConfigSchema = z.strictObject({
  dataDir: z.string().min(1).default('data'),
  http: z.strictObject({
    host: z.string().min(1).default('127.0.0.1'),
    port: Port.default(8080),
    /** How clients reach the hub (pairing URLs, logo URLs); by default the listening address. */
    publicUrl: z.url({ protocol: /^https?$/, error: 'must be an absolute http or https URL' }).optional(),
    bodyLimitBytes: z.int().min(1024).max(16 * 1024 * 1024).default(64 * 1024),
    /** HTTPS instead of HTTP: PEM files of the hub's certificate (with its chain) and key. */
    tls: z.strictObject({ certFile: z.string().min(1), keyFile: z.string().min(1) }).optional(),
    authFailuresPerMinute: z.int().min(1).default(30),
  }).prefault({}),
  commands: z.strictObject({
    ttlSeconds: z.int().min(1).max(7 * 24 * 3600).default(900),
    /** Longest wait for a device to confirm a command it was sent. */
    confirmTimeoutSeconds: z.int().min(1).max(3600).default(30),
  }).prefault({}),
  /** The household's MQTT broker: MQTT drivers listen and command through it, events go out on it. */
  mqtt: z.strictObject({
    url: z.string().regex(/^(mqtts?|wss?):\/\/[^/]+/, 'must be an mqtt://, mqtts://, ws:// or wss:// URL'),
    /**
     * The same broker as devices on the home network reach it (what pairing tells a charger). By
     * default `url`, or, when that is a loopback address, the gateway's address from http.publicUrl
     * or http.host with the broker's port.
     */
    deviceUrl: z.string().regex(/^(mqtts?|wss?):\/\/[^/]+/, 'must be an mqtt://, mqtts://, ws:// or wss:// URL')
      .refine((url) => !isLoopbackHost(new URL(url).hostname), 'is a loopback address, which on a device means the device itself: give the gateway\'s address on the home network')
      .optional(),
    clientId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, - or _').optional(),
    username: z.string().optional(),
    password: z.string().optional(),
    caFile: z.string().optional(),
    certFile: z.string().optional(),
    keyFile: z.string().optional(),
    /** 5 (default) falls back to 3.1.1 when the broker only speaks that; 4 forces 3.1.1. */
    protocolVersion: z.union([z.literal(4), z.literal(5)]).optional(),
    /** Silence after which a device whose bridge has no last will is shown offline. */
    staleAfterSeconds: z.int().min(5).max(24 * 3600).default(300),
    events: z.strictObject({
      enabled: z.boolean().default(true),
      topicPrefix: z.string().regex(/^[^#+]+$/, 'must not contain MQTT wildcards').default('home-energy-hub/events'),
    }).prefault({}),
  }).optional(),
  /**
   * Home Assistant's MQTT discovery on the household broker (docs/home-assistant.md): every device
   * appears in Home Assistant, its state follows, and what it can do is commanded through the hub.
   * Off: what an earlier run published under `discoveryPrefix`/…/`nodeId` is removed.
   */
  homeAssistant: z.strictObject({
    enabled: z.boolean().default(false),
    /** Home Assistant's `discovery_prefix` (its MQTT integration's setting; homeassistant by default). */
    discoveryPrefix: z.string().regex(/^[^#+\s/][^#+\s]*$/, 'must be a topic without MQTT wildcards, spaces or a leading /').default('homeassistant'),
    /** The `node_id` of the discovery topics; tells two hubs on one broker apart. */
    nodeId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, - or _').default('home_energy_hub'),
    /** Where the hub publishes states and availability and listens for Home Assistant's commands. */
    topicPrefix: z.string().regex(/^[^#+\s/][^#+\s]*$/, 'must be a topic without MQTT wildcards, spaces or a leading /').default('home-energy-hub/ha'),
  }).prefault({}),
  connect: z.strictObject({
    sessionTtlSeconds: z.int().min(30).max(24 * 3600).default(900),
  }).prefault({}),
  /**
   * Devices' latest values are kept in memory and written to the database every
   * `persistIntervalSeconds` (and at a clean stop, and when a device goes offline or comes back): a
   * power cut loses at most that much telemetry, and the SD card is spared a write per poll. 0 writes
   * every change at once.
   */
  telemetry: z.strictObject({
    persistIntervalSeconds: z.int().min(0).max(24 * 3600).default(300),
  }).prefault({}),
  /** The cloud relay: an outbound MQTT 5 connection (TLS) through which partner calls arrive. */
  relay: z.strictObject({
    url: z.string().regex(/^(mqtts?|wss?):\/\/[^/]+/, 'must be an mqtt://, mqtts://, ws:// or wss:// URL'),
    hubId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, - or _'),
    topicPrefix: z.string().regex(/^[^#+]+$/, 'must not contain MQTT wildcards').default('home-energy-hub/relay'),
    username: z.string().optional(),
    password: z.string().optional(),
    caFile: z.string().optional(),
    certFile: z.string().optional(),
    keyFile: z.string().optional(),
    requestTimeoutMs: z.int().min(100).max(120_000).default(15_000),
    maxInFlight: z.int().min(1).max(100).default(8),
    maxResponseBytes: z.int().min(1024).default(4 * 1024 * 1024),
  }).optional(),
  /** Serial buses (RS-485) shared by Modbus RTU devices, by name. */
  modbus: z.strictObject({
    buses: z.record(z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'bus names are 1 to 32 letters, digits, - or _'), z.strictObject({
      serialPort: z.string().min(1),
      baudRate: z.int().min(300).max(921_600).default(9600),
      parity: z.enum(['none', 'even', 'odd']).default('none'),
      stopBits: z.union([z.literal(1), z.literal(2)]).default(1),
      dataBits: z.union([z.literal(7), z.literal(8)]).default(8),
      /** Silence between requests some RS-485 devices need. */
      pauseBetweenMs: z.int().min(0).max(10_000).optional(),
    })).default({}),
  }).prefault({}),
  /** Devices the installer declares: added at start unless deleted through the API or the CLI. */
  devices: z.array(z.strictObject({
    /** A stable id; derived from kind, owner and address when absent. */
    id: z.uuid().optional(),
    kind: z.enum(DEVICE_KINDS),
    userId: z.string().min(1).max(50),
    vendor: z.string().min(1),
    name: z.string().max(200).optional(),
    model: z.string().max(200).optional(),
    /** HVAC only. */
    type: z.enum(HVAC_TYPES).optional(),
    locationId: z.uuid().optional(),
    /** The driver binding: `type` plus its settings; Modbus RTU devices name a `bus`. */
    driver: z.looseObject({ type: z.string().min(1), bus: z.string().optional() }),
  })).default([]),
  apiKey: z.string().min(24, 'must be at least 24 characters long').optional(),
  /** The levels the documentation lists (pino has fatal and trace besides; neither is needed here). */
  logLevel: z.enum(LOG_LEVELS).default('info'),
});

export type Config = z.output<typeof ConfigSchema>;

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
    for (const key of ['certFile', 'keyFile'] as const) {
      const file = result.data.http.tls?.[key];
      if (file === undefined) continue;
      try {
        accessSync(file, constants.R_OK);
      } catch (err) {
        problems.push({ field: `http.tls.${key}`, message: `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` });
      }
    }
  }
  if (problems.length > 0 || !result.success) throw new ConfigError(problems, source);
  return result.data;
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
