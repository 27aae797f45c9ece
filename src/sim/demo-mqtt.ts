// The MQTT side of `npm start`: a broker embedded in the demo process (aedes, a development
// dependency) and the bridges a real household would run: a go-e charger with the family car plugged
// in, TeslaMate for that car, ebusd for the Vaillant heating, ESPAltherma for the Daikin, and evcc's
// price topics for the tariff (the price in force and the day-ahead curve). Commands submitted in the demo are carried out and confirmed. The go-e's
// power is a term of the household's balance (demo-household.ts), the Tesla follows the go-e it is
// plugged into (its charge level rises with the energy), and the price changes on the hour.
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import type { DriverBinding } from '../domain/device.ts';
import { GoESim } from './mqtt/go-e-sim.ts';
import { TeslaMateSim } from './mqtt/teslamate-sim.ts';
import { EbusdVaillantSim } from './mqtt/ebusd-vaillant-sim.ts';
import { EspAlthermaSim } from './mqtt/espaltherma-sim.ts';
import { TariffTopicSim } from './mqtt/tariff-topic-sim.ts';
import type { MqttDeviceSim } from './mqtt/mqtt-device-sim.ts';
import type { HouseholdModel } from './household-model.ts';
import { createDemoHousehold, dayAheadCurve, dayAheadPrice, DRIVEWAY, nextHourMs } from './demo-household.ts';

/** How often the Tesla's charge level follows the energy it took (TeslaMate publishes on a change of a whole percent). */
const CAR_LEVEL_MS = 5000;
/** The Tesla's battery, kWh (the demo's Model 3 Long Range). */
const TESLA_KWH = 75;
/** ESPAltherma's loop queries and publishes its values every 30 s by default (raomin/ESPAltherma src/setup.h: FREQUENCY 30000). */
const ESPALTHERMA_MS = 30_000;

/** How the hub reaches the demo's MQTT devices: the same on every start (the topics are fixed). */
export const DEMO_MQTT_BINDINGS = {
  charger: { type: 'go-e', serial: '100001' },
  car: { type: 'teslamate', carId: '1' },
  heating: { type: 'ebusd-vaillant-zone', timeZone: 'Europe/Berlin' },
  hotWater: { type: 'espaltherma' },
  tariff: { type: 'tariff-topic', priceTopic: 'evcc/site/tariffGrid', currency: 'EUR' },
} satisfies Record<string, DriverBinding>;

export interface DemoMqtt {
  url: string;
  bindings: { charger: DriverBinding; car: DriverBinding; heating: DriverBinding; hotWater: DriverBinding; tariff: DriverBinding };
  stop(): Promise<void>;
}

/**
 * Where the demo's broker listens: loopback on a free port by default; `HUB_DEMO_MQTT_LISTEN`
 * (`host:port`, e.g. `0.0.0.0:1883`) opens it to a Home Assistant on the home network
 * (docs/home-assistant.md).
 */
export function demoMqttListen(value: string | undefined): { host: string; port: number } {
  if (!value) return { host: '127.0.0.1', port: 0 };
  const match = /^(.+):(\d{1,5})$/.exec(value.trim());
  if (!match || Number(match[2]) > 65535) throw new Error(`HUB_DEMO_MQTT_LISTEN must be host:port (e.g. 0.0.0.0:1883), not ${value}`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port: Number(match[2]) };
}

/** Starts the demo broker and bridges; undefined when aedes is not installed (a production install). */
export async function startDemoMqtt(listen: { host: string; port: number } = { host: '127.0.0.1', port: 0 }, household: HouseholdModel = createDemoHousehold()): Promise<DemoMqtt | undefined> {
  let Aedes: typeof import('aedes').Aedes;
  try {
    ({ Aedes } = await import('aedes'));
  } catch {
    return undefined;
  }
  const broker = await Aedes.createBroker();
  const server: Server = createServer((socket) => broker.handle(socket));
  try {
    server.listen(listen.port, listen.host);
    await once(server, 'listening');
  } catch (err) {
    // Nothing of the demo's broker stays open (the hub exits with the reason).
    server.close();
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new Error(`HUB_DEMO_MQTT_LISTEN: ${listen.host}:${listen.port} is already in use (is a broker such as mosquitto running there? choose another port)`);
    }
    throw err;
  }
  // The hub and the bridges reach it on loopback when it listens on every address.
  const host = listen.host === '0.0.0.0' || listen.host === '::' ? '127.0.0.1' : listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  const url = `mqtt://${host}:${(server.address() as { port: number }).port}`;

  const charger = new GoESim(url, '100001');
  const car = new TeslaMateSim(url, '1');
  const heating = new EbusdVaillantSim(url);
  // ATTR is not retained: published in the firmware's loop, so a hub that subscribes later hears it.
  const hotWater = new EspAlthermaSim(url, { intervalMs: ESPALTHERMA_MS });
  const tariff = new TariffTopicSim(url);
  tariff.price = dayAheadPrice(Date.now());
  tariff.forecast = dayAheadCurve(Date.now());
  const sims: MqttDeviceSim[] = [charger, car, heating, hotWater, tariff];
  await Promise.all(sims.map((sim) => sim.start()));
  // A charger that is not connected draws nothing.
  household.addCharger(DRIVEWAY, () => (charger.client?.connected ? charger.state.powerW : 0));
  charger.onChange = (state) => void car.followCharger(state).catch(() => {});
  await charger.plugIn();
  const following = followCarLevel(household, car, charger);
  const prices = publishPrices(tariff);
  return {
    url,
    bindings: DEMO_MQTT_BINDINGS,
    stop: async () => {
      clearInterval(following);
      clearTimeout(prices.timer);
      await Promise.all(sims.map((sim) => sim.stop()));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        broker.close();
      });
    },
  };
}

/** The Tesla's charge level rises with the energy its charger gave it; at its charge limit the charger completes. */
function followCarLevel(household: HouseholdModel, car: TeslaMateSim, charger: GoESim): NodeJS.Timeout {
  const startLevel = car.state.battery_level;
  const startWh = household.read().chargerEnergyWh[DRIVEWAY] ?? 0;
  const timer = setInterval(() => {
    const level = startLevel + (((household.read().chargerEnergyWh[DRIVEWAY] ?? 0) - startWh) / (TESLA_KWH * 1000)) * 100;
    void car.chargeLevel(level, charger.state.powerW, TESLA_KWH).catch(() => {});
    if (level >= car.state.charge_limit_soc) void charger.complete().catch(() => {});
  }, CAR_LEVEL_MS);
  timer.unref();
  return timer;
}

/**
 * The day-ahead curve and the price in force, published as each hour begins (what evcc republishes
 * from its tariff: the curve grows by tomorrow's prices at 13:00 and loses yesterday's at midnight).
 */
function publishPrices(tariff: TariffTopicSim): { timer: NodeJS.Timeout | undefined } {
  const handle: { timer: NodeJS.Timeout | undefined } = { timer: undefined };
  const schedule = () => {
    handle.timer = setTimeout(() => {
      const now = Date.now();
      void tariff.setForecast(dayAheadCurve(now)).then(() => tariff.setPrice(dayAheadPrice(now))).catch(() => {});
      schedule();
    }, nextHourMs(Date.now()) - Date.now() + 50);
    handle.timer.unref();
  };
  schedule();
  return handle;
}
