import { test } from 'node:test';
import assert from 'node:assert/strict';
import { brokerUrlForDevices, isLoopbackHost } from '../../src/domain/device-address.ts';

test('loopback hosts: 127/8, ::1, localhost and its subdomains; nothing else', () => {
  for (const host of ['127.0.0.1', '127.1.2.3', '[::1]', '::1', 'localhost', 'LOCALHOST', 'a.localhost', '::ffff:127.0.0.1']) assert.equal(isLoopbackHost(host), true, host);
  for (const host of ['192.168.1.5', 'hub.local', '[fd00::1]', '0.0.0.0', '128.0.0.1', 'localhost.example']) assert.equal(isLoopbackHost(host), false, host);
});

test('a broker on loopback is shown at the gateway address clients use, with its own scheme and port', () => {
  assert.equal(brokerUrlForDevices({ brokerUrl: 'mqtt://user:secret@127.0.0.1:1883', publicUrl: 'https://hub.local:8443/base', listenHost: '0.0.0.0' }), 'mqtt://hub.local:1883');
  assert.equal(brokerUrlForDevices({ brokerUrl: 'mqtts://localhost:8883', listenHost: '192.168.1.5' }), 'mqtts://192.168.1.5:8883');
  assert.equal(brokerUrlForDevices({ brokerUrl: 'mqtt://[::1]:1883', listenHost: 'fd00::5' }), 'mqtt://[fd00::5]:1883');
  // A public URL on loopback gives nothing; the listening address is the next candidate.
  assert.equal(brokerUrlForDevices({ brokerUrl: 'mqtt://127.0.0.1:1883', publicUrl: 'http://127.0.0.1:8080', listenHost: '10.0.0.2' }), 'mqtt://10.0.0.2:1883');
});

const lan = () => ({
  lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true, netmask: '255.0.0.0', mac: '00:00:00:00:00:00', cidr: '127.0.0.1/8' }],
  eth0: [{ address: '192.168.1.20', family: 'IPv4', internal: false, netmask: '255.255.255.0', mac: '02:00:00:00:00:01', cidr: '192.168.1.20/24' }],
}) as ReturnType<typeof import('node:os').networkInterfaces>;
const loopbackOnly = () => ({ lo: lan().lo! }) as ReturnType<typeof import('node:os').networkInterfaces>;

test('a hub listening everywhere without a public URL: the machine\'s address on the network', () => {
  assert.equal(brokerUrlForDevices({ brokerUrl: 'mqtt://127.0.0.1:1883', listenHost: '0.0.0.0', interfaces: lan }), 'mqtt://192.168.1.20:1883');
  assert.equal(brokerUrlForDevices({ brokerUrl: 'mqtt://127.0.0.1:1883', listenHost: '::', interfaces: lan }), 'mqtt://192.168.1.20:1883');
});

test('no address a device could use: nothing rather than loopback', () => {
  assert.equal(brokerUrlForDevices({ brokerUrl: 'mqtt://127.0.0.1:1883', listenHost: '127.0.0.1', interfaces: lan }), undefined);
  assert.equal(brokerUrlForDevices({ brokerUrl: 'mqtt://127.0.0.1:1883', listenHost: '0.0.0.0', interfaces: loopbackOnly }), undefined);
});

test('a broker elsewhere is shown as configured (without credentials); mqtt.deviceUrl wins', () => {
  assert.equal(brokerUrlForDevices({ brokerUrl: 'mqtt://u:p@broker.lan:1883', listenHost: '127.0.0.1' }), 'mqtt://broker.lan:1883');
  assert.equal(brokerUrlForDevices({ brokerUrl: 'mqtt://127.0.0.1:1883', deviceUrl: 'mqtt://gw.lan:1884', publicUrl: 'http://hub.local', listenHost: '0.0.0.0' }), 'mqtt://gw.lan:1884');
});
