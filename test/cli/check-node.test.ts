// install.sh takes the Node range from package.json's engines (scripts/check-node.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { satisfies } from '../../scripts/check-node.mjs';

test('the engines range decides which Node versions are accepted', () => {
  const range = (JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } }).engines.node;
  assert.equal(range, '>=20.10 <23');
  for (const ok of ['20.10.0', 'v20.20.2', '21.0.0', '22.99.1']) assert.equal(satisfies(ok, range), true, ok);
  for (const no of ['18.19.0', '20.9.9', '23.0.0', '24.1.0']) assert.equal(satisfies(no, range), false, no);
  assert.throws(() => satisfies('20.0.0', '^20'), /unsupported/);
  // The running Node (CI's, the developer's) is one the range accepts: the script exits 0 here.
  execFileSync(process.execPath, ['scripts/check-node.mjs']);
});
