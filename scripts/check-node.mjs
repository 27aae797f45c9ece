// Exits non-zero, saying why, when this Node.js is outside the range package.json's `engines.node`
// gives (e.g. ">=20.10 <23"): install.sh runs it with the node it is about to install the hub for,
// so the range is written in one place only. Supports space-separated >=, >, <=, <, = comparators.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function satisfies(version, range) {
  const parts = (text) => text.replace(/^v/, '').split('.').map(Number);
  const have = parts(version);
  const compare = (want) => {
    for (let i = 0; i < 3; i++) if ((have[i] ?? 0) !== (want[i] ?? 0)) return (have[i] ?? 0) - (want[i] ?? 0);
    return 0;
  };
  return range.trim().split(/\s+/).every((comparator) => {
    const match = /^(>=|<=|>|<|=)?v?(\d+(?:\.\d+){0,2})$/.exec(comparator);
    if (!match) throw new Error(`unsupported engines.node comparator "${comparator}"`);
    const d = compare(parts(match[2]));
    switch (match[1]) {
      case '>=': return d >= 0;
      case '>': return d > 0;
      case '<=': return d <= 0;
      case '<': return d < 0;
      default: return d === 0;
    }
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const packageJson = new URL('../package.json', import.meta.url);
  const range = JSON.parse(readFileSync(packageJson, 'utf8')).engines.node;
  if (!satisfies(process.version, range)) {
    console.error(`Node.js ${range} is needed (found ${process.version})`);
    process.exit(1);
  }
}
