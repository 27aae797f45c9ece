// The Daikin driver against its simulator: an AC's room and outside temperature, mode, power and
// setpoint from the adapter's key=value answers; SET_TEMPERATURE and SET_MODE through the command
// worker (read, change one setting, write all, confirm by reading back); BRP072C over HTTPS with
// its registered uuid; an adapter that drops requests coming too close together.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DaikinSim } from '../../../src/sim/http/daikin-sim.ts';
import { deviceCertificate, httpRecord, started, startHttpHub } from '../../support/http-hub.ts';

const AC = '00000000-0000-4000-8000-0000000000d1';

function acRecord(driver: Record<string, unknown>) {
  return httpRecord('hvac', AC, 'DAIKIN', driver, { type: 'AC' });
}

test('Daikin: room and outside temperature, mode, power and setpoint of the AC; "-" (no sensor) leaves a field out', async (t) => {
  const sim = await started(t, new DaikinSim({ roomTemperature: 26.5, outsideTemperature: 33 }));
  const hub = await startHttpHub(t, [acRecord({ type: 'daikin-brp069', host: '127.0.0.1', port: sim.port })]);
  const ac = await hub.until(AC, (d) => d.isOnline && d.state?.['roomTemperature'] !== undefined);
  assert.deepEqual({ ...ac.state, lastUpdated: undefined }, {
    lastUpdated: undefined, roomTemperature: 26.5, outsideTemperature: 33, compressorFrequency: 40, mode: 'COOL', power: 'ON',
    targetTemperature: 22, fanRate: 'A', errorCode: '0',
  });
  assert.equal(ac.state?.['roomHumidity'], undefined);
});

test('Daikin: SET_TEMPERATURE and SET_MODE are sent with every setting the adapter needs and confirmed by reading back', async (t) => {
  const sim = await started(t, new DaikinSim());
  const hub = await startHttpHub(t, [acRecord({ type: 'daikin-brp069', host: '127.0.0.1', port: sim.port })]);
  await hub.until(AC, (d) => d.isOnline);
  const temperature = await hub.commandDone(hub.submit(AC, 'SET_TEMPERATURE', { temperature: 23.5 }).id);
  assert.equal(temperature.state, 'EXECUTED', temperature.failedReason ?? '');
  const set = sim.requests.filter((q) => q.path === '/aircon/set_control_info');
  assert.deepEqual(Object.fromEntries(set[0]!.query), { pow: '1', mode: '3', stemp: '23.5', shum: '0', f_rate: 'A', f_dir: '0' });
  assert.equal(hub.device(AC)!.state?.['targetTemperature'], 23.5);
  // HEAT takes the setpoint the unit keeps for heating (dt4).
  const heat = await hub.commandDone(hub.submit(AC, 'SET_MODE', { mode: 'HEAT' }).id);
  assert.equal(heat.state, 'EXECUTED', heat.failedReason ?? '');
  assert.equal(hub.device(AC)!.state?.['mode'], 'HEAT');
  assert.equal(hub.device(AC)!.state?.['targetTemperature'], 21);
  // OFF powers off and keeps the mode.
  const off = await hub.commandDone(hub.submit(AC, 'SET_MODE', { mode: 'OFF' }).id);
  assert.equal(off.state, 'EXECUTED', off.failedReason ?? '');
  assert.deepEqual(Object.fromEntries(sim.requests.filter((q) => q.path === '/aircon/set_control_info').at(-1)!.query), { pow: '0', mode: '4', stemp: '21.0', shum: '0', f_rate: 'A', f_dir: '0' });
  assert.equal(hub.device(AC)!.state?.['mode'], 'OFF');
  assert.equal(hub.device(AC)!.state?.['power'], 'OFF');
  // AUTO: the units report no dt0 (pydaikin's samples): the setpoint of the unit's auto variant
  // (dt1) goes with it, and the unit is powered on again.
  const auto = await hub.commandDone(hub.submit(AC, 'SET_MODE', { mode: 'AUTO' }).id);
  assert.equal(auto.state, 'EXECUTED', auto.failedReason ?? '');
  assert.deepEqual(Object.fromEntries(sim.requests.filter((q) => q.path === '/aircon/set_control_info').at(-1)!.query),
    { pow: '1', mode: '0', stemp: sim.control['dt1'], shum: sim.control['dh1'], f_rate: 'A', f_dir: '0' });
  assert.equal(hub.device(AC)!.state?.['mode'], 'AUTO');
  // A mode the unit has no equivalent of fails with the list, and nothing is sent.
  const sent = sim.requests.length;
  const reduced = await hub.commandDone(hub.submit(AC, 'SET_MODE', { mode: 'REDUCED' }).id);
  assert.equal(reduced.state, 'FAILED');
  assert.match(reduced.failedReason ?? '', /accepts OFF, AUTO, DRY, COOL, HEAT/);
  assert.equal(sim.requests.length, sent);
  // Out of range: refused before sending.
  const hot = await hub.commandDone(hub.submit(AC, 'SET_TEMPERATURE', { temperature: 40 }).id);
  assert.equal(hot.state, 'FAILED');
});

