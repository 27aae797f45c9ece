// The composition root: opens the store, builds the API and the runtime, starts them in order and
// stops them in reverse. Nothing here is a singleton; tests build as many hubs as they like.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { Config } from './config.ts';
import { databasePath, relayUrlWarning } from './config.ts';
import { Store } from './store/store.ts';
import { damagedDatabaseRefusal } from './store/db.ts';
import { DataDirInUse, DataDirLock, runningHub } from './store/data-dir-lock.ts';
import { openWhenThereIsSpace, type SpaceAtStartSettings } from './store/space-at-start.ts';
import { createApp, type HubApp } from './api/app.ts';
import { builtInBindingDefaults } from './binding-defaults.ts';
import { DEFAULT_API_SETTINGS, type ApiDeps, type StartedAs } from './api/deps.ts';
import { createHubServer } from './api/http-server.ts';
import { answerOnSocket } from './api/client-errors.ts';
import type { Logger } from './log.ts';
import { formatTimestamp, monotonicMs, systemClock, type Clock } from './domain/time.ts';
import { VendorCatalog } from './domain/vendors.ts';
import { storedStateRuntime, type Runtime } from './runtime/devices/live.ts';
import { HealthMonitor } from './runtime/observability/health.ts';
import { MetricsRegistry } from './runtime/observability/metrics.ts';
import { Relay } from './runtime/relay/relay.ts';
import { HubEvents } from './runtime/events/hub-events.ts';
import { DeviceWatcher } from './runtime/events/device-watcher.ts';
import { TariffLedger } from './runtime/household/tariff-ledger.ts';
import { HouseholdSeries } from './runtime/household/household-series.ts';
import { DeviceSightings } from './runtime/household/device-sightings.ts';
import { EventPublisher } from './runtime/events/event-publisher.ts';
import { CommandWorker } from './runtime/commands/command-worker.ts';
import { HubSchedules } from './runtime/commands/hub-schedules.ts';
import { HubRuntime } from './runtime/hub-runtime.ts';
import { BrokerLink } from './transport/broker-link.ts';
import { redactUrl } from './transport/mqtt-connection.ts';
import { applyConfiguredDevices } from './configured-devices.ts';
import { brokerUrlForDevices, isLoopbackHost } from './domain/device-address.ts';
import { watchClock, watchCommands, watchMqtt } from './runtime/observability/runtime-metrics.ts';
import { AuthFailures } from './runtime/auth-failures.ts';
import { ClockWatch } from './runtime/clock/clock-watch.ts';
import { releaseFloorMs } from './runtime/clock/clock-floor.ts';
import { restampWhenTrusted } from './runtime/clock/clock-restamp.ts';
import { newestStoredTime } from './store/newest-time.ts';
import { combinedProber, type ChargerProber } from './runtime/devices/pairing-prober.ts';
import { combinedDeviceProber } from './runtime/devices/device-prober.ts';
import { HaTopics } from './runtime/home-assistant/discovery.ts';
import { HomeAssistantBridge } from './runtime/home-assistant/home-assistant.ts';
import { HomeAssistantCleaner } from './runtime/home-assistant/ha-cleaner.ts';
import { hubOrigin } from './runtime/home-assistant/origin.ts';
import type { RunningFamily } from './runtime/families/driver-family.ts';
import { DRIVER_FAMILIES, ocppAddressForDevices } from './driver-families.ts';
import type { ModbusRuntime } from './runtime/modbus/modbus-runtime.ts';
import type { HttpRuntime } from './runtime/http/http-runtime.ts';
import type { MqttRuntime } from './runtime/mqtt/mqtt-runtime.ts';
import type { OcppRuntime } from './runtime/ocpp/ocpp-runtime.ts';

/** With the card low on space, telemetry is written at every this many intervals. */
const LOW_SPACE_TELEMETRY_STRIDE = 4;

/** How long requests in flight get to finish when the hub stops. */
const SERVER_CLOSE_GRACE_MS = 5000;

export interface DaemonOptions {
  config: Config;
  log: Logger;
  clock?: Clock;
  /**
   * Wall times before this are known to be wrong: by default the date of the release's own files
   * (src/runtime/clock/clock-floor.ts). A test that runs the hub on a day of its choosing gives 0.
   */
  releaseFloorMs?: number;
  /**
   * Called with the open store once the port is the hub's and before anything is driven or served
   * (the demo seeds its household here): a hub that cannot listen never gets this far.
   */
  beforeListen?: (store: Store) => void;
  /** How the hub was started (the page at / shows the matching commands); by default from how it runs. */
  startedAs?: StartedAs;
  /**
   * Called about once a second while a start waits for space on a full card (store/space-at-start.ts),
   * with what /health says: main.ts tells systemd (status line, watchdog).
   */
  waitingForSpace?: (problems: string[]) => void;
  spaceAtStart?: Partial<SpaceAtStartSettings>;
}

