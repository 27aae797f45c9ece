// A hub process whose wall clock is moved from outside as NTP (or a fresh image's 1970) would: Debian's
// libfaketime preloaded, reading the time from a file at every call (FAKETIME_NO_CACHE), the monotonic
// clock left real (FAKETIME_DONT_FAKE_MONOTONIC: Node's timers and performance.now() run on). Rewriting
// the file steps the running process. Tests using it skip without the peer (skipWithout('libfaketime')).
import type { TestContext } from 'node:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIBFAKETIME } from './peers.ts';

export interface FakedClock {
  /** The environment that puts a child process on this clock. */
  env: Record<string, string>;
  /** Sets the process's wall clock to `iso` (a UTC time); it runs on from there. */
  set(iso: string): void;
}

export function fakedClock(t: TestContext, startIso: string): FakedClock {
  const dir = mkdtempSync(join(tmpdir(), 'hub-faketime-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'faketime');
  // libfaketime reads "@YYYY-MM-DD hh:mm:ss" as an absolute start in the process's zone: UTC here.
  const set = (iso: string) => writeFileSync(file, `@${new Date(iso).toISOString().slice(0, 19).replace('T', ' ')}\n`);
  set(startIso);
  return {
    env: { LD_PRELOAD: LIBFAKETIME, FAKETIME_TIMESTAMP_FILE: file, FAKETIME_NO_CACHE: '1', FAKETIME_DONT_FAKE_MONOTONIC: '1', TZ: 'UTC' },
    set,
  };
}
