// The built hub (compiled as `npm run build` compiles it, as installed) with its wall clock moved
// from outside, as NTP moves a gateway's: libfaketime preloaded with a timestamp file, re-read at
// every look at the clock (FAKETIME_NO_CACHE), and the monotonic clock left alone
// (FAKETIME_DONT_FAKE_MONOTONIC), so that only the wall clock steps. `setTo` writes a time into the file: the running hub's clock jumps there
// and runs on. Skip a test without libfaketime with skipWithout('libfaketime') (peers.ts, LIBFAKETIME).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LIBFAKETIME } from './peers.ts';
import { startHubProcess, type RunningHub } from './process.ts';

// The build's own output folder, not dist/: install.test.ts builds dist/ meanwhile (systemd/install.sh),
// and a hub loading files the other build is rewriting could fail for no fault of its own. Inside
// the checkout (ignored by git), so that node_modules and package.json are found upwards as from dist/.
const BUILD_DIR = '.test-artefacts/clock-step-build';
const BUILT_HUB = join(BUILD_DIR, 'src/main.js');

/** The newest modification time under a folder, in ms. */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/** Builds the hub (`npm run build`'s tsc and configuration) unless its build is newer than every source it is built from. */
export function ensureBuilt(): void {
  const built = existsSync(BUILT_HUB) ? statSync(BUILT_HUB).mtimeMs : 0;
  if (built > Math.max(newest('src'), newest('drivers'))) return;
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--outDir', BUILD_DIR], { stdio: 'inherit' });
}

/** libfaketime's absolute form: `@2026-11-20 08:00:00` (UTC here: the hub runs with TZ=UTC). */
function faketimeOf(ms: number): string {
  return `@${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}\n`;
}

export interface FakedClockHub extends RunningHub {
  /** Steps the hub's wall clock to `ms` (epoch); it runs on from there. */
  setTo(ms: number): void;
}

/** Starts the built hub with its wall clock at `startMs`; `timeFile` holds the faked time. */
export async function startFakedClockHub(env: Record<string, string>, timeFile: string, startMs: number): Promise<FakedClockHub> {
  ensureBuilt();
  const setTo = (ms: number) => writeFileSync(timeFile, faketimeOf(ms));
  setTo(startMs);
  const hub = await startHubProcess({
    ...env,
    TZ: 'UTC',
    LD_PRELOAD: LIBFAKETIME,
    FAKETIME_TIMESTAMP_FILE: timeFile,
    FAKETIME_NO_CACHE: '1',
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
  }, [], 30_000, BUILT_HUB);
  return { ...hub, setTo };
}