test('Daikin: an adapter that has just gone away keeps the command, which is carried out once it answers again', async (t) => {
  const sim = await started(t, new DaikinSim());
  const port = sim.port;
  const hub = await startHttpHub(t, [acRecord({ type: 'daikin-brp069', host: '127.0.0.1', port, pollIntervalMs: 60_000 })]);
  await hub.until(AC, (d) => d.isOnline);
  await sim.stop(); // the hub has not polled since: it still counts the adapter reachable
  const submitted = hub.submit(AC, 'SET_TEMPERATURE', { temperature: 24 });
  await hub.event((e) => e.type === 'command' || (e.device.id === AC && !hub.device(AC)!.isOnline), 5_000).catch(() => undefined);
  const waiting = hub.daemon.db.commands.get(submitted.id)!;
  assert.equal(waiting.state, 'PENDING', `a refused connection sent nothing, so the command waits (${waiting.failedReason})`);
  await sim.start({ port });
  const done = await hub.commandDone(submitted.id, 30_000);
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
  assert.equal(hub.device(AC)!.state?.['targetTemperature'], 24);
});

test('Daikin: a setting the adapter refuses (ret=PARAM NG) fails the command with that reason', async (t) => {
  const sim = await started(t, new DaikinSim());
  const hub = await startHttpHub(t, [acRecord({ type: 'daikin-brp069', host: '127.0.0.1', port: sim.port })]);
  await hub.until(AC, (d) => d.isOnline);
  // The unit is in dry mode: its stemp is M, and the adapter refuses a number out of range anyway.
  sim.control['mode'] = '5';
  const command = await hub.commandDone(hub.submit(AC, 'SET_TEMPERATURE', { temperature: 20 }).id);
  assert.equal(command.state, 'FAILED');
  assert.match(command.failedReason ?? '', /refused the setting \(ret=PARAM NG\)/);
});

test('Daikin BRP072C: HTTPS with the pinned certificate and the registered X-Daikin-uuid', async (t) => {
  const cert = deviceCertificate(t, 'daikin');
  const sim = await started(t, new DaikinSim({ uuid: '0123456789abcdef0123456789abcdef' }), cert);
  const driver = { type: 'daikin-brp069', host: '127.0.0.1', port: sim.port, scheme: 'https', tls: cert.pinned };
  const hub = await startHttpHub(t, [acRecord({ ...driver, uuid: '0123456789abcdef0123456789abcdef' })]);
  await hub.until(AC, (d) => d.isOnline && d.state?.['mode'] === 'COOL');
  assert.equal(sim.requests.at(-1)!.headers['x-daikin-uuid'], '0123456789abcdef0123456789abcdef');
});

test('Daikin: the driver\'s 500 ms gap keeps its requests under an adapter that refuses requests coming too close together', async (t) => {
  const sim = await started(t, new DaikinSim());
  // One request per 400 ms, else 429: the two endpoints of a poll read back to back would be refused.
  sim.faults.rateLimitAfter = 1;
  sim.faults.rateWindowMs = 400;
  sim.faults.retryAfterSeconds = 1;
  const hub = await startHttpHub(t, [acRecord({ type: 'daikin-brp069', host: '127.0.0.1', port: sim.port, pollIntervalMs: 500 })]);
  // The driver's own 500 ms gap between requests keeps it under the limit: no 429 at all.
  await hub.until(AC, (d) => d.isOnline && d.state?.['mode'] === 'COOL');
  assert.ok(sim.requests.length >= 2);
});

