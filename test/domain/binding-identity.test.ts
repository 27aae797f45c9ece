// The one rule of device identity (issue 34): the driver definitions' defaults applied, each address
// setting written one way. Every driver family, its defaults left out and written out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bindingIdentity, canonicalHost, NO_DEFAULTS } from '../../src/domain/binding-identity.ts';
import { builtInBindingDefaults } from '../../src/binding-defaults.ts';
import { IDENTITY_CASES } from '../support/identity-cases.ts';

const defaults = builtInBindingDefaults();

for (const c of IDENTITY_CASES) {
  test(`${c.family}: ${c.name} is one device; another address is another`, () => {
    const identity = bindingIdentity(c.kind, c.omitted, defaults);
    assert.notEqual(identity, null);
    for (const spelling of c.spellings) assert.equal(bindingIdentity(c.kind, spelling, defaults), identity, JSON.stringify(spelling));
    assert.notEqual(bindingIdentity(c.kind, c.elsewhere, defaults), identity, JSON.stringify(c.elsewhere));
  });
}

test('the defaults come from the definitions: without them a default written out is another binding (what the hub did before)', () => {
  const goE = IDENTITY_CASES.find((c) => c.omitted.type === 'go-e')!;
  assert.notEqual(bindingIdentity('charger', goE.spellings[0]!, NO_DEFAULTS), bindingIdentity('charger', goE.omitted, NO_DEFAULTS));
});

test('the same address is another device for another kind, or another driver', () => {
  assert.notEqual(bindingIdentity('battery', { type: 'sma', host: '10.0.0.2' }, defaults), bindingIdentity('pvInverter', { type: 'sma', host: '10.0.0.2' }, defaults));
  assert.notEqual(bindingIdentity('pvInverter', { type: 'sma', host: '10.0.0.2' }, defaults), bindingIdentity('pvInverter', { type: 'sunspec', host: '10.0.0.2', unitId: 126 }, defaults));
});

test('a vehicle bound to its charger, and a binding naming only a driver without defaults, name no device', () => {
  assert.equal(bindingIdentity('vehicle', { type: 'charger', chargerId: 'c-1' }, defaults), null);
  assert.equal(bindingIdentity('meter', { type: 'mqtt-generic' }, defaults), null);
  assert.equal(bindingIdentity('meter', { type: 'no-such-driver' }, defaults), null);
});

test('secrets and a pinned certificate are no part of where a device is', () => {
  const a = bindingIdentity('pvInverter', { type: 'enphase-envoy', host: 'envoy.local', token: 'a', tls: { sha256: 'AA', pem: 'x' } }, defaults);
  assert.equal(bindingIdentity('pvInverter', { type: 'enphase-envoy', host: 'envoy.local', token: 'b' }, defaults), a);
});

test('a host is written one way: case, root dot, brackets, IPv4 forms, IPv6 compressed, loopback', () => {
  assert.equal(canonicalHost('Inverter.LOCAL.'), 'inverter.local');
  assert.equal(canonicalHost('192.168.001.010'), '192.168.1.8', 'leading zeros are octal to a socket (inet_aton), and to the URL parser');
  assert.equal(canonicalHost('0xc0.0xa8.1.20'), '192.168.1.20');
  assert.equal(canonicalHost('[FE80:0:0:0:0:0:0:1]'), 'fe80::1');
  for (const loopback of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', 'LOCALHOST']) assert.equal(canonicalHost(loopback), 'localhost', loopback);
  assert.equal(canonicalHost('not a host!'), 'not a host!');
});

test('a defaults lookup that throws (a malformed binding) leaves the binding as written', () => {
  const throwing = () => {
    throw new Error('malformed');
  };
  assert.equal(bindingIdentity('pvInverter', { type: 'sma', host: 'a' }, throwing), bindingIdentity('pvInverter', { type: 'sma', host: 'A' }, NO_DEFAULTS));
});
