// The configuration's schema (the YAML file's shape, with defaults) and the Config type it gives.
// Its own file so that config.ts (loading) and configured-devices.ts (the devices it declares) both
// import it without importing each other.
import { z } from 'zod';
import { DEVICE_KINDS, HVAC_TYPES } from './domain/vocabulary.ts';
import { isLoopbackHost } from './domain/device-address.ts';
import { HvacStaticData, VehicleStaticData } from './domain/schemas.ts';

/** Static fields an installer may declare for a device, with the API's own validation. */
const DECLARED_STATIC = {
  vin: VehicleStaticData.shape.vin,
  engineType: VehicleStaticData.shape.engineType,
  batteryCapacity: VehicleStaticData.shape.batteryCapacity,
  vehicleVariant: VehicleStaticData.shape.vehicleVariant,
  room: HvacStaticData.shape.room,
};

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
  /**
   * The makers' clouds cars are read from (docs/drivers-cloud.md). The endpoints are BMW's own by default;
   * they are settings so that a test (or a proxy) can stand in. caFile: a CA to trust instead of the
   * public ones.
   */
  cloud: z.strictObject({
    bmwCardata: z.strictObject({
      authUrl: z.url({ protocol: /^https$/, error: 'must be an https URL' }).default('https://customer.bmwgroup.com'),
      apiUrl: z.url({ protocol: /^https$/, error: 'must be an https URL' }).default('https://api-cardata.bmwgroup.com'),
      streamUrl: z.string().regex(/^mqtts:\/\/[^/]+/, 'must be an mqtts:// URL').default('mqtts://customer.streaming-cardata.bmwgroup.com:9000'),
      caFile: z.string().optional(),
    }).prefault({}),
    volvo: z.strictObject({
      authUrl: z.url({ protocol: /^https$/, error: 'must be an https URL' }).default('https://volvoid.eu.volvocars.com'),
      apiUrl: z.url({ protocol: /^https$/, error: 'must be an https URL' }).default('https://api.volvocars.com'),
      caFile: z.string().optional(),
    }).prefault({}),
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
  /**
   * The data file system (an SD card): below `lowSpaceMegabytes` free, or below `lowSpacePercent`
   * of its size when that is smaller, the hub warns (log, /health, /metrics) and writes telemetry
   * four times less often (docs/durability.md).
   */
  storage: z.strictObject({
    lowSpaceMegabytes: z.number().min(0).default(50),
    lowSpacePercent: z.number().min(0).max(100).default(5),
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
    /** Static data the device does not tell (vehicles: vin, engineType, batteryCapacity, vehicleVariant; HVACs: room). */
    ...DECLARED_STATIC,
    locationId: z.uuid().optional(),
    /** The driver binding: `type` plus its settings; Modbus RTU devices name a `bus`. */
    driver: z.looseObject({ type: z.string().min(1), bus: z.string().optional() }),
  })).default([]),
  apiKey: z.string().min(24, 'must be at least 24 characters long').optional(),
  /** The levels the documentation lists (pino has fatal and trace besides; neither is needed here). */
  logLevel: z.enum(LOG_LEVELS).default('info'),
});

export type Config = z.output<typeof ConfigSchema>;
