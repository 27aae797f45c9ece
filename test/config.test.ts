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
    // The key came from the environment: the problem names the variable, not a key of the file.
    assert.deepEqual(fields, ['HUB_API_KEY', 'commands.ttlSeconds', 'http.colour', 'http.port', 'http.publicUrl']);
    assert.match(err.message, /http\.port: must be at most 65535/);
    assert.match(err.message, /HUB_API_KEY: must be at least 24 characters long/);
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

test('plain reasons, not Zod\'s wording: allowed values listed, unknown keys named as settings', (t) => {
  const file = yamlFile(t, 'logLevel: loud\nmqtt:\n  url: mqtt://broker.lan\n  protocolVersion: 3\nhttp:\n  colour: blue\n');
  assert.throws(() => loadConfig({ HUB_CONFIG: file }), (err: ConfigError) => {
    const byField = Object.fromEntries(err.problems.map((p) => [p.field, p.message]));
    // The five levels the documentation lists.
    assert.equal(byField['logLevel'], 'must be one of debug, info, warn, error, silent');
    assert.equal(byField['mqtt.protocolVersion'], 'must be one of 4, 5');
    assert.match(byField['http.colour']!, /is not a known setting/);
    assert.doesNotMatch(err.message, /Invalid (option|input)|expected one of|"\|"/);
    return true;
  });
  assert.throws(() => loadConfig({ HUB_LOG_LEVEL: 'trace' }), /HUB_LOG_LEVEL: must be one of debug, info, warn, error, silent/);
});

test('device problems are reported together with the other problems', (t) => {
  const file = yamlFile(t, 'logLevel: loud\nhttp:\n  port: x\ndevices:\n  - kind: toaster\n    userId: u\n    vendor: X\n    driver: { type: sunspec }\n'
    + '  - kind: battery\n    userId: u\n    vendor: GO_E\n    driver: { type: warp-drive }\n');
  assert.throws(() => loadConfig({ HUB_CONFIG: file }), (err: ConfigError) => {
    const fields = err.problems.map((p) => p.field).sort();
    assert.deepEqual(fields, ['devices[0].kind', 'devices[1].driver', 'devices[1].vendor', 'http.port', 'logLevel']);
    return true;
  });
});

test('a YAML syntax error says where and what in one complete line', (t) => {
  const bad = yamlFile(t, 'http:\n  port: 8080\n  x: [\n');
  assert.throws(() => loadConfig({ HUB_CONFIG: bad }), (err: ConfigError) => {
    assert.equal(err.problems.length, 1);
    const message = err.problems[0]!.message;
    assert.match(message, /^is not valid YAML: line \d+, column \d+: \S.*\S$/);
    assert.doesNotMatch(message, /:$|\n/);
    return true;
  });
});

test('mqtt.deviceUrl, the broker as devices reach it, is never a loopback address', (t) => {
  const file = yamlFile(t, 'mqtt:\n  url: mqtt://127.0.0.1:1883\n  deviceUrl: mqtt://localhost:1883\n');
  assert.throws(() => loadConfig({ HUB_CONFIG: file }), /mqtt\.deviceUrl: is a loopback address/);
  assert.throws(() => loadConfig({ HUB_MQTT_URL: 'mqtt://127.0.0.1:1883', HUB_MQTT_DEVICE_URL: 'mqtt://[::1]:1883' }), /HUB_MQTT_DEVICE_URL: is a loopback address/);
  const ok = loadConfig({ HUB_MQTT_URL: 'mqtt://127.0.0.1:1883', HUB_MQTT_DEVICE_URL: 'mqtt://192.168.1.5:1883' });
  assert.equal(ok.mqtt?.deviceUrl, 'mqtt://192.168.1.5:1883');
});

test('homeAssistant: off by default, Home Assistant\'s default prefix; a bad node id or prefix is named', (t) => {
  const defaults = loadConfig({});
  assert.deepEqual(defaults.homeAssistant, { enabled: false, discoveryPrefix: 'homeassistant', nodeId: 'home_energy_hub', topicPrefix: 'home-energy-hub/ha' });
  const on = loadConfig({ HUB_CONFIG: yamlFile(t, 'homeAssistant:\n  enabled: true\n  nodeId: attic-hub\n') });
  assert.deepEqual([on.homeAssistant.enabled, on.homeAssistant.nodeId, on.homeAssistant.discoveryPrefix], [true, 'attic-hub', 'homeassistant']);
  const file = yamlFile(t, 'homeAssistant:\n  enabled: yes please\n  discoveryPrefix: "ha/#"\n  nodeId: attic hub\n  colour: blue\n');
  assert.throws(() => loadConfig({ HUB_CONFIG: file }), (err: ConfigError) => {
    assert.deepEqual(err.problems.map((p) => p.field).sort(), ['homeAssistant.colour', 'homeAssistant.discoveryPrefix', 'homeAssistant.enabled', 'homeAssistant.nodeId']);
    assert.match(err.message, /homeAssistant\.nodeId: must be 1 to 64 letters, digits, - or _/);
    assert.match(err.message, /homeAssistant\.discoveryPrefix: must be a topic without MQTT wildcards/);
    return true;
  });
});
