// The built hub (compiled JavaScript, as installed) whose wall clock is stepped from outside by
// libfaketime, as NTP steps a gateway's: it boots a week behind (a Raspberry Pi has no battery clock and starts at the
// last time it saved), is set forward, then a bad source steps it back 2 h, then a wrong 26 h forward
// step is corrected. Its devices are real peers on loopback: a Modbus PV inverter (the SunSpec
// simulator), a Daikin AC over HTTP, a go-e charger and an ESPAltherma heat pump over the project's
// own broker. Through every step polling goes on, a refresh answers, the charger that speaks stays
// online, a command submitted before the forward step while its unit was offline is carried out once
// and EXECUTED, and /health (still up) and /metrics tell the steps. Every wait is for what is expected
// (the peers' request counts, the hub's answers), with a bound, never a sleep.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '../support/process.ts';
import { startBroker } from '../support/broker.ts';
import { skipWithout } from '../support/peers.ts';
import { startFakedClockHub } from '../support/faked-clock.ts';
import { Store } from '../../src/store/store.ts';
import { prepareImport } from '../../src/domain/import.ts';
import { ModbusSimServer } from '../../src/sim/modbus-sim-server.ts';
import { SiteModel } from '../../src/sim/site-model.ts';
import { sunspecInverter } from '../../src/sim/sunspec-sims.ts';
import { DaikinSim } from '../../src/sim/http/daikin-sim.ts';
import { GoESim } from '../../src/sim/mqtt/go-e-sim.ts';
import { EspAlthermaSim } from '../../src/sim/mqtt/espaltherma-sim.ts';
import { drivenRecord } from '../support/mqtt-hub.ts';

const KEY = 'clock-step-test-key-0123456789abc';
const PV = '1e6d3b2f-8b5c-4a8f-8c4f-2b3c4d5e6fc1';
const AC = '3a1b2c3d-0000-4000-8000-00000000acc1';
const CHARGER = '6f1c2a4e-0000-4000-8000-00000000c0c1';
const HEAT_PUMP = '7d2e3f4a-0000-4000-8000-00000000a0c1';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Health {
  status: string;
  clock?: { steps: number; lastStep: { at: string; stepS: number } };
}

