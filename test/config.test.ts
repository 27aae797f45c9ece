// Configuration: defaults, the YAML file, environment overrides, and every error at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, ConfigError } from '../src/config.ts';
import { tempFile } from './support/files.ts';

const yamlFile = (t: { after: (fn: () => void) => void }, text: string) => tempFile(t, 'hub.yaml', text);

test('defaults: data/, loopback, port 8080', () => {
  const config = loadConfig({});
  assert.equal(config.dataDir, 'data');
  assert.equal(config.http.host, '127.0.0.1');
  assert.equal(config.http.port, 8080);
  assert.equal(config.http.bodyLimitBytes, 65536);
  assert.equal(config.apiKey, undefined);
});

test('environment variables override the file', (t) => {
  const file = yamlFile(t, 'dataDir: /var/lib/hub\nhttp:\n  host: 0.0.0.0\n  port: 9000\n');
  const fromFile = loadConfig({ HUB_CONFIG: file });
  assert.equal(fromFile.dataDir, '/var/lib/hub');
  assert.equal(fromFile.http.port, 9000);
  const overridden = loadConfig({ HUB_CONFIG: file, HUB_DATA_DIR: '/tmp/x', HUB_HTTP_HOST: '::1', HUB_HTTP_PORT: '8081', HUB_API_KEY: 'k'.repeat(24) });
  assert.equal(overridden.dataDir, '/tmp/x');
  assert.equal(overridden.http.host, '::1');
  assert.equal(overridden.http.port, 8081);
  assert.equal(overridden.apiKey, 'k'.repeat(24));
});

test('every problem is reported at once with its path and a plain reason', (t) => {
  const file = yamlFile(t, 'http:\n  port: 70000\n  publicUrl: not-a-url\n  colour: blue\ncommands:\n  ttlSeconds: 0\n');
  assert.throws(() => loadConfig({ HUB_CONFIG: file, HUB_API_KEY: 'short' }), (err: ConfigError) => {
    const fields = err.problems.map((p) => p.field).sort();
    assert.deepEqual(fields, ['apiKey', 'commands.ttlSeconds', 'http.colour', 'http.port', 'http.publicUrl']);
    assert.match(err.message, /http\.port: must be at most 65535/);
    assert.match(err.message, /apiKey: must be at least 24 characters long/);
    return true;
  });
  assert.throws(() => loadConfig({ HUB_HTTP_PORT: 'eighty' }), /HUB_HTTP_PORT: must be a port number/);
});

test('an unreadable or malformed file is a clear error', (t) => {
  assert.throws(() => loadConfig({ HUB_CONFIG: '/nonexistent/hub.yaml' }), /\(file\): cannot be read \(ENOENT\)/);
  const bad = yamlFile(t, 'http: [unclosed\n');
  assert.throws(() => loadConfig({ HUB_CONFIG: bad }), /not valid YAML/);
  const list = yamlFile(t, '- a\n- b\n');
  assert.throws(() => loadConfig({ HUB_CONFIG: list }), /must be a YAML mapping/);
});
