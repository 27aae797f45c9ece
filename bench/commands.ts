// Command and event bench (`npx tsx bench/commands.ts`, and part of `npm run bench`):
//   1. command latency, from the HTTP submission to the EXECUTED event, over MQTT (a vehicle's
//      charging stop carried out by a go-e simulator) and over Modbus (SET_TEMPERATURE written to a
//      simulated heat pump and read back); p50 and p99, beside the simulator's own round trip
//      measured the same way without the hub (a bare MQTT client; a bare modbus-serial client);
//   2. event throughput with 100 MQTT devices: one feeder publishes state changes for 100 chargers
//      as fast as the broker takes them; the hub's update events are counted on the broker.
// Target: p50 under 20 ms beyond the simulator's own delay.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import mqtt from 'mqtt';
import ModbusSerial from 'modbus-serial';
import { Daemon } from '../src/daemon.ts';
import { ConfigSchema } from '../src/config.ts';
import { silentLogger } from '../src/log.ts';
import { prepareImport } from '../src/domain/import.ts';
import { GoESim } from '../src/sim/mqtt/go-e-sim.ts';
import { ModbusSimServer, readHoldingRegisters, type SimUnit } from '../src/sim/modbus-sim-server.ts';
import { startBroker } from '../test/support/broker.ts';
import type { HubEvent } from '../src/runtime/events/hub-events.ts';

const KEY = 'bench-commands-key-0123456789abcdef';
const SAMPLES = Number(process.env['BENCH_COMMANDS'] ?? 300);
const EVENT_DEVICES = 100;
const EVENT_SECONDS = 10;
const CHARGER = '6f1c2a4e-0000-4000-8000-0000000bc001';
const VEHICLE = '6f1c2a4e-0000-4000-8000-0000000be001';
const HEAT_PUMP = '6f1c2a4e-0000-4000-8000-0000000ba001';