/**
 * Compiled JavaScript is what install.sh puts under /opt (its admin command: sudo home-energy-hub);
 * TypeScript through tsx is a checkout (npm start, npm run hub -- …).
 */
function startedAsOf(moduleUrl: string): StartedAs {
  return moduleUrl.endsWith('.js') ? 'installed' : 'checkout';
}

export class Daemon {
  private store: Store | undefined;
  private server: Server | undefined;
  private hubApp: HubApp | undefined;
  readonly vendors = new VendorCatalog();
  readonly metrics = new MetricsRegistry();
  private health: HealthMonitor | undefined;
  private telemetryTimer: NodeJS.Timeout | undefined;
  private relay: Relay | undefined;
  /** This hub's hold on its data directory, from before the store opens until it closes. */
  private lock: DataDirLock | undefined;
  /** While a start waits for space on a full card: what /health says (every request is answered 503). */
  private waiting: string[] | undefined;
  /** Ends a start's wait for space when the hub is stopped. */
  private readonly stopped = new AbortController();

  /** Whether the hub is really healthy (asked by /health and the systemd watchdog). */
  get healthMonitor(): HealthMonitor {
    if (!this.health) throw new Error('daemon not started');
    return this.health;
  }
  runtime: Runtime = storedStateRuntime;
  /** The driver families built on the open store (DRIVER_FAMILIES), in their order. */
  private families: RunningFamily[] = [];

  private familyRuntime(name: string): unknown {
    return this.families.find((family) => family.name === name)?.runtime;
  }

  /** Polls devices with Modbus driver bindings; answers refreshes for them. */
  get modbus(): ModbusRuntime | undefined {
    return this.familyRuntime('modbus') as ModbusRuntime | undefined;
  }
  /** Drives devices with MQTT driver bindings, when a broker is configured. */
  get mqtt(): MqttRuntime | undefined {
    return this.familyRuntime('mqtt') as MqttRuntime | undefined;
  }
  /** Polls devices with HTTP(S) driver bindings (Enphase, Powerwall, Daikin). */
  get http(): HttpRuntime | undefined {
    return this.familyRuntime('http') as HttpRuntime | undefined;
  }
  /** Chargers speaking OCPP 1.6J to the hub's endpoint, ws(s)://<hub>/ocpp/{chargePointId}. */
  get ocpp(): OcppRuntime | undefined {
    return this.familyRuntime('ocpp') as OcppRuntime | undefined;
  }
  /** The connection to the household broker (MQTT drivers and events). */
  broker: BrokerLink | undefined;
  worker: CommandWorker | undefined;
  /** Weekly programs the hub runs itself, for HVACs without a program of their own. */
  schedules: HubSchedules | undefined;
  /** Everything that happens, in process: state changes, devices, commands. */
  readonly events = new HubEvents();
  private watcher: DeviceWatcher | undefined;
  private tariffLedger: TariffLedger | undefined;
  /** The household's 5-minute curves. */
  householdSeries: HouseholdSeries | undefined;
  /** When the hub last heard from each device (the household page's "no answer since"). */
  private sightings: DeviceSightings | undefined;
  private publisher: EventPublisher | undefined;
  /** Home Assistant's MQTT discovery (homeAssistant.enabled), or the cleaner that takes it back. */
  homeAssistant: HomeAssistantBridge | undefined;
  private haCleaner: HomeAssistantCleaner | undefined;
  /** Notices steps of the wall clock (a gateway without a battery clock) for whatever depends on dates. */
  clockWatch: ClockWatch | undefined;

  constructor(private readonly options: DaemonOptions) {}

  /** The address the hub answers on, once started. */
  url = '';

  /** The cloud relay, when one is configured. */
  get relayLink(): Relay | undefined {
    return this.relay;
  }

  get config(): Config {
    return this.options.config;
  }

  get app(): HubApp {
    if (!this.hubApp) throw new Error('daemon not started');
    return this.hubApp;
  }

  get db(): Store {
    if (!this.store) throw new Error('daemon not started');
    return this.store;
  }