test('the built hub through steps of its wall clock: polling, refreshes, MQTT presence and a waiting command carry on; /health and /metrics tell the steps',
  { skip: skipWithout('libfaketime', 'mosquitto'), timeout: 240_000 }, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'hub-clock-step-'));
    const broker = await startBroker();
    const site = new SiteModel({ now: () => Date.parse('2026-06-21T12:00:00Z') });
    const modbus = await ModbusSimServer.tcp(new Map([[1, sunspecInverter(site)]]));
    const daikin = await new DaikinSim().start();
    // It speaks when told to (tick), as a charger that last spoke a moment before a step; this firmware
    // says nothing of its presence (no mcc, no last will): only its silence (60 s allowed) tells.
    const charger = new GoESim(broker.url, '246810', 'go-eCharger', { firmware: 'captured', rbtIntervalMs: 0 });
    const heatPumps = [new EspAlthermaSim(broker.url, { intervalMs: 1000 })];
    t.after(async () => {
      await charger.stop();
      for (const sim of heatPumps) await sim.stop();
      await daikin.stop();
      await modbus.close();
      await broker.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    const dataDir = join(dir, 'data');
    const configFile = join(dir, 'hub.yaml');
    writeFileSync(configFile, `mqtt:\n  url: ${broker.url}\n  protocolVersion: ${broker.supportsMqtt5 ? 5 : 4}\n  staleAfterSeconds: 8\n`
      + 'commands:\n  ttlSeconds: 900\n  confirmTimeoutSeconds: 10\n');
    const seed = Store.open(join(dataDir, 'hub.db'));
    const records = [
      drivenRecord('pvInverter', PV, 'FRONIUS', { type: 'fronius', host: '127.0.0.1', port: modbus.port, unitId: 1, pollIntervalMs: 500 }),
      drivenRecord('hvac', AC, 'DAIKIN', { type: 'daikin-brp069', host: '127.0.0.1', port: daikin.port, pollIntervalMs: 1000 }, { type: 'AC' }),
      drivenRecord('charger', CHARGER, 'GO_E', { type: 'go-e', serial: '246810', staleAfterSeconds: '60' }),
      drivenRecord('hvac', HEAT_PUMP, 'DAIKIN', { type: 'espaltherma' }, { type: 'HEATING_CIRCUIT' }),
    ];
    const prepared = prepareImport(records, Date.now(), () => undefined);
    seed.importDevices(prepared.devices, prepared.images, Date.now());
    seed.close();
    await charger.start();
    await heatPumps[0]!.start();

    // Booted a week behind, at the time it last saved.
    const realNow = Date.now();
    const hub = await startFakedClockHub({ HUB_DATA_DIR: dataDir, HUB_API_KEY: KEY, HUB_CONFIG: configFile }, join(dir, 'faketime'), realNow - 7 * DAY);
    t.after(() => hub.kill());
    const api = (path: string, init: RequestInit = {}) => fetch(`${hub.url}/v1.0.0${path}`, {
      ...init, headers: { 'x-api-key': KEY, 'content-type': 'application/json', ...init.headers }, signal: AbortSignal.timeout(15_000),
    });
    const device = async (path: string) => (await (await api(`/users/household-1/${path}`)).json()) as { isOnline: boolean };
    const health = async () => (await (await fetch(`${hub.url}/health`)).json()) as Health;
    const stepsTold = (n: number) => until(`/health to tell step ${n}`, async () => {
      const body = await health();
      return body.clock && body.clock.steps >= n ? body : undefined;
    });
    const polledOn = async (what: string) => {
      // Modbus: 10 more requests on the inverter (5 polls at 500 ms); HTTP: 4 more on the AC.
      const modbusAt = modbus.requests.get(1) ?? 0;
      await until(`Modbus polls to go on ${what}`, () => ((modbus.requests.get(1) ?? 0) >= modbusAt + 10 ? true : undefined), 15_000);
      await daikin.requestsReach(daikin.requests.length + 4, 15_000);
    };
    const refreshAnswers = async (what: string) => {
      const res = await api(`/pv-inverters/${PV}/refresh`);
      assert.equal(res.status, 200, `a refresh ${what}: ${await res.text()}`);
    };
    const powerCommands = () => heatPumps.flatMap((sim) => sim.received).filter((m) => m.topic.endsWith('/POWER'));

    await until('every device to be online', async () => {
      const all = await Promise.all([device(`pv-inverters/${PV}`), device(`hvacs/${AC}`), device(`chargers/${CHARGER}`), device(`hvacs/${HEAT_PUMP}`)]);
      return all.every((d) => d.isOnline) ? true : undefined;
    }, 30_000);

    // The heat pump goes away (its board's last will says Offline); a partner turns it off meanwhile.
    heatPumps[0]!.drop();
    await until('the heat pump to be shown offline', async () => ((await device(`hvacs/${HEAT_PUMP}`)).isOnline ? undefined : true));
    const submitted = await api(`/hvacs/${HEAT_PUMP}/commands/mode`, { method: 'POST', body: JSON.stringify({ mode: 'OFF' }) });
    const answer = await submitted.text();
    assert.equal(submitted.status, 200, answer);
    const commandId = (JSON.parse(answer) as { id: string }).id;
    const command = async () => {
      const list = (await (await api(`/users/household-1/hvacs/${HEAT_PUMP}/commands?state=ALL`)).json()) as { id: string; state: string; failedReason?: string; waitingReason?: string }[];
      return list.find((c) => c.id === commandId);
    };
    await until('the command to wait for its unit', async () => ((await command())?.waitingReason ? true : undefined));

    // NTP sets the clock: a week forward.
    // (libfaketime reads the file at every look at the clock: the step is in force once written.)
    await charger.tick();
    hub.setTo(Date.now());
    await polledOn('after the step forward');
    await refreshAnswers('after the step forward');
    assert.equal((await device(`chargers/${CHARGER}`)).isOnline, true, 'the charger that speaks stays online');
    const forward = await stepsTold(1);
    assert.equal(forward.status, 'up', 'a step is told, not a fault');
    assert.ok(Math.abs(forward.clock!.lastStep.stepS - 7 * 24 * 3600) < 60, `stepped ${forward.clock!.lastStep.stepS} s`);
    const waiting = await command();
    assert.equal(waiting?.state, 'PENDING');
    const named = Date.parse(/not by (\S+Z)\.$/.exec(waiting?.waitingReason ?? '')?.[1] ?? '');
    assert.ok(named > Date.now() + 5 * 60_000, `the deadline it names is still ahead: ${waiting?.waitingReason}`);

    // The unit comes back: the command is carried out once, and EXECUTED.
    const back = new EspAlthermaSim(broker.url, { intervalMs: 1000 });
    heatPumps.push(back);
    await back.start();
    const done = await until('the command to end', async () => {
      const c = await command();
      return c && c.state !== 'PENDING' ? c : undefined;
    }, 30_000);
    assert.equal(done.state, 'EXECUTED', done.failedReason);
    assert.equal(back.thermostat, 'OFF');
    assert.equal(powerCommands().length, 1, 'carried out once');

    // A bad time source: 2 h back.
    await charger.tick();
    hub.setTo(Date.now() - 2 * HOUR);
    await polledOn('after the step back');
    await refreshAnswers('after the step back');
    assert.equal((await device(`chargers/${CHARGER}`)).isOnline, true);
    const backStep = await stepsTold(2);
    assert.equal(backStep.status, 'up');
    assert.ok(Math.abs(backStep.clock!.lastStep.stepS + 2 * 3600) < 60, `stepped ${backStep.clock!.lastStep.stepS} s`);

    // A wrong step 26 h forward, then corrected.
    await charger.tick();
    hub.setTo(Date.now() + 26 * HOUR);
    await polledOn('after a wrong step forward');
    assert.equal((await device(`chargers/${CHARGER}`)).isOnline, true, 'the charger that spoke a moment ago stays online');
    await stepsTold(3);
    hub.setTo(Date.now());
    await polledOn('after the wrong step was corrected');
    await refreshAnswers('after the wrong step was corrected');
    await stepsTold(4);
    assert.equal((await device(`chargers/${CHARGER}`)).isOnline, true);
    assert.equal((await device(`hvacs/${HEAT_PUMP}`)).isOnline, true);

    const metrics = await (await fetch(`${hub.url}/metrics`, { headers: { 'x-api-key': KEY } })).text();
    assert.match(metrics, /^hub_clock_steps_total 4$/m);
    assert.equal((await health()).status, 'up');
    assert.equal(powerCommands().length, 1, 'never twice');
  });