test('Daikin BRP084 (JSON API): hex values decoded (room 25 °C, outside −5 °C, setpoint 22 °C from "2C"); SET_TEMPERATURE writes the setpoint of the mode in force, SET_MODE powers on and sets the mode', async (t) => {
  const { DaikinBrp084Sim } = await import('../../../src/sim/http/daikin-brp084-sim.ts');
  const sim = await started(t, new DaikinBrp084Sim());
  const hub = await startHttpHub(t, [acRecord({ type: 'daikin-brp084', host: '127.0.0.1', port: sim.port })]);
  const ac = await hub.until(AC, (d) => d.isOnline && d.state?.['roomTemperature'] !== undefined);
  assert.deepEqual({ ...ac.state, lastUpdated: undefined }, {
    lastUpdated: undefined, roomTemperature: 25, roomHumidity: 55, outsideTemperature: -5, mode: 'COOL', power: 'ON', targetTemperature: 22,
  });
  const set = await hub.commandDone(hub.submit(AC, 'SET_TEMPERATURE', { temperature: 23.5 }).id);
  assert.equal(set.state, 'EXECUTED', set.failedReason ?? '');
  assert.equal(sim.indoor['e_3001/p_02'], '2F');
  assert.equal(hub.device(AC)!.state?.['targetTemperature'], 23.5);
  const heat = await hub.commandDone(hub.submit(AC, 'SET_MODE', { mode: 'HEAT' }).id);
  assert.equal(heat.state, 'EXECUTED', heat.failedReason ?? '');
  // In heating the setpoint shown is the heating one (p_03, 21 °C); a new one goes there.
  assert.equal(hub.device(AC)!.state?.['targetTemperature'], 21);
  const warm = await hub.commandDone(hub.submit(AC, 'SET_TEMPERATURE', { temperature: 20 }).id);
  assert.equal(warm.state, 'EXECUTED', warm.failedReason ?? '');
  assert.deepEqual([sim.indoor['e_3001/p_02'], sim.indoor['e_3001/p_03']], ['2F', '28']);
  const off = await hub.commandDone(hub.submit(AC, 'SET_MODE', { mode: 'OFF' }).id);
  assert.equal(off.state, 'EXECUTED', off.failedReason ?? '');
  assert.equal(sim.indoor['e_A002/p_01'], '00');
  assert.equal(sim.indoor['e_3001/p_01'], '0100', 'off keeps the mode');
  assert.equal(hub.device(AC)!.state?.['mode'], 'OFF');
});

test('Daikin: the AC keeps no program of its own, so the hub runs a weekly schedule through SET_MODE and SET_TEMPERATURE', async (t) => {
  const sim = await started(t, new DaikinSim());
  const hub = await startHttpHub(t, [acRecord({ type: 'daikin-brp069', host: '127.0.0.1', port: sim.port, timeZone: 'Europe/Berlin' })]);
  await hub.until(AC, (d) => d.isOnline);
  // One event: in force all week, so it is applied at once.
  const response = await hub.api(`/hvacs/${AC}/commands/schedule`, {
    method: 'POST', json: { schedules: [{ mode: 'HEAT', temperature: 20.5, start: { day: 'MONDAY', time: '05:00' } }] },
  });
  assert.equal(response.status, 200, await response.clone().text());
  const done = await hub.commandDone(((await response.json()) as { id: string }).id);
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
  assert.deepEqual([sim.control['pow'], sim.control['mode'], sim.control['stemp']], ['1', '4', '20.5']);
  assert.equal(hub.device(AC)!.state?.['mode'], 'HEAT');
});

test('Daikin: a hub-run schedule with an event the AC cannot carry out fails at once with the reason, whichever event is in force, and nothing is written', async (t) => {
  const sim = await started(t, new DaikinSim());
  const hub = await startHttpHub(t, [acRecord({ type: 'daikin-brp069', host: '127.0.0.1', port: sim.port, timeZone: 'UTC' })]);
  await hub.until(AC, (d) => d.isOnline);
  const schedule = async (bad: Record<string, unknown>) => {
    // The bad event lasts one minute of the week; the one in force now is (almost surely) a good one.
    const response = await hub.api(`/hvacs/${AC}/commands/schedule`, {
      method: 'POST',
      json: { schedules: [
        { mode: 'HEAT', temperature: 21, start: { day: 'MONDAY', time: '00:00' } },
        { ...bad, start: { day: 'MONDAY', time: '00:01' } },
        { mode: 'COOL', temperature: 24, start: { day: 'MONDAY', time: '00:02' } },
      ] },
    });
    assert.equal(response.status, 200, await response.clone().text());
    return hub.commandDone(((await response.json()) as { id: string }).id);
  };
  const reduced = await schedule({ mode: 'REDUCED' });
  assert.equal(reduced.state, 'FAILED');
  assert.match(reduced.failedReason ?? '', /schedules\[1\].*no equivalent of mode REDUCED; it accepts OFF, AUTO, DRY, COOL, HEAT/);
  const hot = await schedule({ mode: 'HEAT', temperature: 45 });
  assert.equal(hot.state, 'FAILED');
  assert.match(hot.failedReason ?? '', /schedules\[1\].*temperature 45 is outside what the device accepts \(10 to 32\)/);
  assert.equal(sim.requests.filter((q) => q.path === '/aircon/set_control_info').length, 0, 'nothing was written');
});
