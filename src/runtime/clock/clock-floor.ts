// The release's floor of a right time: the time the files the hub runs were written (checked out, built
// by `npm run build`, or installed; this module's own file stands for them). Nothing of this release
// existed before then, so a wall clock behind it is known to be wrong (1970 on a fresh image). It is
// read from the file rather than a constant written at build so that a hub run from source (tsx) has
// one too; systemd takes its own build date the same way (its clock never starts before it).
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Epoch ms of the hub's own code file; 0 when it cannot be read (the floor then is the store's alone). */
export function releaseFloorMs(): number {
  try {
    return statSync(fileURLToPath(import.meta.url)).mtimeMs;
  } catch {
    return 0;
  }
}
