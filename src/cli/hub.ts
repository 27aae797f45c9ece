// The `hub` command (`npm run hub -- <command>`): administration that works whether or not the
// daemon runs (SQLite in WAL mode lets both open the database). Exit codes: 0 ok, 1 failed, 2 usage
// or configuration (as a refused start).
import { loadConfig, databasePath, ConfigError, type Config } from '../config.ts';
import { Store } from '../store/store.ts';
import { runKeys } from './keys.ts';
import { runImport } from './import.ts';
import { runImage } from './image.ts';
import { runExport } from './export.ts';
import { runBackup, runRestore } from './backup.ts';
import { runConfigCheck } from './config-check.ts';
import { runScan, SCAN_USAGE } from './scan.ts';
import { runDevices, DEVICES_USAGE } from './devices.ts';
import { runStatus } from './status.ts';
import type { CliIo } from './io.ts';
import { argumentsFrom, environmentFrom, typedIn } from './user-paths.ts';

export type { CliIo } from './io.ts';

const USAGE = () => `usage: npm run hub -- <command>

  keys create NAME [--user USER [--read-only]]
                            create an API key (shown once); names are unique; --user scopes it to
                            one household, --read-only lets it send no command and delete nothing
  keys list                 list keys (never their secrets), with their scope
  keys revoke ID|NAME       revoke one key
  import FILE [--update] [--passphrase-file F | --without-secrets]
                            import devices from a JSON file (all or nothing; --update to update
                            the devices the hub has already: same id, or same driver, address and kind);
                            an export with sealed secrets needs its passphrase (or --without-secrets)
  export FILE [--with-secrets [--passphrase-file F]]
                            write every device as an import file (- for stdout), without device
                            secrets; --with-secrets seals them with a passphrase (file or
                            HUB_EXPORT_PASSPHRASE). Moving the whole hub: backup and restore
  backup FILE               copy the database, secrets and all (safe while the hub runs; the
                            file is readable by its owner only)
  image set DEVICE_ID PNG   set the picture of a vehicle or an HVAC unit (served as its image.png)
  restore FILE              restore a backup into the database (stop the hub first)
  config check [FILE]       check a configuration file without starting (default: HUB_CONFIG)
  scan HOST[:PORT]|SERIAL   find devices at an address (below)
  devices add|list|remove|trust|secret   add a device found by scan, list, delete, re-pin,
                            give a secret again (below)
  status                    is the hub of this data directory running and healthy: what its /health
                            says (storage full or read-only, stalled pollers…) and the free space

${SCAN_USAGE}
${DEVICES_USAGE}

Environment: HUB_DATA_DIR (default data/, the demo's), HUB_CONFIG (a YAML file). Each command that
uses the database names it first (on stderr). On an installed hub: sudo home-energy-hub <command>.`;

/**
 * Which database a command works on, said before it does: without HUB_CONFIG and HUB_DATA_DIR it
 * is the demo's (data/hub.db of this checkout), which an installer meaning the installed hub's
 * database (/var/lib/home-energy-hub) must not change unawares.
 */
function sayDatabase(config: Config, env: NodeJS.ProcessEnv, io: CliIo): void {
  const path = databasePath(config);
  if (env['HUB_CONFIG'] === undefined && env['HUB_DATA_DIR'] === undefined) {
    io.err(`hub: database ${path}: the demo's (HUB_CONFIG and HUB_DATA_DIR are unset); an installed hub's is changed with: sudo home-energy-hub <command>`);
  } else {
    io.err(`hub: database ${path}`);
  }
}

export async function runHub(argv: string[], io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [command, ...args] = argv;
  if (!command || command === 'help' || command === '--help') {
    io.out(USAGE());
    return command ? 0 : 2;
  }
  if (command === 'config') return runConfigCheck(args, io, env);
  if (command === 'scan') return runScan(args, io);
  if (command === 'status') {
    try {
      return await runStatus(args, io, loadConfig(env).dataDir);
    } catch (err) {
      if (err instanceof ConfigError) {
        io.err(`configuration error in ${err.message}`);
        return 2;
      }
      throw err;
    }
  }
  if (command === 'devices') {
    try {
      const config = loadConfig(env);
      if (['add', 'list', 'remove', 'trust', 'secret'].includes(args[0] ?? '')) sayDatabase(config, env, io);
      return await runDevices(args, io, config.dataDir);
    } catch (err) {
      if (err instanceof ConfigError) {
        io.err(`configuration error in ${err.message}`);
        return 2;
      }
      throw err;
    }
  }
  const commands: Record<string, (store: Store, args: string[], io: CliIo, env: NodeJS.ProcessEnv) => number | Promise<number>> = {
    keys: runKeys,
    import: runImport,
    export: runExport,
    image: runImage,
    backup: runBackup,
    restore: runRestore,
  };
  const run = commands[command];
  if (!run) {
    io.err(`unknown command: ${command}\n\n${USAGE()}`);
    return 2;
  }
  let store: Store;
  try {
    const config = loadConfig(env);
    sayDatabase(config, env, io);
    store = Store.open(databasePath(config));
  } catch (err) {
    // A configuration the hub would refuse to start with is exit code 2, as for the hub (main.ts).
    if (err instanceof ConfigError) {
      io.err(`configuration error in ${err.message}`);
      return 2;
    }
    io.err(`cannot open the database: ${(err as Error).message}`);
    return 1;
  }
  try {
    return await run(store, args, io, env);
  } finally {
    store.close();
  }
}

const isMain = import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('/cli/hub.ts') || process.argv[1]?.endsWith('/cli/hub.js');
if (isMain) {
  const io: CliIo = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) };
  // Through `npm run hub --` from another directory: its files are meant from there.
  const cwd = typedIn(process.env, process.cwd());
  const argv = cwd ? argumentsFrom(process.argv.slice(2), cwd) : process.argv.slice(2);
  runHub(argv, io, cwd ? environmentFrom(process.env, cwd) : process.env).then((code) => process.exit(code), (err: Error) => {
    io.err(`hub: ${err.message}`);
    process.exit(1);
  });
}
