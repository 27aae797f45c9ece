// Entry point: read the configuration, start the daemon, stop it cleanly on SIGINT/SIGTERM.
// `--demo` (npm start) seeds a demo household and prints a fresh key to try the API with.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { loadConfig, ConfigError, ConfigSchema } from './config.ts';
import { Daemon } from './daemon.ts';
import { createLogger } from './log.ts';
import { fdOutput } from './transport/log-output.ts';
import { seedDemo } from './demo/site.ts';
import { writeDemoHistory } from './demo/history.ts';
import { SystemdNotifier, watchdogIntervalMs } from './transport/systemd-notify.ts';
import { Watchdog } from './runtime/observability/watchdog.ts';
import { systemClock } from './domain/time.ts';
import { DatabaseRefusedError, NewerDatabaseError } from './store/db.ts';

/**
 * Exit status of a start refused for a database or card that needs the installer's hands (read-only,
 * damaged, foreign, newer than this hub): the unit's RestartPreventExitStatus keeps systemd from
 * starting it again and again, which would change nothing. 2 is a configuration error (config.ts).
 */
const EXIT_DATA_REFUSED = 3;

/** Stop must finish within systemd's TimeoutStopSec (30 s); past this the process exits anyway. */
const STOP_DEADLINE_MS = Number(process.env['HUB_STOP_DEADLINE_MS'] ?? 25_000);
/** How long a stop waits for log lines a slow reader has not taken yet. */
const LOG_FLUSH_MS = 1_000;

for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});

/** Set once a stop signal came: a start it cut short is no failure. */
let stopping = false;

