// A file in a fresh temporary folder, removed after the test.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function tempFile(t: { after: (fn: () => void) => void }, name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'hub-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}
