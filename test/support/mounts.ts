// Real storage faults for tests: a small tmpfs to fill, or a loop-mounted ext4 image with
// errors=remount-ro whose kernel error trigger turns it read-only. Each mount lives under a fresh
// temporary directory and is unmounted (lazily, so that files a hub still holds open never keep it)
// in t.after, which runs even when the test fails. Mounting needs root: elsewhere the test is skipped
// with the reason named; under CI=true (root there) a mount that fails fails the test, like a
// missing peer (peers.ts).
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

function run(command: string, args: string[]): { ok: boolean; out: string } {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  return { ok: result.status === 0, out: `${result.stdout ?? ''}${result.stderr ?? ''}`.trim() };
}

/** Skips the test (or fails it under CI) with the reason; returns undefined for the caller to return. */
function cannot(t: TestContext, reason: string): undefined {
  if (process.env['CI'] === 'true') assert.fail(`${reason} (CI runs as root and must mount)`);
  t.skip(reason);
  return undefined;
}

function scratch(t: TestContext, prefix: string): string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const dir = join(root, 'mnt');
  mkdirSync(dir);
  t.after(() => {
    run('umount', ['-l', dir]);
    rmSync(root, { recursive: true, force: true });
  });
  return dir;
}

/** A tmpfs of `sizeBytes` to fill; its path, or undefined when the test was skipped. */
export function mountTmpfs(t: TestContext, sizeBytes: number): string | undefined {
  if (process.getuid?.() !== 0) return cannot(t, 'needs root to mount a tmpfs (mount -t tmpfs)');
  const dir = scratch(t, 'hub-tmpfs-');
  const mounted = run('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', dir]);
  if (!mounted.ok) return cannot(t, `mount -t tmpfs is not allowed here: ${mounted.out}`);
  return dir;
}

export interface Ext4Mount {
  dir: string;
  /** Makes the kernel see a file-system error: with errors=remount-ro it turns read-only. */
  triggerError(): void;
}

/** A loop-mounted ext4 image with errors=remount-ro, or undefined when the test was skipped. */
export function mountExt4(t: TestContext, sizeMb: number): Ext4Mount | undefined {
  if (process.getuid?.() !== 0) return cannot(t, 'needs root to loop-mount an ext4 image (mount -o loop)');
  if (!run('sh', ['-c', 'command -v mkfs.ext4 && command -v losetup']).ok) return cannot(t, 'needs mkfs.ext4 and losetup (e2fsprogs, util-linux)');
  const dir = scratch(t, 'hub-ext4-');
  const image = join(dir, '..', 'card.img');
  const made = run('sh', ['-c', `truncate -s ${sizeMb}M '${image}' && mkfs.ext4 -q -F '${image}'`]);
  if (!made.ok) return cannot(t, `mkfs.ext4 failed: ${made.out}`);
  const mounted = run('mount', ['-o', 'loop,errors=remount-ro', image, dir]);
  if (!mounted.ok) return cannot(t, `loop-mounting an ext4 image is not allowed here: ${mounted.out}`);
  const device = basename(run('findmnt', ['-no', 'SOURCE', dir]).out);
  const trigger = `/sys/fs/ext4/${device}/trigger_fs_error`;
  if (!existsSync(trigger)) return cannot(t, `the kernel has no ${trigger} (ext4 error injection)`);
  return { dir, triggerError: () => void run('sh', ['-c', `echo 1 > ${trigger}`]) };
}

/** Fills the file system of `dir` to the last block (dd stops at ENOSPC); returns the filler's path. */
export function fill(dir: string): string {
  const filler = join(dir, 'filler');
  spawnSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k'], { stdio: 'ignore' });
  return filler;
}
