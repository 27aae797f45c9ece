// One rule says what a device secret is (src/domain/secrets.ts), for the export, listings and binding
// identity: it must agree with every definition's own word on its settings, so that neither a secret
// shows nor an address is hidden.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isSecretSetting, KNOWN_SECRET_SETTINGS, splitSecrets, withoutSecrets } from '../../src/domain/secrets.ts';
import { builtInHttpDrivers } from '../../drivers/http/index.ts';
import { builtInMqttDrivers } from '../../drivers/mqtt/index.ts';

test('every setting an HTTP definition marks secret is a secret by the rule, and no other of its settings is', () => {
  const secrets: string[] = [];
  for (const definition of builtInHttpDrivers().all()) {
    for (const [name, spec] of Object.entries(definition.settings)) {
      assert.equal(isSecretSetting(name), spec.secret === true, `${definition.type}.${name}`);
      if (spec.secret) secrets.push(`${definition.type}.${name}`);
    }
  }
  for (const name of KNOWN_SECRET_SETTINGS) assert.ok(isSecretSetting(name), name);
  for (const secret of secrets) assert.ok((KNOWN_SECRET_SETTINGS as readonly string[]).includes(secret.split('.')[1]!), `${secret} is redacted in the log`);
  // The rule is tested against something: the Envoy's token, the Powerwall's password, the BRP072C's uuid.
  assert.deepEqual(secrets.sort(), ['daikin-brp069.uuid', 'enphase-envoy.token', 'tesla-powerwall.password']);
});

test('no MQTT definition setting (serials, topic prefixes, tuning) is taken for a secret', () => {
  for (const definition of builtInMqttDrivers().all()) {
    for (const name of Object.keys(definition.settings)) assert.equal(isSecretSetting(name), false, `${definition.type}.${name}`);
  }
});

test('a binding no definition describes is split by the names of its settings: passwords, tokens, secrets, API keys', () => {
  const { binding, secrets } = splitSecrets({
    type: 'mqtt-generic', topicPrefix: 'heat/pump', brokerPassword: 'pw-1', apiKey: 'k-1', accessToken: 't-1', clientSecret: 's-1', passwordHash: 'h',
  });
  assert.deepEqual(binding, { type: 'mqtt-generic', topicPrefix: 'heat/pump' });
  assert.deepEqual(Object.keys(secrets).sort(), ['accessToken', 'apiKey', 'brokerPassword', 'clientSecret', 'passwordHash']);
  // The cloud logins the export used to list by hand are secrets by the same rule.
  assert.deepEqual(withoutSecrets({ type: 'volvo', vin: 'YV1', clientId: 'app', clientSecret: 'c', vccApiKey: 'v', refreshToken: 'r' }),
    { type: 'volvo', vin: 'YV1', clientId: 'app' });
});

test('the log redacts the device secrets the drivers know, should an object carrying one slip into a log call', async () => {
  const { createLogger } = await import('../../src/log.ts');
  const lines: string[] = [];
  const log = createLogger('info', { write: (line: string) => lines.push(line) });
  log.warn({ binding: { type: 'enphase-envoy', host: '192.168.1.30', token: 'envoy-token-1' }, refreshToken: 'r-1' }, 'slipped');
  log.warn({ binding: { type: 'volvo', clientSecret: 's-1', vccApiKey: 'k-1' }, device: { password: 'p-1', uuid: 'u-1' } }, 'slipped');
  const text = lines.join('');
  for (const secret of ['envoy-token-1', 'r-1', 's-1', 'k-1', 'p-1', 'u-1']) assert.ok(!text.includes(secret), secret);
  assert.match(text, /192\.168\.1\.30/);
});
