// A relay URL without TLS (mqtt://, ws://) carries every relayed request's API key readable: accepted,
// for a relay on the home network or a bench, but said by `hub config check` and logged at start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runHub } from '../../src/cli/hub.ts';
import { ConfigSchema } from '../../src/config.ts';
import { Daemon } from '../../src/daemon.ts';
import { createLogger } from '../../src/log.ts';
import { freePort } from '../support/broker.ts';

test('hub config check warns of a plain mqtt:// relay and not of mqtts://', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-relay-config-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const check = async (url: string) => {
    const file = join(dir, 'hub.yaml');
    writeFileSync(file, `relay:\n  url: ${url}\n  hubId: hub-42\n`);
    const err: string[] = [];
    assert.equal(await runHub(['config', 'check', file], { out: () => {}, err: (l) => err.push(l) }, {}), 0, err.join('\n'));
    return err.join('\n');
  };
  assert.match(await check('mqtt://relay.example.net:1883'), /^warning: relay\.url mqtt:\/\/ is not encrypted: the API keys in every relayed request and every answer travel readable; use mqtts:\/\/ or wss:\/\/$/m);
  assert.match(await check('ws://relay.example.net/mqtt'), /relay\.url ws:\/\/ is not encrypted/);
  assert.equal(await check('mqtts://relay.example.net:8883'), '');
});

test('a hub started with a plain mqtt:// relay logs the warning once', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-relay-start-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const lines: Record<string, unknown>[] = [];
  const log = createLogger('info', { write: (text: string) => void lines.push(JSON.parse(text) as Record<string, unknown>) });
  // Nothing listens there: the relay retries in the background, the hub serves the house.
  const port = await freePort();
  const daemon = new Daemon({ config: ConfigSchema.parse({ dataDir: dir, http: { port: 0 }, relay: { url: `mqtt://127.0.0.1:${port}`, hubId: 'hub-42' } }), log });
  t.after(() => daemon.stop());
  await daemon.start();
  const warned = lines.filter((l) => String(l['msg']).startsWith('relay.url mqtt:// is not encrypted'));
  assert.equal(warned.length, 1);
  assert.equal(warned[0]!['level'], 40);
});
