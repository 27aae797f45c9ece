// The OCPP side of `npm start`: a Zaptec-like charger (one connector, Zaptec's vendor string, its
// meter values in W and kWh as Zaptec documents them) that connects to the hub's own OCPP endpoint
// once it listens, with the VW plugged in and charging. The VW's charging stop is carried out over
// OCPP: RemoteStopTransaction, confirmed by the charger's StopTransaction. What it draws is a term of
// the household's balance (demo-household.ts), and its energy register counts that energy.
import { generatePassword } from '../domain/ocpp-password.ts';
import type { DriverBinding } from '../domain/device.ts';
import { ChargePointSim } from './ocpp/charge-point-sim.ts';
import type { HouseholdModel } from './household-model.ts';
import { CARPORT } from './demo-household.ts';

export const DEMO_CHARGE_POINT_ID = 'ZAP000001';
const DEMO_ID_TAG = 'demo-card';
/** Meter values while charging, as the hub asks Zaptec for (MeterValueSampleInterval 30 s). */
const METER_INTERVAL_MS = 30_000;

export interface DemoOcpp {
  /** The charger's binding: the password is made up at each start and handed to the charger only. */
  binding: DriverBinding;
  /** Connects the charger to the hub, plugs the car in and starts charging. */
  connect(hubUrl: string): Promise<void>;
  stop(): Promise<void>;
}

/** `household`: the demo's household, whose balance the charger's draw is part of (none: it stands alone). */
export function demoOcpp(household?: HouseholdModel): DemoOcpp {
  const password = generatePassword();
  let sim: ChargePointSim | undefined;
  let timer: NodeJS.Timeout | undefined;
  // Offline (not connected) it draws nothing.
  household?.addCharger(CARPORT, () => (sim?.isOpen ? sim.powerW() : 0));
  return {
    binding: { type: 'ocpp', chargePointId: DEMO_CHARGE_POINT_ID, password, idTags: [DEMO_ID_TAG] },
    connect: async (hubUrl) => {
      sim = new ChargePointSim({ endpoint: `${hubUrl.replace(/^http/, 'ws')}/ocpp`, identity: DEMO_CHARGE_POINT_ID, password, vendor: 'Zaptec', model: 'ZAPTEC GO', maxCurrentA: 16, meter: 'zaptec' });
      await sim.connect();
      await sim.plugIn();
      await sim.startTransaction(DEMO_ID_TAG);
      const registerWh = sim.energyWh;
      const drawnWh = () => household?.read().chargerEnergyWh[CARPORT] ?? 0;
      const fromWh = drawnWh();
      timer = setInterval(() => {
        if (!sim) return;
        sim.energyWh = Math.max(sim.energyWh, Math.round(registerWh + drawnWh() - fromWh)); // a register never goes back
        if (sim.isOpen && sim.status === 'Charging') void sim.sendMeterValues('Sample.Periodic').catch(() => {});
      }, METER_INTERVAL_MS);
      timer.unref();
    },
    stop: async () => {
      clearInterval(timer);
      await sim?.close();
    },
  };
}
