// One rule says what a device secret is (src/domain/secrets.ts), for the export, listings and binding
// identity: it must agree with every definition's own word on its settings, so that neither a secret
// shows nor an address is hidden.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isSecretSetting, splitSecrets, withoutSecrets } from '../../src/domain/secrets.ts';
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
