// The layers point one way: entry points → api, drivers, simulators → runtime → store, transport →
// domain. This test reads every import under src/ and drivers/ (static, type-only, re-exports and
// dynamic `import()`) and names each one that points up or sideways, so the picture in the docs
// stays true without anyone having to remember it. Inside the runtime and the drivers, each driver
// family (a folder of drivers/, with its twin in src/runtime/) keeps to itself: nothing under one
// family's folders imports another family's; what two families share lives in the shared core.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Layer {
  name: string;
  level: number;
  matches(path: string): boolean;
}

const under = (dir: string) => (path: string) => path.startsWith(`${dir}/`);
const oneOf = (...files: string[]) => (path: string) => files.includes(path);

// Higher levels may import lower ones; two different layers on one level may not import each other.
export const LAYERS: readonly Layer[] = [
  { name: 'entry', level: 6, matches: (p) => oneOf('src/main.ts', 'src/daemon.ts', 'src/config.ts', 'src/config-schema.ts', 'src/driver-families.ts', 'src/config-problems.ts', 'src/configured-devices.ts', 'src/binding-defaults.ts')(p) || under('src/cli')(p) || under('src/demo')(p) },
  { name: 'api', level: 5, matches: under('src/api') },
  { name: 'drivers', level: 5, matches: under('drivers') },
  { name: 'sim', level: 5, matches: under('src/sim') },
  { name: 'runtime', level: 4, matches: under('src/runtime') },
  { name: 'store', level: 3, matches: under('src/store') },
  { name: 'transport', level: 3, matches: under('src/transport') },
  { name: 'domain', level: 2, matches: (p) => under('src/domain')(p) || p === 'src/log.ts' },
  { name: 'types', level: 1, matches: under('src/types') },
];

function layerOf(path: string): Layer {
  const layer = LAYERS.find((l) => l.matches(path));
  if (!layer) throw new Error(`${path} belongs to no layer: add it to LAYERS in test/architecture/layers.test.ts`);
  return layer;
}

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'";]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

/** Every relative import of a file, as a path from the repository root. */
export function importsOf(path: string, text: string): string[] {
  return [...text.matchAll(IMPORT)].map((m) => normalize(join(dirname(path), m[1] ?? m[2]!)).split('\\').join('/'));
}

export function violations(files: ReadonlyArray<{ path: string; text: string }>): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    const from = layerOf(path);
    for (const target of importsOf(path, text)) {
      if (!target.startsWith('src/') && !target.startsWith('drivers/')) continue;
      const to = layerOf(target);
      if (to === from || to.level < from.level) continue;
      found.push(`${path} (${from.name}) imports ${target} (${to.name}), ${to.level > from.level ? 'a layer above it' : 'a layer beside it'}`);
    }
  }
  return found;
}

/** The driver families: every folder of drivers/ (drivers/<family>/ and src/runtime/<family>/). */
export function families(): string[] {
  return readdirSync(join(root, 'drivers'), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
}

function familyOf(path: string, names: readonly string[]): string | undefined {
  return names.find((family) => path.startsWith(`src/runtime/${family}/`) || path.startsWith(`drivers/${family}/`));
}

export function crossFamilyImports(files: ReadonlyArray<{ path: string; text: string }>, names: readonly string[]): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    const from = familyOf(path, names);
    if (from === undefined) continue;
    for (const target of importsOf(path, text)) {
      const to = familyOf(target, names);
      if (to !== undefined && to !== from) found.push(`${path} (${from}) imports ${target} (${to}), another family's`);
    }
  }
  return found;
}

test('no file under src/ or drivers/ imports from a layer above or beside its own', () => {
  const files = [...sources('src'), ...sources('drivers')].map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') }));
  assert.ok(files.length > 100, `read ${files.length} files from ${relative(process.cwd(), root) || '.'}`);
  assert.deepEqual(violations(files), []);
});

test('the check sees static, type-only, re-exported and dynamic imports that point up', () => {
  const files = [
    { path: 'src/domain/a.ts', text: "import type { X } from '../api/errors.ts';" },
    { path: 'src/runtime/b.ts', text: "import * as p from '../api/present.ts';\nexport { y } from '../cli/hub.ts';" },
    { path: 'src/store/c.ts', text: "const t = await import('../transport/line.ts');" },
    { path: 'src/api/d.ts', text: "import { z } from '../runtime/z.ts';\nimport { w } from './w.ts';" },
  ];
  assert.deepEqual(violations(files), [
    'src/domain/a.ts (domain) imports src/api/errors.ts (api), a layer above it',
    'src/runtime/b.ts (runtime) imports src/api/present.ts (api), a layer above it',
    'src/runtime/b.ts (runtime) imports src/cli/hub.ts (entry), a layer above it',
    'src/store/c.ts (store) imports src/transport/line.ts (transport), a layer beside it',
  ]);
});

test('no driver family imports another family: what two share lives in the shared core', () => {
  const names = families();
  assert.deepEqual([...names].sort(), ['cloud', 'http', 'modbus', 'mqtt', 'ocpp']);
  const files = [...sources('src/runtime'), ...sources('drivers')].map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') }));
  assert.deepEqual(crossFamilyImports(files, names), []);
});

test('the family check sees a family reaching into another, in the runtime and in the drivers', () => {
  const names = ['modbus', 'mqtt', 'http'];
  const files = [
    { path: 'src/runtime/http/a.ts', text: "import { applyRule } from '../mqtt/values.ts';\nimport { x } from '../values.ts';\nimport { y } from './y.ts';" },
    { path: 'drivers/mqtt/b.ts', text: "import type { FieldRule } from '../../src/runtime/modbus/definition.ts';\nimport sunspec from '../modbus/sunspec.ts';" },
    { path: 'src/runtime/c.ts', text: "import type { ModbusRuntime } from './modbus/modbus-runtime.ts';" },
  ];
  assert.deepEqual(crossFamilyImports(files, names), [
    "src/runtime/http/a.ts (http) imports src/runtime/mqtt/values.ts (mqtt), another family's",
    "drivers/mqtt/b.ts (mqtt) imports src/runtime/modbus/definition.ts (modbus), another family's",
    "drivers/mqtt/b.ts (mqtt) imports drivers/modbus/sunspec.ts (modbus), another family's",
  ]);
});

test('src/runtime reads as its families plus a few named rooms: no more than three files lie loose at its root', () => {
  const entries = readdirSync('src/runtime', { withFileTypes: true });
  const loose = entries.filter((entry) => entry.isFile()).map((entry) => entry.name).sort();
  assert.deepEqual(loose, ['auth-failures.ts', 'bounded-signal.ts', 'hub-runtime.ts']);
  const rooms = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  for (const family of readdirSync('drivers', { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name)) {
    assert.ok(rooms.includes(family), `the ${family} family has its runtime folder`);
  }
});
