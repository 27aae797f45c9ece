// The hub as src/main.ts runs it, with its clock set to HUB_TEST_NOW (an ISO time) when it starts and
// running on from there: a child process can be started just before a daylight-saving change or an
// event of a weekly program, and killed with SIGKILL. Logs go to stdout as JSON ("hub listening").
import { loadConfig } from '../../src/config.ts';
import { Daemon } from '../../src/daemon.ts';
import { createLogger } from '../../src/log.ts';
import { fdOutput } from '../../src/transport/log-output.ts';

const offsetMs = Date.parse(process.env['HUB_TEST_NOW'] ?? '') - Date.now();
if (!Number.isFinite(offsetMs)) throw new Error('HUB_TEST_NOW must be an ISO time');
const config = loadConfig();
const daemon = new Daemon({ config, log: createLogger(config.logLevel, fdOutput()), clock: { now: () => Date.now() + offsetMs }, releaseFloorMs: 0 });
await daemon.start();
const stop = () => {
  void daemon.stop().finally(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
