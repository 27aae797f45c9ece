// The reference build the hub's read throughput is held to (issue 32): the first verified build,
// c3b534a. It is taken from this checkout's git history (`git archive`, no worktree left behind),
// built with its own tsconfig.build.json against the current node_modules (its dependencies are a
// subset of today's), and seeded with the same devices through its own `npm run hub -- import`: an
// older build refuses a database a newer one wrote. run.ts then measures it in the same alternating
// rounds as the current hub, against the same baseline, so "current / reference" is a ratio of two
// servers measured minutes apart on the same machine, never of figures from different days.
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand } from './processes.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The first verified build (README's bench figures of 2026-11-23). */
export const REFERENCE_COMMIT = 'c3b534a';

export interface ReferenceBuild {
  commit: string;
  /** The reference's source tree, its node_modules a link to the current one. */
  dir: string;
  /** Its built entry point, dist/src/main.js. */
  main: string;
}

export type Prepared = { build: ReferenceBuild } | { skipped: string } | { failed: string };

/**
 * Extracts and builds the reference into `work`/reference. Skipped (not failed) when the commit is
 * not in this checkout's history, as in a shallow clone: the bench measures the rest.
 */
export async function buildReference(work: string, commit = REFERENCE_COMMIT): Promise<Prepared> {
  const known = await runCommand('git', ['-C', ROOT, 'rev-parse', '--verify', '--quiet', `${commit}^{commit}`], { cwd: ROOT, env: process.env }).catch(() => undefined);
  if (!known || known.code !== 0) return { skipped: `${commit} is not in this checkout's git history (a shallow clone, or no git): the comparison with the reference build is left out` };
  const dir = join(work, 'reference');
  mkdirSync(dir, { recursive: true });
  const extracted = await runCommand('bash', ['-o', 'pipefail', '-c', 'git -C "$ROOT" archive "$COMMIT" | tar -x -C "$DIR"'], {
    cwd: ROOT, env: { ...process.env, ROOT, COMMIT: commit, DIR: dir },
  });
  if (extracted.code !== 0) return { failed: `git archive ${commit} failed (${extracted.code}): ${extracted.stderr.slice(0, 500)}` };
  if (!existsSync(join(dir, 'node_modules'))) symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const built = await runCommand(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', join(dir, 'dist')], { cwd: dir, env: process.env });
  const main = join(dir, 'dist', 'src', 'main.js');
  if (built.code !== 0 || !existsSync(main)) return { failed: `${commit}: tsc -p tsconfig.build.json failed (${built.code}): ${(built.stdout + built.stderr).slice(0, 1000)}` };
  return { build: { commit, dir, main } };
}

/** Imports `file` into `dataDir` with the reference's own CLI (`npm run hub -- import`). */
export async function importIntoReference(build: ReferenceBuild, file: string, dataDir: string): Promise<void> {
  const imported = await runCommand('npm', ['run', '--silent', 'hub', '--', 'import', file], { cwd: build.dir, env: { ...process.env, HUB_DATA_DIR: dataDir } });
  if (imported.code !== 0) throw new Error(`the reference's import failed (${imported.code}):\n${imported.stderr.slice(0, 1000)}${imported.stdout.slice(0, 1000)}`);
}
