// HTTP(S) requests to devices: the certificate a device presents is read for the installer without
// a request being sent; HTTPS is refused without an accepted certificate and with another one; the
// accepted one is trusted whatever its dates; a request that gets no answer fails at its time limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DaikinSim } from '../../src/sim/http/daikin-sim.ts';
import { CertificateChangedError, httpRequest, NoPinnedCertificateError, peekCertificate } from '../../src/transport/http-device.ts';
import { deviceCertificate, started } from '../support/http-hub.ts';
import { skipWithout } from '../support/peers.ts';

test('peekCertificate reads the presented certificate (the trust-on-first-use offer) and sends nothing', async (t) => {
  const cert = deviceCertificate(t, 'device');
  const sim = await started(t, new DaikinSim(), cert);
  const seen = await peekCertificate('127.0.0.1', sim.port, 3000);
  assert.equal(seen.sha256, cert.pinned.sha256);
  assert.match(seen.pem, /^-----BEGIN CERTIFICATE-----\n/);
  assert.equal(sim.requests.length, 0);
  // The certificate read is the one the device serves: pinned, a request goes through.
  const answer = await httpRequest({ scheme: 'https', host: '127.0.0.1', port: sim.port, pinned: seen }, { method: 'GET', path: '/common/basic_info', timeoutMs: 3000 });
  assert.equal(answer.status, 200);
  assert.match(answer.body, /^ret=OK,type=aircon/);
});

test('HTTPS without an accepted certificate, or with another one pinned, is refused before anything is sent', async (t) => {
  const cert = deviceCertificate(t, 'device');
  const other = deviceCertificate(t, 'device');
  const sim = await started(t, new DaikinSim(), cert);
  const target = { scheme: 'https' as const, host: '127.0.0.1', port: sim.port };
  await assert.rejects(httpRequest(target, { method: 'GET', path: '/', timeoutMs: 3000 }), NoPinnedCertificateError);
  await assert.rejects(httpRequest({ ...target, pinned: other.pinned }, { method: 'GET', path: '/', timeoutMs: 3000 }), (err: unknown) => {
    assert.ok(err instanceof CertificateChangedError);
    assert.equal(err.presented, cert.pinned.sha256);
    assert.equal(err.pinned, other.pinned.sha256);
    return true;
  });
  // The right PEM with a fingerprint that does not match it (a tampered binding): refused too.
  await assert.rejects(httpRequest({ ...target, pinned: { pem: cert.pinned.pem, sha256: other.pinned.sha256 } }, { method: 'GET', path: '/', timeoutMs: 3000 }), CertificateChangedError);
  assert.equal(sim.requests.length, 0);
});

test('a pinned certificate is trusted by its fingerprint whatever its dates: not yet valid, or expired; another one is still refused', { skip: skipWithout('libfaketime') }, async (t) => {
  // Made by a device whose clock is years ahead of the hub's (as a hub booted behind sees it), and long ago.
  for (const validFrom of ['2030-01-01 00:00:00', '2020-01-01 00:00:00']) {
    const cert = deviceCertificate(t, 'device', validFrom);
    const sim = await started(t, new DaikinSim(), cert);
    const target = { scheme: 'https' as const, host: '127.0.0.1', port: sim.port };
    const answer = await httpRequest({ ...target, pinned: cert.pinned }, { method: 'GET', path: '/common/basic_info', timeoutMs: 3000 });
    assert.equal(answer.status, 200, `valid from ${validFrom}`);
    const other = deviceCertificate(t, 'device', validFrom);
    await assert.rejects(httpRequest({ ...target, pinned: other.pinned }, { method: 'GET', path: '/', timeoutMs: 3000 }), CertificateChangedError);
    assert.equal(sim.requests.length, 1, 'nothing sent to a device presenting another certificate');
  }
});

test('a device that takes the request and never answers fails at the time limit', async (t) => {
  const sim = await started(t, new DaikinSim());
  sim.faults.hang = true;
  await assert.rejects(httpRequest({ scheme: 'http', host: '127.0.0.1', port: sim.port }, { method: 'GET', path: '/common/basic_info', timeoutMs: 200 }), /no answer within 200 ms/);
  assert.equal(sim.requests.length, 1);
});
