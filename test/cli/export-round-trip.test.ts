// `hub export` then `hub import` on a fresh hub gives back every device the hub holds: the demo
// household seeded as `npm start` seeds it (its drivers, the OCPP charger's credentials) and devices
// declared in YAML, which may have no model (their driver or BootNotification reports it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runHub } from '../../src/cli/hub.ts';
import { Store } from '../../src/store/store.ts';
import { seedDemo } from '../../src/demo/site.ts';
import { startDemoSimulators } from '../../src/sim/demo-sims.ts';
import { DEMO_MQTT_BINDINGS } from '../../src/sim/demo-mqtt.ts';
import { demoOcpp } from '../../src/sim/demo-ocpp.ts';
import { loadConfig } from '../../src/config.ts';
import { applyConfiguredDevices } from '../../src/configured-devices.ts';
import { silentLogger } from '../../src/log.ts';
import { tempFile } from '../support/files.ts';
import { splitSecrets, withoutSecrets } from '../../src/domain/secrets.ts';
import { isOcppBinding } from '../../src/domain/ocpp-binding.ts';
import { NO_PASSWORD } from '../../src/domain/ocpp-password.ts';

function workspace(t: { after: (fn: () => void) => void }, name: string) {
  const dir = mkdtempSync(join(tmpdir(), `hub-round-trip-${name}-`));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const out: string[] = [];
  const err: string[] = [];
  const run = (...argv: string[]) => runHub(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, { HUB_DATA_DIR: dir });
  return { dir, out, err, run, open: () => Store.open(join(dir, 'hub.db')) };
}

// Declared without a model: an OCPP charger (BootNotification names it) and a SunSpec inverter
// (its common block names it).
const DECLARED = `
mqtt: { url: 'mqtt://127.0.0.1:1883' }
devices:
  - kind: charger
    userId: household-2
    vendor: EASEE
    name: Garage
    driver: { type: ocpp, chargePointId: EH123456, password: 'a-long-enough-secret' }
  - kind: pvInverter
    userId: household-2
    vendor: FRONIUS
    driver: { type: fronius, host: 192.168.1.50, unitId: 1 }
`;

test('export then import into a fresh store gives back the demo household and devices declared without a model', async (t) => {
  const simulators = await startDemoSimulators();
  t.after(() => simulators.stop());
  const a = workspace(t, 'a');
  const b = workspace(t, 'b');
  const now = Date.parse('2026-11-07T05:31:56Z');
  const seeded = a.open();
  const demo = seedDemo(seeded, now, { ...simulators.bindings, ...DEMO_MQTT_BINDINGS, zaptec: demoOcpp().binding });
  const config = loadConfig({ HUB_CONFIG: tempFile(t, 'hub.yaml', DECLARED) });
  assert.deepEqual(applyConfiguredDevices(seeded, config, now, silentLogger()), { added: 2, updated: 0, deleted: 0 });
  const modelless = seeded.devices.all().filter((d) => d.model === null && d.kind !== 'tariff').map((d) => d.kind).sort();
  assert.deepEqual(modelless, ['charger', 'pvInverter'], 'the declared devices have no model');
  seeded.close();

  const file = join(a.dir, 'out.json');
  assert.equal(await a.run('export', file), 0);
  assert.equal(await b.run('import', file), 0, b.err.join('\n'));
  assert.match(b.out.join('\n'), new RegExp(`Imported ${demo + 2} devices`));

  const [sa, sb] = [a.open(), b.open()];
  t.after(() => { sa.close(); sb.close(); });
  const strip = (s: Store) => s.devices.all().map(({ createdAtMs: _created, ...rest }) => rest);
  // Everything but the secrets (the demo Envoy's token): a device that had one comes back offline
  // without it, until it is given again (test/cli/export-secrets.test.ts).
  // An OCPP charger's password hash is left out too: it comes back offline, waiting for its password.
  const withSecret = sa.devices.all().filter((d) => d.driver && (Object.keys(splitSecrets(d.driver).secrets).length > 0 || isOcppBinding(d.driver))).map((d) => d.id);
  assert.ok(withSecret.length > 0, 'the demo has a device with a secret');
  const expected = strip(sa).map((d) => (withSecret.includes(d.id) ? { ...d, isOnline: false, driver: withoutSecrets(d.driver!) } : d));
  assert.deepEqual(strip(sb), expected);
  for (const device of sa.devices.all()) {
    assert.deepEqual(sb.deviceImages.get(device.id)?.png, sa.deviceImages.get(device.id)?.png, `image of ${device.id}`);
    const credential = sa.ocpp.credentialOfDeviceId(device.id);
    assert.deepEqual(sb.ocpp.credentialOfDeviceId(device.id), credential && { ...credential, passwordHash: NO_PASSWORD }, `OCPP credential of ${device.id}`);
  }

  // With the secrets sealed and the passphrase given, the bindings come back whole.
  const sealed = join(a.dir, 'sealed.json');
  const passphrase = tempFile(t, 'passphrase', 'a passphrase for the round trip\n');
  assert.equal(await a.run('export', sealed, '--with-secrets', '--passphrase-file', passphrase), 0, a.err.join('\n'));
  const c = workspace(t, 'c');
  assert.equal(await c.run('import', sealed, '--passphrase-file', passphrase), 0, c.err.join('\n'));
  const sc = c.open();
  t.after(() => sc.close());
  assert.deepEqual(strip(sc), strip(sa).map((d) => (withSecret.includes(d.id) ? { ...d, isOnline: false } : d)));
  for (const device of sa.devices.all()) {
    assert.deepEqual(sc.ocpp.credentialOfDeviceId(device.id), sa.ocpp.credentialOfDeviceId(device.id), `sealed OCPP credential of ${device.id}`);
  }
});
