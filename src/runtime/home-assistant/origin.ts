// The discovery messages' `origin` (Home Assistant's MQTT discovery documentation: the application
// that publishes them, with its version): this hub's package name and version, read once from its
// package.json, found upwards from this file so that it is found in the source tree and in dist/.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Origin } from './discovery.ts';

export function hubOrigin(): Origin {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'home-energy-hub') return { name: pkg.name, sw_version: pkg.version };
      } catch {
        // not ours, or unreadable: keep looking upwards
      }
    }
    dir = dirname(dir);
  }
  return { name: 'home-energy-hub' };
}