async function main(): Promise<void> {
  const demo = process.argv.includes('--demo');
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`Configuration error in ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  // Logs and the banner go to stdout through an output that never blocks or crashes the hub when the
  // reader is gone or stalled; anything else that writes there (Node's own warnings) must not either.
  const output = fdOutput();
  // The demo starts quietly: its banner is what a demo user needs, and each simulated device's
  // arrival is no news. Warnings still show (a device gone offline, a command waiting for one);
  // HUB_LOG_LEVEL=info shows every event, as on an installed hub.
  // A configuration file for the demo (Home Assistant's recipe) keeps it quiet unless it names a level.
  const quietDemo = demo && process.env['HUB_LOG_LEVEL'] === undefined && !namesLogLevel(process.env['HUB_CONFIG']);
  const log = createLogger(quietDemo ? 'warn' : config.logLevel, output);
  let demoKey: string | undefined;
  // The demo's battery, PV inverters and meter are simulated Modbus devices on loopback ports; its
  // charger, car, heat pumps and tariff talk MQTT through a broker of its own, unless one is configured.
  // Both are loaded only for the demo: a hub without Modbus devices never loads modbus-serial.
  // All of them are parts of one household, whose balance they keep (src/sim/demo-household.ts).
  const demoHousehold = demo ? await import('./sim/demo-household.ts') : undefined;
  const household = demoHousehold?.createDemoHousehold();
  // Its last 48 hours are run first (nothing reads it live before), and recorded once the store is open.
  const past = household ? demoHousehold!.demoPast(household, Date.now()) : undefined;
  const simulators = demo ? await (await import('./sim/demo-sims.ts')).startDemoSimulators('127.0.0.1', household) : undefined;
  const demoMqttModule = demo && !config.mqtt ? await import('./sim/demo-mqtt.ts') : undefined;
  const demoMqtt = demoMqttModule ? await demoMqttModule.startDemoMqtt(demoMqttModule.demoMqttListen(process.env['HUB_DEMO_MQTT_LISTEN']), household) : undefined;
  // The demo's embedded broker (aedes) speaks MQTT 3.1.1: no attempt at 5 to be refused and logged.
  if (demoMqtt) config = { ...config, mqtt: ConfigSchema.shape.mqtt.unwrap().parse({ url: demoMqtt.url, protocolVersion: 4 }) };
  // A Zaptec-like charger that speaks OCPP to the hub's own endpoint, once it listens.
  const demoOcpp = demo ? (await import('./sim/demo-ocpp.ts')).demoOcpp(household) : undefined;
  const notifier = SystemdNotifier.fromEnv();
  let saidReady = false;
  const daemon = new Daemon({
    config,
    log,
    ...(demo ? { startedAs: 'demo' as const } : {}),
    beforeListen: demo
      ? (store) => {
          const now = Date.now();
          const devices = seedDemo(store, now, { ...simulators?.bindings, ...demoMqtt?.bindings, zaptec: demoOcpp?.binding });
          if (past) writeDemoHistory(store, past, now, log);
          // By id: a data directory from before key names were unique may hold several.
          for (const k of store.apiKeys.list()) if (k.name === 'demo' && k.revokedAtMs === null) store.apiKeys.revoke(k.id, now);
          demoKey = store.apiKeys.create('demo', now).key;
          log.info({ devices }, 'demo household loaded');
        }
      : undefined,
    // A start waiting for space on a full card (store/space-at-start.ts) is up as far as systemd is
    // concerned: it listens and says what is wrong (status line, /health), and the watchdog is fed,
    // since a restart frees no space. Not ready, systemd would end it after TimeoutStartSec and start
    // it again, and `systemctl restart` would wait for the card.
    waitingForSpace: notifier
      ? (problems) => {
          notifier.notify(`${saidReady ? '' : 'READY=1\n'}STATUS=${problems.join('; ')}\nWATCHDOG=1`).catch(() => {});
          saidReady = true;
        }
      : undefined,
  });
  // Handled from the start on: a hub waiting for space on a full card is stopped like a running one;
  // any other start is let finish first, so that the stop finds what it stops.
  let watchdog: Watchdog | undefined;
  let started: Promise<void> | undefined;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    watchdog?.stop();
    const deadline = setTimeout(() => {
      log.error({ deadlineMs: STOP_DEADLINE_MS }, 'stop took too long: exiting');
      process.exit(1);
    }, STOP_DEADLINE_MS);
    deadline.unref();
    (notifier?.notify('STOPPING=1') ?? Promise.resolve())
      .catch(() => {})
      .then(() => demoOcpp?.stop())
      .then(() => {
        daemon.abortStart();
        return started?.catch(() => {});
      })
      .then(() => daemon.stop())
      .then(() => simulators?.stop())
      .then(() => demoMqtt?.stop())
      .then(() => output.flush(LOG_FLUSH_MS))
      .then(() => {
        notifier?.close();
        process.exit(0);
      }, (err: Error) => {
        log.error({ err }, 'stop failed');
        process.exit(1);
      });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  started = daemon.start();
  await started;
  // Told to stop while starting: the stop under way ends the process.
  if (stopping) return;
  await demoOcpp?.connect(daemon.url).catch((err: Error) => log.warn({ err }, 'demo: the OCPP charger could not connect'));
  if (notifier) {
    await notifier.notify(`READY=1\nSTATUS=listening on ${daemon.url}\nMAINPID=${process.pid}`);
    const periodMs = watchdogIntervalMs();
    if (periodMs && !stopping) {
      watchdog = new Watchdog(notifier, daemon.healthMonitor, periodMs, systemClock, log, `listening on ${daemon.url}`);
      watchdog.start();
    }
  }
  if (demoKey) {
    output.write(
      `\nhome-energy-hub is running at ${daemon.url}\n` +
      `  API key (shown once):  ${demoKey}\n` +
      `  try:  curl -H 'X-API-KEY: ${demoKey}' ${daemon.url}/v1.0.0/batteries\n` +
      `  the household page: ${daemon.url}/home (paste the key there)\n` +
      `  docs: ${daemon.url}/docs\n` +
      `  the demo's devices and their ids:  ${hubCommandFor(process.env)} devices list\n` +
      (quietDemo ? '  logs: warnings only (HUB_LOG_LEVEL=info npm start shows every event)\n' : '') +
      (config.homeAssistant.enabled && config.mqtt ? `  Home Assistant: point its MQTT integration at the broker ${config.mqtt.url} (docs/home-assistant.md)\n` : '') +
      '\n',
    );
  }
}

/** Whether the configuration file (already checked by loadConfig) sets logLevel itself. */
function namesLogLevel(file: string | undefined): boolean {
  if (!file) return false;
  const values = parseYaml(readFileSync(file, 'utf8')) as Record<string, unknown> | null;
  return typeof values === 'object' && values !== null && 'logLevel' in values;
}

/**
 * `npm run hub --` as it reaches this hub: with the data directory and configuration it was started
 * with (HUB_DATA_DIR=data-8081 npm start needs the same variable for its devices list).
 */
function hubCommandFor(env: NodeJS.ProcessEnv): string {
  const quoted = (value: string) => (/^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`);
  const vars = (['HUB_DATA_DIR', 'HUB_CONFIG'] as const).flatMap((name) => (env[name] ? [`${name}=${quoted(env[name]!)}`] : []));
  return [...vars, 'npm run hub --'].join(' ');
}

main().catch((err: Error) => {
  if (stopping) return;
  process.stderr.write(`home-energy-hub failed to start: ${err.message}\n`);
  process.exit(err instanceof DatabaseRefusedError || err instanceof NewerDatabaseError ? EXIT_DATA_REFUSED : 1);
});