  async start(): Promise<void> {
    // The port first: a hub started while another runs on it must fail before it touches the store
    // (the demo revokes its previous key and rebinds its devices; declared devices are written).
    // Requests that arrive while the rest starts wait for the API.
    let handle: (request: Request, env: unknown) => Response | Promise<Response>;
    let ready!: () => void;
    const started = new Promise<void>((resolve) => { ready = resolve; });
    handle = async (request, env) => {
      if (this.waiting) return waitingAnswer(request, this.waiting);
      await started;
      return handle(request, env);
    };
    await this.listen((request, env) => handle(request, env));
    try {
      await this.startParts(this.server!);
    } catch (err) {
      // Requests that waited for a start that failed are not held until the forced close.
      handle = () => new Response(null, { status: 503, headers: { connection: 'close' } });
      ready();
      await this.stop().catch(() => {});
      // Damage past the header is found by the first read that reaches it: refused like damage
      // found at open (the file named, left unchanged, the way on; exit 3, not restarted).
      throw damagedDatabaseRefusal(databasePath(this.options.config), err) ?? err;
    }
    handle = this.app.app.fetch;
    ready();
    this.options.log.info({ url: this.url }, 'hub listening');
  }

  /** Binds the configured address; a clear error when another process has it. */
  private async listen(fetch: (request: Request, env: unknown) => Response | Promise<Response>): Promise<Server> {
    const { config, log } = this.options;
    const tls = config.http.tls;
    // node:https (and TLS under it) is loaded only when configured: about 2 MB of RSS otherwise.
    const https = tls ? { createServer: (await import('node:https')).createServer, cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) } : undefined;
    const server = createHubServer({
      fetch, log, https, bodyLimitBytes: config.http.bodyLimitBytes,
      countAnswer: (method, status) => this.hubApp?.countAnswer(method, status),
    });
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', (err: NodeJS.ErrnoException) => {
        const where = `${config.http.host}:${config.http.port}`;
        // A second hub needs a database of its own as well (data-dir-lock.ts): both are said.
        if (err.code === 'EADDRINUSE') {
          const next = config.http.port === 0 ? 8081 : config.http.port + 1;
          reject(new Error(`${where} is already in use (is another hub running? a second hub needs its own port and its own data directory: `
            + `HUB_HTTP_PORT=${next} HUB_DATA_DIR=data-${next})`));
        }
        else if (err.code === 'EACCES') reject(new Error(`not allowed to listen on ${where} (ports below 1024 need privileges)`));
        else if (err.code === 'EADDRNOTAVAIL') reject(new Error(`${config.http.host} is not an address of this machine`));
        else reject(err);
      });
      server.listen(config.http.port, config.http.host);
    });
    this.server = server;
    const address = server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.url = `${tls ? 'https' : 'http'}://${host}:${address.port}`;
    // Slow clients must not hold sockets forever on a small gateway.
    server.headersTimeout = 10_000;
    server.requestTimeout = 30_000;
    return server;
  }

  /** Devices' latest values live in memory and reach the database on an interval (see devices.ts). */
  private holdTelemetry(store: Store, intervalSeconds: number): void {
    store.devices.holdTelemetry = intervalSeconds > 0;
    store.householdSeries.hold = intervalSeconds > 0;
    if (intervalSeconds === 0) return;
    let ticks = 0;
    this.telemetryTimer = setInterval(() => {
      // A card low on space is written four times less often; one that takes no writes is written
      // once it does again (below), not at every tick.
      if (store.storage.lowOnSpace && ++ticks % LOW_SPACE_TELEMETRY_STRIDE !== 0) return;
      if (store.storage.writable) this.persistTelemetry(store);
    }, intervalSeconds * 1000);
    this.telemetryTimer.unref();
  }

  /** Writes the devices' latest values (`atStop`: with the stamps reads confirmed); a card that refuses keeps them in memory for later. */
  private persistTelemetry(store: Store, atStop = false): void {
    try {
      store.devices.persistLive(atStop);
      store.householdSeries.persist();
    } catch (err) {
      if (!store.storage.report(err)) {
        this.options.log.error({ err: { type: (err as Error).name, message: (err as Error).message } }, 'telemetry could not be written; kept for the next interval');
      }
    }
  }

  private async startParts(server: Server): Promise<void> {
    const { config, log } = this.options;
    const clock = this.options.clock ?? systemClock;
    // A hub that runs on this data directory is said at once, even while the card is full.
    const other = runningHub(config.dataDir);
    if (other && other.pid !== process.pid) throw new DataDirInUse(resolve(config.dataDir), other.pid);
    // On a full card the hub waits for space before it takes the directory and opens the store.
    const opened = await openWhenThereIsSpace(config.dataDir, () => {
      // Before the store is opened: a second hub on this data directory changes nothing in it.
      const lock = DataDirLock.acquire(config.dataDir, this.url);
      try {
        return { lock, store: Store.open(databasePath(config), { log }) };
      } catch (err) {
        lock.release();
        throw err;
      }
    }, {
      log: log.child({ url: this.url }),
      signal: this.stopped.signal,
      settings: this.options.spaceAtStart,
      waiting: (problems) => {
        this.waiting = problems;
        this.options.waitingForSpace?.(problems);
      },
    });
    this.waiting = undefined;
    this.lock = opened.lock;
    this.store = opened.store;
    this.store.storage.start(log, {
      lowSpaceBytes: config.storage.lowSpaceMegabytes * 1024 * 1024,
      lowSpacePercent: config.storage.lowSpacePercent,
    });
    this.holdTelemetry(this.store, config.telemetry.persistIntervalSeconds);
    // Before anything is stamped: a wall clock behind the release or the store's newest time is wrong.
    const releaseFloor = this.options.releaseFloorMs ?? releaseFloorMs();
    this.clockWatch = new ClockWatch(clock, { floorMs: Math.max(releaseFloor, newestStoredTime(this.store.db)) }, log.child({ part: 'clock' }));
    if (!this.clockWatch.trusted) log.warn({ now: formatTimestamp(clock.now()) }, 'the wall clock is not set yet: dates wait until it is');
    restampWhenTrusted(this.store, clock, this.clockWatch, log.child({ part: 'clock' }));
    if (config.apiKey) this.store.apiKeys.ensure('HUB_API_KEY', config.apiKey, clock.now());
    const declared = applyConfiguredDevices(this.store, config, clock.now(), log);
    if (config.devices.length > 0) log.info(declared, 'configured devices');
    this.options.beforeListen?.(this.store);
    const store = this.store;
    this.clockWatch.start();
    const clockWatch = this.clockWatch;
    const haTopics = new HaTopics(config.homeAssistant);
    if (config.mqtt) {
      const { events: _events, staleAfterSeconds: _staleAfterSeconds, deviceUrl: _deviceUrl, ...endpoint } = config.mqtt;
      // With Home Assistant's discovery, the broker tells Home Assistant the hub is gone when its
      // connection dies (the last will); a clean stop says so itself.
      const will = config.homeAssistant.enabled ? { topic: haTopics.hubStatus, payload: 'offline', qos: 1 as const, retain: true } : undefined;
      this.broker = new BrokerLink({ ...endpoint, will }, log.child({ part: 'broker' }));
    }
    const authFailures = new AuthFailures(() => config.http.authFailuresPerMinute);
    const settings = {
      ...DEFAULT_API_SETTINGS,
      publicUrl: '',
      bodyLimitBytes: config.http.bodyLimitBytes,
      authFailuresPerMinute: config.http.authFailuresPerMinute,
      commandTtlMs: config.commands.ttlSeconds * 1000,
      connectSessionTtlMs: config.connect.sessionTtlSeconds * 1000,
      startedAs: this.options.startedAs ?? startedAsOf(import.meta.url),
    };
    // Where devices on the home network reach the hub, known once it listens (pairing pages say so).
    let brokerForDevices: string | undefined;
    const ocppUrl = () => {
      const listening = this.url ? new URL(this.url) : undefined;
      return ocppAddressForDevices(settings.publicUrl || config.http.publicUrl || '', config.http.host, Number(listening?.port ?? config.http.port), Boolean(config.http.tls));
    };
    // Each family's makers become available vendors as it is built; driving starts further down.
    const context = { config, store, log, clock, clockWatch, events: this.events, vendors: this.vendors, broker: this.broker, authFailures, brokerForDevices: () => brokerForDevices, ocppUrl };
    for (const family of DRIVER_FAMILIES) {
      const running = family.build(context);
      if (running) this.families.push(running);
    }
    const mqtt = this.mqtt;
    if (mqtt && config.mqtt?.events.enabled) {
      // The worker is built below; a detail asks it only when an event is published.
      this.publisher = new EventPublisher(this.events, mqtt, config.mqtt.events.topicPrefix.replace(/\/+$/, ''), (device) => this.worker?.offers(device) ?? new Map());
      this.publisher.start();
    }
    const executors = this.families.map((family) => family.executor);
    const confirmTimeoutMs = config.commands.confirmTimeoutSeconds * 1000;
    // First in the worker's list: it takes the commands of the HVACs it runs a program for.
    this.schedules = new HubSchedules({ store, executors, clock, log, events: this.events, settings: { confirmTimeoutMs }, clockWatch });
    this.worker = new CommandWorker({
      store, executors: [this.schedules, ...executors], events: this.events, clock, log, settings: { confirmTimeoutMs },
    });
    this.watcher = new DeviceWatcher(store, this.events, clock);
    this.tariffLedger = new TariffLedger(store, this.events, clockWatch, clock);
    this.householdSeries = new HouseholdSeries({ store, events: this.events, clock, log, clockWatch });
    // Listening from before the drivers start, so that their first answers are seen.
    this.sightings = new DeviceSightings(this.events);
    this.sightings.start();
    if (config.homeAssistant.enabled && !this.broker) log.warn('homeAssistant is enabled but no MQTT broker is configured (mqtt.url): nothing is published');
    if (this.broker) {
      const haLog = log.child({ part: 'home-assistant' });
      if (config.homeAssistant.enabled) {
        const worker = this.worker;
        this.homeAssistant = new HomeAssistantBridge({
          store, link: this.broker, events: this.events, topics: haTopics, origin: hubOrigin(), log: haLog,
          offers: (device) => worker.offers(device),
          intake: { store, clock, clockWatch, log, ttlMs: config.commands.ttlSeconds * 1000, commandCreated: (command) => this.runtime.commandCreated(command) },
        });
      } else {
        this.haCleaner = new HomeAssistantCleaner(this.broker, haTopics, haLog);
      }
    }
    if (this.runtime === storedStateRuntime || this.runtime instanceof HubRuntime) {
      this.runtime = new HubRuntime({
        families: this.families.map((family) => family.runtime), brokerConfigured: Boolean(config.mqtt),
        worker: this.worker, watcher: this.watcher, schedules: this.schedules,
      });
    }
    for (const family of this.families) family.runtime.start();
    this.homeAssistant?.start();
    this.haCleaner?.start();
    this.broker?.start();
    this.watcher.start();
    this.tariffLedger.start();
    this.householdSeries.start();
    // A step of the wall clock moves the stored deadlines of PENDING commands (a time to live is not
    // used up by a step); their monotonic ones in memory do not move.
    const worker = this.worker;
    clockWatch.on('step', (step) => worker.clockStepped(step.stepMs));
    this.worker.start();
    // After the worker, which fails the SET_SCHEDULE commands a crash cut off (their programs go).
    this.schedules.start();

    const series = this.householdSeries;
    const sightings = this.sightings;
    const deps: ApiDeps = {
      store: this.store, log, clock, clockWatch, vendors: this.vendors, runtime: this.runtime, settings, authFailures,
      bindingDefaults: builtInBindingDefaults(),
      household: { events: this.events, flowsOf: (userId) => series.flowsOf(userId), seenAtOf: (deviceId) => sightings.seenAtMs(deviceId) },
    };
    // Chargers are paired through the families that pair them (over the broker, over OCPP).
    const probers: ChargerProber[] = this.families.flatMap((family) => (family.prober ? [family.prober] : []));
    if (probers.length > 0) deps.pairing = combinedProber(probers);
    // HVAC units, home-power devices and tariffs, through every family that reaches their makers.
    deps.devicePairing = combinedDeviceProber(this.families.flatMap((family) => (family.deviceProber ? [family.deviceProber] : [])));
    // Cars are connected through the family that logs in to their makers' clouds (one does).
    const connector = this.families.find((family) => family.connector)?.connector;
    if (connector) deps.vehicles = connector;
    this.health = new HealthMonitor(this.store.db, this.store.storage);
    this.health.start();
    this.health.watchClock(clockWatch);
    for (const family of this.families) family.watch?.(this.metrics, this.health, () => monotonicMs(clock));
    watchCommands(this.worker, this.metrics);
    watchClock(clockWatch, this.metrics);
    if (this.broker) watchMqtt(this.broker, this.publisher, this.metrics);
    this.hubApp = createApp(deps, { health: this.health, metrics: this.metrics });
    // WebSocket upgrades: a family's path (the OCPP endpoint's), and nothing else.
    server.on('upgrade', (request, socket, head) => {
      if (this.families.some((family) => family.handleUpgrade?.(request, socket, head))) return;
      this.hubApp?.countAnswer(request.method ?? 'GET', 404);
      answerOnSocket(socket, 'NOT_FOUND', `No WebSocket endpoint at ${String(request.url).split('?', 1)[0]}`.slice(0, 300), log, 'upgrade elsewhere than /ocpp/');
    });
    settings.publicUrl = (config.http.publicUrl ?? this.url).replace(/\/+$/, '');
    if (config.mqtt) {
      brokerForDevices = brokerUrlForDevices({
        brokerUrl: config.mqtt.url, deviceUrl: config.mqtt.deviceUrl, publicUrl: config.http.publicUrl, listenHost: config.http.host,
      });
      // Advice only where pairing is offered to the home network: a hub on loopback (the demo, a
      // hub behind a proxy without a public URL) serves this machine only, so it is debug there.
      if (!brokerForDevices) {
        log[isLoopbackHost(config.http.host) ? 'debug' : 'warn']({ broker: redactUrl(config.mqtt.url) },
          'the broker is on loopback and the hub knows no address of this gateway a device could use: pairing names no broker; set mqtt.deviceUrl (or http.publicUrl)');
      }
    }
    if (config.relay) {
      const plain = relayUrlWarning(config.relay.url);
      if (plain) log.warn({ relay: redactUrl(config.relay.url) }, plain);
      this.relay = new Relay({ ...config.relay, maxRequestBytes: config.http.bodyLimitBytes }, this.hubApp.app, log.child({ part: 'relay' }));
      this.relay.start();
    }
  }

  /** Ends a start that waits for space on a full card (the start then fails); a start under way otherwise goes on. */
  abortStart(): void {
    this.stopped.abort();
  }

  async stop(): Promise<void> {
    this.stopped.abort();
    this.waiting = undefined;
    await this.relay?.stop();
    this.relay = undefined;
    const server = this.server;
    this.server = undefined;
    // Chargers' WebSockets first: the server's close waits for every socket, upgraded ones too.
    for (const family of this.families) if (family.stopsBeforeServer) await family.runtime.stop();
    if (server) {
      // Requests in flight are answered; a keep-alive connection is closed as soon as it is idle
      // (not only those idle at the moment of closing), and none may hold the stop for long.
      await new Promise<void>((resolve) => {
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        const force = setTimeout(() => server.closeAllConnections(), SERVER_CLOSE_GRACE_MS);
        server.close(() => {
          clearInterval(sweep);
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
    }
    // Running commands and schedule events finish (or fail) while their drivers are still there.
    await this.schedules?.stop();
    this.schedules = undefined;
    await this.worker?.stop();
    this.watcher?.stop();
    this.tariffLedger?.stop();
    // Before the last telemetry write below, which takes the 5 minutes under way with it.
    this.householdSeries?.stop();
    this.sightings?.stop();
    this.health?.stop();
    this.clockWatch?.stop();
    for (const family of this.families) {
      // Logins in progress first: a login finishing now would add a car to a hub going down.
      family.connector?.stop();
      if (!family.stopsBeforeServer) await family.runtime.stop();
    }
    this.families = [];
    this.publisher?.stop();
    await this.homeAssistant?.stop();
    this.homeAssistant = undefined;
    this.haCleaner?.stop();
    this.haCleaner = undefined;
    await this.broker?.stop();
    this.broker = undefined;
    if (this.telemetryTimer) clearInterval(this.telemetryTimer);
    this.telemetryTimer = undefined;
    // The drivers' last values, written before the database closes (unless the card refuses them:
    // then they are lost, as at a power cut, and the hub still stops cleanly).
    if (this.store) this.persistTelemetry(this.store, true);
    this.store?.close();
    this.store = undefined;
    this.lock?.release();
    this.lock = undefined;
    this.options.log.info('hub stopped');
  }
}

/**
 * Answers while a start waits for space on a full card: /health says why (503, as a running hub on a
 * full card), every other request is 503 STORAGE_UNAVAILABLE with Retry-After (the database is not
 * open, so there is nothing to read either).
 */
function waitingAnswer(request: Request, problems: string[]): Response {
  if (new URL(request.url).pathname === '/health') {
    return Response.json({ status: 'down', problems }, { status: 503, headers: { 'cache-control': 'no-store' } });
  }
  const message = 'The hub\'s storage is full, so the hub has not opened its database yet; it does once space is freed on it. Try again later.';
  return Response.json({ errorCode: 'STORAGE_UNAVAILABLE', id: randomUUID(), message }, { status: 503, headers: { 'retry-after': '5' } });
}
