// HTTP devices declared in the configuration file: checked with the configuration (a missing token,
// a kind the driver cannot read, a bad scheme), every problem at once with its path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, ConfigError } from '../src/config.ts';
import { tempFile } from './support/files.ts';

test('declared HTTP devices: a good Daikin AC passes; an Envoy without its token, a Daikin meter and a bad scheme are refused', (t) => {
  const good = tempFile(t, 'good.yaml', `
devices:
  - kind: hvac
    type: AC
    userId: u
    vendor: DAIKIN
    driver: { type: daikin-brp069, host: 192.168.1.42 }
  - kind: pvInverter
    userId: u
    vendor: ENPHASE
    driver: { type: enphase-envoy, host: 192.168.1.40, token: aaa.bbb.ccc, tls: { sha256: "AB:CD", pem: "x" } }
`);
  assert.equal(loadConfig({ HUB_CONFIG: good }).devices.length, 2);
  const bad = tempFile(t, 'bad.yaml', `
devices:
  - kind: pvInverter
    userId: u
    vendor: ENPHASE
    driver: { type: enphase-envoy, host: 192.168.1.40 }
  - kind: meter
    userId: u
    vendor: ENPHASE
    driver: { type: daikin-brp069, host: 192.168.1.42 }
  - kind: hvac
    type: AC
    userId: u
    vendor: DAIKIN
    driver: { type: daikin-brp069, host: 192.168.1.42, scheme: ftp }
`);
  assert.throws(() => loadConfig({ HUB_CONFIG: bad }), (err: unknown) => {
    assert.ok(err instanceof ConfigError);
    const byField = Object.fromEntries(err.problems.map((p) => [p.field, p.message]));
    assert.match(byField['devices[0].driver']!, /setting "token" is required/);
    assert.match(byField['devices[1].driver']!, /cannot read a meter/);
    assert.match(byField['devices[2].driver']!, /scheme must be http or https/);
    return true;
  });
});
