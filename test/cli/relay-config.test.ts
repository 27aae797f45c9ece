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

test('hub config check and a start refuse relay, broker and cloud files that cannot be read, naming each (the relay looped on ENOENT at run time)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-relay-files-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const present = join(dir, 'ca.pem');
  writeFileSync(present, 'not checked for content here');
  const file = join(dir, 'hub.yaml');
  writeFileSync(file, [
    'relay:', '  url: mqtts://relay.example.net:8883', '  hubId: hub-42', `  caFile: ${join(dir, 'missing-ca.pem')}`, `  certFile: ${present}`, `  keyFile: ${join(dir, 'missing.key')}`,
    'mqtt:', '  url: mqtts://127.0.0.1:8883', `  caFile: ${join(dir, 'broker-ca.pem')}`,
    'cloud:', '  volvo:', `    caFile: ${join(dir, 'volvo-ca.pem')}`, '',
  ].join('\n'));
  const err: string[] = [];
  assert.equal(await runHub(['config', 'check', file], { out: () => {}, err: (l) => err.push(l) }, {}), 2);
  const said = err.join('\n');
  for (const field of ['relay.caFile', 'relay.keyFile', 'mqtt.caFile', 'cloud.volvo.caFile']) assert.match(said, new RegExp(`${field.replace(/\./g, '\\.')}: cannot be read: .* \\(ENOENT\\)`), said);
  assert.doesNotMatch(said, /relay\.certFile/);
  assert.match(said, /^4 problems in /m);
});

test('hub config check says where the data goes and who says so', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-config-data-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'hub.yaml');
  writeFileSync(file, 'http:\n  port: 8080\n');
  const said = async (env: NodeJS.ProcessEnv) => {
    const out: string[] = [];
    assert.equal(await runHub(['config', 'check', file], { out: (l) => out.push(l), err: () => {} }, env), 0);
    return out.join('\n');
  };
  assert.match(await said({}), /data in data, relative to where the hub starts \(the default; the installed unit sets HUB_DATA_DIR=\/var\/lib\/home-energy-hub\)/);
  assert.match(await said({ HUB_DATA_DIR: '/var/lib/home-energy-hub' }), /data in \/var\/lib\/home-energy-hub \(HUB_DATA_DIR\)\)$/);
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
