// Every HTTP definition the hub ships, read from its simulator (over HTTPS with a pinned
// self-signed certificate where the real device serves HTTPS): each kind it maps must give a state
// the API's own schema accepts, with every mapped field present. A definition without a simulator
// fails here.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { HTTP_DRIVER_DEFINITIONS } from '../../../drivers/http/index.ts';
import { HttpReader } from '../../../src/runtime/http/http-reader.ts';
import { SiteModel } from '../../../src/sim/site-model.ts';
import { EnphaseSim } from '../../../src/sim/http/enphase-sim.ts';
import { PowerwallSim } from '../../../src/sim/http/powerwall-sim.ts';
import { DaikinSim } from '../../../src/sim/http/daikin-sim.ts';
import { DaikinBrp084Sim } from '../../../src/sim/http/daikin-brp084-sim.ts';
import type { HttpDeviceSim } from '../../../src/sim/http/http-sim-server.ts';
import { BatteryChargeState, PvPowerState } from '../../../src/domain/schemas.ts';
import type { DeviceKind } from '../../../src/domain/vocabulary.ts';
import { deviceCertificate, started } from '../../support/http-hub.ts';

const NOON = () => Date.parse('2026-06-21T11:00:00Z');
const site = () => new SiteModel({ pvPeakW: 8000, initialSocPct: 55, now: NOON });

/** A simulator per definition, and the settings its binding needs. */
const SIMULATORS: Record<string, () => { sim: HttpDeviceSim; settings: Record<string, unknown>; https: boolean }> = {
  'enphase-envoy': () => ({ sim: new EnphaseSim(site(), { token: 'a.b.c', batteries: 2 }), settings: { token: 'a.b.c' }, https: true }),
  'tesla-powerwall': () => ({ sim: new PowerwallSim(site(), { email: 'o@example.com', password: 'pw' }), settings: { email: 'o@example.com', password: 'pw' }, https: true }),
  'daikin-brp069': () => ({ sim: new DaikinSim(), settings: {}, https: false }),
  'daikin-brp084': () => ({ sim: new DaikinBrp084Sim(), settings: {}, https: false }),
};

// A driver's reading is the state's values; the API dates them (lastUpdated) when it shows them.
const SCHEMAS: Partial<Record<DeviceKind, { parse(v: unknown): unknown }>> = { battery: BatteryChargeState.partial({ lastUpdated: true }), pvInverter: PvPowerState.partial({ lastUpdated: true }) };

async function rigFor(t: TestContext, type: string) {
  const make = SIMULATORS[type];
  assert.ok(make, `no simulator for driver ${type}: add one to SIMULATORS`);
  const { sim, settings, https } = make();
  const cert = https ? deviceCertificate(t, type) : undefined;
  await started(t, sim, cert);
  return { type, host: '127.0.0.1', port: sim.port, ...settings, ...(cert ? { tls: cert.pinned } : {}) };
}

for (const definition of HTTP_DRIVER_DEFINITIONS) {
  test(`HTTP driver ${definition.type} reads its simulator into valid API state`, async (t) => {
    const binding = await rigFor(t, definition.type);
    const reader = new HttpReader(definition, binding, { now: () => Date.now() });
    for (const [kind, mapping] of Object.entries(definition.kinds) as [DeviceKind, NonNullable<typeof definition.kinds[DeviceKind]>][]) {
      const state = await reader.readState(kind, { timeoutMs: 5000 });
      for (const field of Object.keys(mapping.fields)) {
        // A Daikin split unit has no humidity sensor ("-"): the one field a simulator may leave out.
        if (field === 'roomHumidity') continue;
        assert.ok(state[field] !== undefined, `${definition.type} ${kind}: ${field} missing from ${JSON.stringify(state)}`);
      }
      SCHEMAS[kind]?.parse(state);
      const fixed = await reader.readStatic(kind, { timeoutMs: 5000 });
      for (const field of Object.keys(mapping.staticData ?? {})) assert.ok(fixed[field] !== undefined, `${definition.type} ${kind}: static ${field} missing`);
    }
  });
}
