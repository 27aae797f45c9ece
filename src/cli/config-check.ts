import { ConfigError, loadConfig, relayUrlWarning } from '../config.ts';
import type { CliIo } from './io.ts';

/**
 * Where the data goes, and who says so: the file's default `data` is not where an installed hub
 * keeps it (its unit sets HUB_DATA_DIR=/var/lib/home-energy-hub).
 */
function dataDirSaid(dataDir: string, env: NodeJS.ProcessEnv): string {
  if (env['HUB_DATA_DIR']) return `${dataDir} (HUB_DATA_DIR)`;
  if (dataDir !== 'data') return dataDir;
  return 'data, relative to where the hub starts (the default; the installed unit sets HUB_DATA_DIR=/var/lib/home-energy-hub)';
}

/** `hub config check [FILE]`: the checks of a start, without starting; the file HUB_CONFIG names by default. */
export function runConfigCheck(args: string[], io: CliIo, env: NodeJS.ProcessEnv): number {
  const [action, given] = args;
  const file = given ?? env['HUB_CONFIG'];
  if (action !== 'check' || !file || args.length > 2) {
    io.err('usage: npm run hub -- config check [FILE]   (default: the file HUB_CONFIG names)');
    return 2;
  }
  try {
    const config = loadConfig({ ...env, HUB_CONFIG: file });
    io.out(`${file}: OK (listens on ${config.http.host}:${config.http.port}, data in ${dataDirSaid(config.dataDir, env)})`);
    // Not a problem for the demo (npm start brings its own broker), but an installed hub started
    // with this file publishes nothing.
    if (config.homeAssistant.enabled && !config.mqtt) {
      io.err('note: homeAssistant.enabled publishes through a broker: the demo (npm start) brings its own; an installed hub needs mqtt.url, or nothing reaches Home Assistant');
    }
    const relay = config.relay && relayUrlWarning(config.relay.url);
    if (relay) io.err(`warning: ${relay}`);
    return 0;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    io.err(`${err.problems.length} problem${err.problems.length === 1 ? '' : 's'} in ${err.message}`);
    // The exit code of a start refused for the same problems (main.ts).
    return 2;
  }
}
