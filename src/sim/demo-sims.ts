// The simulators behind `npm start`: a Fronius installation (inverter, battery, Smart Meter behind
// one Modbus TCP endpoint, as on a real Datamanager) and an SMA inverter on unit 126, each on a free
// loopback port, an Enphase IQ Gateway (HTTPS with its own self-signed certificate, pinned in its
// binding) and a Daikin AC's Wi-Fi adapter (HTTP). All of them read one household (demo-household.ts):
// each sees its own part of it (its PV array, its battery, the grid at the Smart Meter), so the
// Smart Meter reads the balance of everything, the chargers included.
import type { DriverBinding } from '../domain/device.ts';
import { ModbusSimServer } from './modbus-sim-server.ts';
import type { HouseholdModel } from './household-model.ts';
import { createDemoHousehold } from './demo-household.ts';
import { sunspecBattery, sunspecInverter, sunspecMeter } from './sunspec-sims.ts';
import { huaweiSun2000 } from './huawei-sim.ts';
import { EnphaseSim } from './http/enphase-sim.ts';
import { DaikinSim } from './http/daikin-sim.ts';
import { selfSignedCertificate } from './http/self-signed.ts';
import { fingerprintOf } from '../transport/http-device.ts';

export interface DemoSimulators {
  bindings: DemoDrivers;
  stop(): Promise<void>;
}

export interface DemoDrivers {
  froniusInverter?: DriverBinding;
  froniusBattery?: DriverBinding;
  froniusMeter?: DriverBinding;
  smaInverter?: DriverBinding;
  huaweiBattery?: DriverBinding;
  /** MQTT bridges of the demo (src/sim/demo-mqtt.ts). */
  charger?: DriverBinding;
  car?: DriverBinding;
  heating?: DriverBinding;
  hotWater?: DriverBinding;
  tariff?: DriverBinding;
  /** The Zaptec-like OCPP charger of the demo (src/sim/demo-ocpp.ts). */
  zaptec?: DriverBinding;
  /** HTTP devices: an Enphase IQ Gateway (HTTPS, self-signed) and a Daikin adapter. */
  enphase?: DriverBinding;
  daikinAc?: DriverBinding;
}

export async function startDemoSimulators(host = '127.0.0.1', household: HouseholdModel = createDemoHousehold()): Promise<DemoSimulators> {
  const fronius = await ModbusSimServer.tcp(new Map([
    [1, sunspecInverter(household.view({ pv: 'roof' }), { manufacturer: 'Fronius', model: 'Symo GEN24 10.0 Plus' })],
    [2, sunspecBattery(household.view({ battery: 'garage' }), { manufacturer: 'Fronius', model: 'BYD Battery-Box Premium HVS 10.2' })],
    [200, sunspecMeter(household.view({ grid: 'household' }), { manufacturer: 'Fronius', model: 'Smart Meter TS 65A-3' })],
  ]), { host });
  const sma = await ModbusSimServer.tcp(new Map([
    [126, sunspecInverter(household.view({ pv: 'carport' }), { manufacturer: 'SMA', model: 'Sunny Tripower 8.0' })],
  ]), { host });
  // The cellar's LUNA2000 battery on a SUN2000 without panels of its own (only its battery is in the demo).
  const huawei = await ModbusSimServer.tcp(new Map([[1, huaweiSun2000(household.view({ battery: 'cellar', grid: 'household' }))]]), { host });
  // The garden house: 12 IQ8M micros behind an IQ Gateway, without batteries; its CTs see the feeder to the house.
  const garden = household.view({ pv: 'garden', grid: 'feeder' });
  const token = demoToken();
  const envoyTls = selfSignedCertificate('envoy');
  const envoy = await new EnphaseSim(garden, { token }).start({ host, tls: envoyTls });
  const daikin = await new DaikinSim({ name: 'Bedroom' }).start({ host });
  const tcp = (type: string, port: number, unitId: number): DriverBinding => ({ type, host, port, unitId, pollIntervalMs: 2000 });
  return {
    bindings: {
      froniusInverter: tcp('fronius', fronius.port, 1),
      froniusBattery: tcp('fronius', fronius.port, 2),
      // The Smart Meter at the grid connection point: the household's grid meter (decisions §5).
      froniusMeter: { ...tcp('fronius', fronius.port, 200), role: 'grid' },
      smaInverter: tcp('sma', sma.port, 126),
      huaweiBattery: tcp('huawei-sun2000', huawei.port, 1),
      enphase: {
        type: 'enphase-envoy', host, port: envoy.port, token, pollIntervalMs: 5000,
        ...(envoyTls ? { tls: { sha256: fingerprintOf(envoyTls.cert), pem: envoyTls.cert } } : { scheme: 'http' }),
      },
      daikinAc: { type: 'daikin-brp069', host, port: daikin.port, pollIntervalMs: 10_000 },
    },
    stop: async () => {
      await Promise.all([fronius.close(), sma.close(), huawei.close(), envoy.stop(), daikin.stop()]);
    },
  };
}

/** An owner token as Enlighten issues one (a JWT valid a year); the simulator accepts only it. */
function demoToken(): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const exp = Math.floor(Date.now() / 1000) + 365 * 86_400;
  return `${part({ kid: 'demo', typ: 'JWT', alg: 'ES256' })}.${part({ aud: '122302045041', iss: 'Entrez', enphaseUser: 'owner', exp })}.ZGVtbw`;
}
