// Every `cloud.*` setting the configuration takes is documented, in docs/configuration.md and in
// docs/drivers-cloud.md, by its whole name: the settings come from the schema itself, so a setting
// added later without its docs fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigSchema } from '../../src/config-schema.ts';

type JsonSchema = { properties?: Record<string, JsonSchema> };

function cloudSettings(): string[] {
  const cloud = (z.toJSONSchema(ConfigSchema, { io: 'input' }) as JsonSchema).properties!['cloud']!.properties!;
  return Object.entries(cloud).flatMap(([maker, schema]) => Object.keys(schema.properties!).map((key) => `cloud.${maker}.${key}`));
}

test('every cloud.* setting is named in docs/configuration.md and docs/drivers-cloud.md', () => {
  const settings = cloudSettings();
  assert.ok(settings.includes('cloud.volvo.caFile'), 'the schema is read');
  for (const page of ['configuration.md', 'drivers-cloud.md']) {
    const text = readFileSync(new URL(`../../docs/${page}`, import.meta.url), 'utf8');
    assert.deepEqual(settings.filter((setting) => !text.includes(`\`${setting}\``)), [], `settings docs/${page} does not name`);
  }
});