class HeatPump implements SimUnit {
  readonly registers = new Map<number, number>([[100, 200], [101, 195]]);
  read(fn: 3 | 4, address: number, count: number): number[] | null {
    return readHoldingRegisters(this.registers, fn, address, count);
  }
  write(address: number, values: number[]): boolean {
    if (address !== 100) return false;
    this.registers.set(100, values[0]!);
    return true;
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

export async function benchCommands(): Promise<Record<string, number | string>> {
  const dir = mkdtempSync(join(tmpdir(), 'hub-bench-commands-'));
  const broker = await startBroker();
  const modbus = await ModbusSimServer.tcp(new Map([[1, new HeatPump()]]));
  const chargerIds = Array.from({ length: EVENT_DEVICES }, (_, i) => `6f1c2a4e-0000-4000-8000-${String(i).padStart(12, '0')}`);
  const records = [
    { kind: 'charger', id: CHARGER, userId: 'bench', staticData: { vendor: 'GO_E', model: 'go-e' }, driver: { type: 'go-e', serial: '900001' } },
    // No driver of its own: its charging stop goes to the charger its owner has it plugged into.
    { kind: 'vehicle', id: VEHICLE, userId: 'bench', staticData: { vendor: 'TESLA', model: 'Model 3' } },
    {
      kind: 'hvac', id: HEAT_PUMP, userId: 'bench', type: 'HEATING_CIRCUIT', staticData: { vendor: 'VAILLANT', model: 'bench' },
      driver: {
        type: 'modbus-registers', host: '127.0.0.1', port: modbus.port, unitId: 1, kind: 'hvac', pollIntervalMs: 5000,
        points: { setpoint: { register: 100, type: 'int16', scale: 0.1 }, room: { register: 101, type: 'int16', scale: 0.1 } },
        fields: { targetTemperature: { point: 'setpoint', digits: 1 }, roomTemperature: { point: 'room', digits: 1 } },
        commands: { SET_TEMPERATURE: { point: 'setpoint', value: { from: 'payload', field: 'temperature' }, confirmField: 'targetTemperature' } },
      },
    },
    ...chargerIds.map((id, i) => ({ kind: 'charger', id, userId: `feed-${i % 10}`, staticData: { vendor: 'GO_E', model: 'go-e' }, driver: { type: 'go-e', serial: String(800000 + i) } })),
  ];
  const daemon = new Daemon({
    config: ConfigSchema.parse({ dataDir: join(dir, 'data'), http: { port: 0 }, apiKey: KEY, mqtt: { url: broker.url } }),
    log: silentLogger(),
    beforeListen: (store) => {
      const prepared = prepareImport(records, Date.now(), () => undefined);
      store.importDevices(prepared.devices, prepared.images, Date.now());
    },
  });
  const sim = new GoESim(broker.url, '900001');
  const out: Record<string, number | string> = {};
  try {
    await daemon.start();
    await daemon.broker!.whenConnected(AbortSignal.timeout(10_000));
    await sim.start();
    await sim.plugIn();
    await daemon.events.next((e) => e.type === 'update' && e.device.id === CHARGER && e.device.state?.['isPlugged'] === true, 10_000);

    // Command events are recorded as they come: one may finish before its HTTP answer is read.
    const finished = new Map<string, Extract<HubEvent, { type: 'command' }>>();
    daemon.events.on((e) => {
      if (e.type === 'command') finished.set(e.command.id, e);
    });
    const executed = async (id: string) => {
      const seen = finished.get(id);
      if (seen) return seen;
      return (await daemon.events.next((e) => e.type === 'command' && e.command.id === id, 15_000)) as Extract<HubEvent, { type: 'command' }>;
    };

    // 1a. MQTT: POST charging-stop → EXECUTED (frc/set → frc/result on the simulator).
    const mqttMs: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const t0 = performance.now();
      const res = await fetch(`${daemon.url}/v1.0.0/vehicles/${VEHICLE}/commands/charging-stop`, { method: 'POST', headers: { 'x-api-key': KEY } });
      const { id } = (await res.json()) as { id: string };
      const done = await executed(id);
      if (done.command.state !== 'EXECUTED') throw new Error(`MQTT command ${done.command.state}: ${done.command.failedReason}`);
      mqttMs.push(performance.now() - t0);
    }
    // 1b. the simulator's own round trip: a bare client publishes frc/set and waits for frc/result.
    const bare = await mqtt.connectAsync(broker.url);
    // Subscribed like the hub is, so that both get the same traffic from the simulator.
    await bare.subscribeAsync(['car', 'frc', 'nrg', 'frc/result'].map((key) => `go-eCharger/900001/${key}`));
    const floorMqtt: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const t0 = performance.now();
      const answered = new Promise<void>((resolve) => {
        const onMessage = (topic: string) => {
          if (!topic.endsWith('/frc/result')) return;
          bare.off('message', onMessage);
          resolve();
        };
        bare.on('message', onMessage);
      });
      await bare.publishAsync('go-eCharger/900001/frc/set', '1');
      await answered;
      floorMqtt.push(performance.now() - t0);
    }
    await bare.endAsync();

    // 1c. Modbus: SET_TEMPERATURE stored as the API stores it → written → read back → EXECUTED.
    const modbusMs: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const t0 = performance.now();
      const now = Date.now();
      const command = daemon.db.commands.create({
        id: crypto.randomUUID(), deviceId: HEAT_PUMP, deviceKind: 'hvac', userId: 'bench', type: 'SET_TEMPERATURE',
        payload: { temperature: 18 + (i % 50) / 10 }, createdAtMs: now, expiresAtMs: now + 60_000,
      });
      const done = executed(command.id);
      daemon.runtime.commandCreated(command);
      const result = await done;
      if (result.command.state !== 'EXECUTED') throw new Error(`Modbus command ${result.command.state}: ${result.command.failedReason}`);
      modbusMs.push(performance.now() - t0);
    }
    // 1d. the simulator's own round trip: a bare modbus-serial client writes and reads back.
    const client = new ModbusSerial.default();
    await client.connectTCP('127.0.0.1', { port: modbus.port });
    client.setID(1);
    const floorModbus: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const t0 = performance.now();
      await client.writeRegisters(100, [180 + (i % 50)]);
      await client.readHoldingRegisters(100, 2);
      floorModbus.push(performance.now() - t0);
    }
    await new Promise<void>((resolve) => client.close(() => resolve()));

    const mqttP50 = percentile(mqttMs, 50);
    const modbusP50 = percentile(modbusMs, 50);
    Object.assign(out, {
      'command over MQTT p50 (ms)': round(mqttP50), 'command over MQTT p99 (ms)': round(percentile(mqttMs, 99)),
      'MQTT simulator round trip p50 (ms)': round(percentile(floorMqtt, 50)),
      'command over MQTT p50 beyond the simulator (ms, target < 20)': round(mqttP50 - percentile(floorMqtt, 50)),
      'command over Modbus p50 (ms)': round(modbusP50), 'command over Modbus p99 (ms)': round(percentile(modbusMs, 99)),
      'Modbus simulator write+read p50 (ms)': round(percentile(floorModbus, 50)),
      'command over Modbus p50 beyond the simulator (ms, target < 20)': round(modbusP50 - percentile(floorModbus, 50)),
    });

    // 2. events with 100 devices: the feeder changes every charger's power as fast as it can.
    const listener = await mqtt.connectAsync(broker.url);
    let events = 0;
    listener.on('message', () => events++);
    await listener.subscribeAsync('home-energy-hub/events/charger/update', { qos: 1 });
    const feeder = await mqtt.connectAsync(broker.url);
    for (let i = 0; i < EVENT_DEVICES; i++) await feeder.publishAsync(`go-eCharger/${800000 + i}/mcc`, 'true', { retain: true });
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let published = 0;
    const end = t0 + EVENT_SECONDS * 1000;
    events = 0;
    while (performance.now() < end) {
      const batch: Promise<unknown>[] = [];
      for (let i = 0; i < EVENT_DEVICES; i++) {
        batch.push(feeder.publishAsync(`go-eCharger/${800000 + i}/nrg`, JSON.stringify([230, 230, 230, 0, 1, 1, 1, 230, 230, 230, 0, 690 + (published % 1000), 99, 99, 99, 0]), { qos: 0 }));
        published++;
      }
      await Promise.all(batch);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    await feeder.endAsync();
    await listener.endAsync();
    Object.assign(out, {
      'events: state messages in per second (100 devices)': Math.round(published / seconds),
      'events: update events out per second': Math.round(events / seconds),
      'events: process CPU while feeding (% of one core, feeder and broker client included)': Math.round(((cpu.user + cpu.system) / 1e6 / seconds) * 100),
      'events: note': `state is written and told once per device per flush (${daemon.mqtt!.settings.flushMs} ms), so at most ${Math.round(EVENT_DEVICES * 1000 / daemon.mqtt!.settings.flushMs)} update events/s`,
    });
  } finally {
    await sim.stop();
    await daemon.stop();
    await modbus.close();
    await broker.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchCommands().then((figures) => {
    for (const [name, value] of Object.entries(figures)) process.stdout.write(`${name}: ${value}\n`);
    process.exit(0);
  }, (err: Error) => {
    process.stderr.write(`bench/commands failed: ${err.stack ?? err.message}\n`);
    process.exit(1);
  });
}
