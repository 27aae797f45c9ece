// HTTP devices declared in the configuration file: checked with the configuration (a missing token,
// a kind the driver cannot read, a bad scheme), every problem at once with its path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, ConfigError } from '../src/config.ts';
import { tempFile } from './support/files.ts';
import { deviceCertificate } from './support/http-hub.ts';

test('declared HTTP devices: a good Daikin AC passes; an Envoy without its token, a Daikin meter and a bad scheme are refused', (t) => {
  const { pinned } = deviceCertificate(t, 'envoy');
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
    driver: { type: enphase-envoy, host: 192.168.1.40, token: aaa.bbb.ccc, tls: { sha256: "${pinned.sha256.toLowerCase()}", pem: ${JSON.stringify(pinned.pem)} } }
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
    // A device may have several problems under one field: all of them, joined.
    const byField: Record<string, string> = {};
    for (const p of err.problems) byField[p.field] = byField[p.field] ? `${byField[p.field]} | ${p.message}` : p.message;
    assert.match(byField['devices[0].driver']!, /setting "token" is required/);
    assert.match(byField['devices[1].driver']!, /cannot read a meter/);
    assert.match(byField['devices[2].driver']!, /scheme must be http or https/);
    return true;
  });
});

test('declared HTTP devices: a binding the hub could not use is a problem, each at once: HTTPS without a usable pinned certificate, bad timing settings', (t) => {
  const { pinned } = deviceCertificate(t, 'envoy');
  const other = deviceCertificate(t, 'other').pinned;
  const bad = tempFile(t, 'bad.yaml', `
devices:
  - kind: pvInverter
    userId: u
    vendor: ENPHASE
    driver: { type: enphase-envoy, host: 192.168.1.40, token: aaa.bbb.ccc }
  - kind: meter
    userId: u
    vendor: ENPHASE
    driver: { type: enphase-envoy, host: 192.168.1.40, token: aaa.bbb.ccc, tls: { sha256: "${pinned.sha256}" } }
  - kind: battery
    userId: u
    vendor: TESLA
    driver: { type: tesla-powerwall, host: 192.168.1.41, email: a@b.c, password: ABCDE, tls: { sha256: "${other.sha256}", pem: ${JSON.stringify(pinned.pem)} } }
  - kind: hvac
    type: AC
    userId: u
    vendor: DAIKIN
    driver: { type: daikin-brp069, host: 192.168.1.42, scheme: https, uuid: 0123456789abcdef0123456789abcdef, tls: { sha256: "AB:CD", pem: "x" } }
  - kind: hvac
    type: AC
    userId: u
    vendor: DAIKIN
    driver: { type: daikin-brp084, host: 192.168.1.43, timeoutMs: -5, pollIntervalMs: fast }
`);
  assert.throws(() => loadConfig({ HUB_CONFIG: bad }), (err: unknown) => {
    assert.ok(err instanceof ConfigError);
    const messages = (field: string) => err.problems.filter((p) => p.field === field).map((p) => p.message).join(' | ');
    assert.match(messages('devices[0].driver'), /HTTPS needs the device's certificate pinned as tls: \{ sha256, pem \}/);
    assert.match(messages('devices[1].driver'), /HTTPS needs the device's certificate pinned/);
    assert.match(messages('devices[2].driver'), /tls.sha256 is not the fingerprint of tls.pem/);
    assert.match(messages('devices[3].driver'), /tls.pem is not a PEM certificate/);
    assert.match(messages('devices[4].driver'), /pollIntervalMs must be a whole number of milliseconds above 0/);
    assert.match(messages('devices[4].driver'), /timeoutMs must be a whole number of milliseconds above 0/);
    return true;
  });
});
