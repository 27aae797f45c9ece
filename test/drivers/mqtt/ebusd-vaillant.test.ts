// The ebusd Vaillant definitions (zone and hot water of a VRC700/VRC720) against a simulator that
// publishes what ebusd 26.1's MQTT client publishes with the generated definitions it downloads by
// default (Z1DayTemp, Z1Timer_Monday) or the archived ones (z1DayTemp, z1Timer.Monday), in plain,
// --mqttjson and --mqttjson=short output, through a real broker and a whole hub: messages to stored
// telemetry, poll priorities set by the hub, the last will, writes confirmed by the republished
// message, refusals that only time out, and a week's schedule arriving as seven day programs in the
// controller's local time, a window ending at midnight read back as TTM's `-:-`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EbusdVaillantSim, type EbusdSimOptions } from '../../../src/sim/mqtt/ebusd-vaillant-sim.ts';
import { offsetMinutes } from '../../../src/runtime/commands/schedules.ts';
import { drivenRecord, startMqttHub } from '../../support/mqtt-hub.ts';

const ZONE = '7a1c0e00-0000-4000-8000-0000000e0001';
const DHW = '7a1c0e00-0000-4000-8000-0000000e0002';

async function setup(t: import('node:test').TestContext, config: Record<string, unknown> = {}, ebusd: EbusdSimOptions = {}, binding: Record<string, string> = {}) {
  const hub = await startMqttHub(t, {
    records: [
      drivenRecord('hvac', ZONE, 'VAILLANT', { type: 'ebusd-vaillant-zone', timeZone: 'Europe/Berlin', ...binding }, { type: 'HEATING_CIRCUIT' }),
      drivenRecord('hvac', DHW, 'VAILLANT', { type: 'ebusd-vaillant-dhw', timeZone: 'Europe/Berlin', ...binding }, { type: 'DHW' }),
    ],
    config,
  });
  const sim = new EbusdVaillantSim(hub.broker.url, ebusd);
  t.after(() => sim.stop());
  const zone = hub.event((e) => e.type === 'update' && e.device.id === ZONE && e.device.isOnline && e.device.state?.['timerSunday'] !== undefined);
  const dhw = hub.event((e) => e.type === 'update' && e.device.id === DHW && e.device.isOnline && e.device.state?.['timerSunday'] !== undefined);
  await sim.start();
  await Promise.all([zone, dhw]);
  return { hub, sim };
}

const sets = (sim: EbusdVaillantSim) => sim.received.filter((m) => m.topic.endsWith('/set'));

test('ebusd: the controller\'s messages become the zone\'s and the hot water\'s telemetry; the API shows only reachability', async (t) => {
  const { hub, sim } = await setup(t);
  const warmer = hub.event((e) => e.type === 'update' && e.device.id === ZONE && e.device.state?.['roomTemperature'] === 21.5);
  await sim.update('Z1RoomTemp', '21.5');
  await warmer;
  const { lastUpdated, ...zone } = hub.device(ZONE)!.state!;
  assert.match(String(lastUpdated), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.deepEqual(zone, {
    roomTemperature: 21.5, targetTemperature: 21, reducedTemperature: 17, desiredTemperature: 21, opMode: 'auto', specialMode: 'auto',
    outsideTemperature: 4.5,
    timerMonday: '06:00;22:00;-:-;-:-;-:-;-:-', timerTuesday: '06:00;22:00;-:-;-:-;-:-;-:-', timerWednesday: '06:00;22:00;-:-;-:-;-:-;-:-',
    timerThursday: '06:00;22:00;-:-;-:-;-:-;-:-', timerFriday: '06:00;22:00;-:-;-:-;-:-;-:-', timerSaturday: '06:00;22:00;-:-;-:-;-:-;-:-',
    timerSunday: '06:00;22:00;-:-;-:-;-:-;-:-',
  });
  const dhw = hub.device(DHW)!.state!;
  assert.equal(dhw['waterTemperature'], 46.5);
  assert.equal(dhw['targetTemperature'], 50);
  assert.equal(dhw['timerMonday'], '05:30;07:00;17:00;21:00;-:-;-:-');

  const list = await hub.api('/users/household-1/hvacs');
  const items = ((await list.json()) as { content: Record<string, unknown>[] }).content;
  const item = items.find((i) => i['id'] === ZONE)!;
  assert.equal(item['isOnline'], true);
  assert.equal(item['type'], 'HEATING_CIRCUIT');
  assert.equal(item['roomTemperature'], undefined, 'telemetry is not part of the API');
  const vendors = (await (await hub.api('/connections/available-vendors')).json()) as { hvac: { id: string }[] };
  assert.ok(vendors.hvac.some((v) => v.id === 'VAILLANT'));
});

test('ebusd: a refresh asks ebusd to read each message with …/get', async (t) => {
  const { hub, sim } = await setup(t);
  const before = sim.received.length;
  await hub.daemon.mqtt!.refresh(hub.device(ZONE)!);
  const gets = sim.received.slice(before).filter((m) => m.topic.endsWith('/get')).map((m) => `${m.topic} ${JSON.stringify(m.payload)}`);
  assert.deepEqual(gets, [
    'ebusd/700/Z1RoomTemp/get ""', 'ebusd/700/Z1DayTemp/get ""', 'ebusd/700/Z1NightTemp/get ""',
    'ebusd/700/Z1ActualRoomTempDesired/get ""', 'ebusd/700/Z1OpMode/get ""', 'ebusd/700/Z1SFMode/get ""', 'ebusd/700/DisplayedOutsideTemp/get ""',
  ]);
});

test('ebusd: an ebusd that has read nothing yet is told to poll what the hub shows (…/get with ?N), so no polling needs configuring', async (t) => {
  const hub = await startMqttHub(t, {
    records: [drivenRecord('hvac', ZONE, 'VAILLANT', { type: 'ebusd-vaillant-zone', pollPriority: '2' }, { type: 'HEATING_CIRCUIT' })],
  });
  const sim = new EbusdVaillantSim(hub.broker.url, { preread: false });
  t.after(() => sim.stop());
  const heard = hub.event((e) => e.type === 'update' && e.device.id === ZONE && e.device.state?.['targetTemperature'] === 21 && e.device.state?.['timerSunday'] !== undefined);
  // The hub was listening before ebusd started: it asks when ebusd says it runs (global/running).
  await sim.start();
  await heard;
  assert.deepEqual(Object.fromEntries(sim.pollPriorities), {
    Z1RoomTemp: 2, Z1DayTemp: 2, Z1NightTemp: 2, Z1ActualRoomTempDesired: 2, Z1OpMode: 2, Z1SFMode: 2, DisplayedOutsideTemp: 2,
  });
});

for (const names of ['generated', 'archived'] as const) {
  for (const output of ['plain', 'json', 'json-short'] as const) {
    test(`ebusd: ${names} message names, ${output} output: values are read, a setpoint and a schedule are written and confirmed`, async (t) => {
      const { hub, sim } = await setup(t, {}, { names, output });
      const zone = hub.device(ZONE)!.state!;
      assert.equal(zone['roomTemperature'], 20.5);
      assert.equal(zone['opMode'], 'auto');
      assert.equal(zone['timerMonday'], '06:00;22:00;-:-;-:-;-:-;-:-');
      assert.equal(hub.device(DHW)!.state!['timerMonday'], '05:30;07:00;17:00;21:00;-:-;-:-');
      const temperature = await hub.commandDone(hub.submit(ZONE, 'SET_TEMPERATURE', { temperature: 22.5 }).id);
      assert.equal(temperature.state, 'EXECUTED', temperature.failedReason ?? '');
      assert.equal(sim.messages.get('Z1DayTemp'), '22.5');
      const schedule = await hub.commandDone(hub.submit(DHW, 'SET_SCHEDULE', { schedules: [{ mode: 'HEAT', start: { day: 'MONDAY', time: '04:00' }, end: { day: 'MONDAY', time: '05:00' } }] }).id);
      assert.equal(schedule.state, 'EXECUTED', schedule.failedReason ?? '');
      const timer = names === 'generated' ? 'HwcTimer_' : 'hwcTimer.';
      assert.deepEqual(sets(sim).slice(1).map((m) => m.topic), ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'].map((d) => `ebusd/700/${timer}${d}/set`));
    });
  }
}

test('ebusd: a VRC720 (circuit 720: the generated 15.720.csv is the VRC700\'s file) is driven the same way', async (t) => {
  const { hub, sim } = await setup(t, {}, { circuit: '720' }, { circuit: '720' });
  assert.equal(hub.device(ZONE)!.state!['targetTemperature'], 21);
  const done = await hub.commandDone(hub.submit(ZONE, 'SET_MODE', { mode: 'REDUCED' }).id);
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
  assert.deepEqual(sets(sim), [{ topic: 'ebusd/720/Z1OpMode/set', payload: 'night' }]);
});

test('ebusd: the last will (global/running false) marks both devices offline, and they come back', async (t) => {
  const { hub, sim } = await setup(t);
  const zoneOff = hub.event((e) => e.type === 'offline' && e.device.id === ZONE);
  const dhwOff = hub.event((e) => e.type === 'offline' && e.device.id === DHW);
  sim.drop();
  await Promise.all([zoneOff, dhwOff]);
  assert.equal(hub.device(ZONE)?.isOnline, false);
  const back = hub.event((e) => e.type === 'update' && e.device.id === ZONE && e.device.isOnline);
  await sim.start();
  await back;
});

test('ebusd: temperature, mode and hot water boost are written to …/set and confirmed by the republished message', async (t) => {
  const { hub, sim } = await setup(t);
  const temperature = await hub.commandDone(hub.submit(ZONE, 'SET_TEMPERATURE', { temperature: 22.5 }).id);
  assert.equal(temperature.state, 'EXECUTED', temperature.failedReason ?? '');
  const mode = await hub.commandDone(hub.submit(ZONE, 'SET_MODE', { mode: 'REDUCED' }).id);
  assert.equal(mode.state, 'EXECUTED', mode.failedReason ?? '');
  const water = await hub.commandDone(hub.submit(DHW, 'SET_TEMPERATURE', { temperature: 55 }).id);
  assert.equal(water.state, 'EXECUTED', water.failedReason ?? '');
  const boost = await hub.commandDone(hub.submit(DHW, 'POWER_BOOST').id);
  assert.equal(boost.state, 'EXECUTED', boost.failedReason ?? '');
  assert.deepEqual(sets(sim), [
    { topic: 'ebusd/700/Z1DayTemp/set', payload: '22.5' },
    { topic: 'ebusd/700/Z1OpMode/set', payload: 'night' },
    { topic: 'ebusd/700/HwcTempDesired/set', payload: '55' },
    { topic: 'ebusd/700/HwcSFMode/set', payload: 'load' },
  ]);
  assert.equal(sim.messages.get('Z1DayTemp'), '22.5');
  assert.equal(sim.messages.get('HwcSFMode'), 'load');

  const cool = await hub.commandDone(hub.submit(ZONE, 'SET_MODE', { mode: 'COOL' }).id);
  assert.equal(cool.state, 'FAILED');
  assert.match(cool.failedReason ?? '', /no equivalent of mode COOL; it accepts AUTO, HEAT, REDUCED, OFF/);
  const zoneBoost = await hub.commandDone(hub.submit(ZONE, 'POWER_BOOST').id);
  assert.equal(zoneBoost.state, 'FAILED');
  assert.match(zoneBoost.failedReason ?? '', /POWER_BOOST is not supported by the device's driver \(ebusd-vaillant-zone\)/);
  assert.equal(sets(sim).length, 4, 'nothing is sent for a command the device cannot take');
});

test('ebusd: through the API, a zone shows its climate and modes, takes a temperature and a mode that reach ebusd and read back, and refuses what it cannot take', async (t) => {
  const { hub, sim } = await setup(t);
  const read = async () => {
    const res = await hub.api(`/users/household-1/hvacs/${ZONE}`);
    assert.equal(res.status, 200);
    return (await res.json()) as Record<string, any>;
  };
  const before = await read();
  assert.deepEqual(before.staticData.capableModes, ['HEAT', 'AUTO', 'REDUCED', 'OFF']);
  assert.equal(before.staticData.type, 'HEATING_CIRCUIT');
  const room = hub.device(ZONE)!.state!['roomTemperature'];
  assert.deepEqual(before.climateState, {
    lastUpdated: before.lastUpdated, mode: 'AUTO', isActive: true, temperatureCurrent: room, temperatureOutside: 4.5,
    temperatureTargets: [{ mode: 'HEAT', temperature: 21 }, { mode: 'REDUCED', temperature: 17 }],
  });
  assert.equal('powerState' in before, false, 'the controller reports no power: absent, not invented');

  const post = async (path: string, body: unknown) => hub.api(`/hvacs/${ZONE}/commands/${path}`, {
    method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' },
  });
  // The read-back is confirmed from the driver's latest values; the API shows them once they are stored (the update event).
  const stored = hub.event((e) => e.type === 'update' && e.device.id === ZONE && e.device.state?.['opMode'] === 'night' && e.device.state?.['targetTemperature'] === 22.5);
  const temperature = (await (await post('temperature', { temperature: 22.5 })).json()) as { id: string; state: string };
  assert.equal(temperature.state, 'PENDING');
  assert.equal((await hub.commandDone(temperature.id)).state, 'EXECUTED');
  const mode = (await (await hub.api(`/users/household-1/hvacs/${ZONE}/commands/mode`, {
    method: 'POST', body: JSON.stringify({ mode: 'REDUCED' }), headers: { 'content-type': 'application/json' },
  })).json()) as { id: string };
  assert.equal((await hub.commandDone(mode.id)).state, 'EXECUTED');
  assert.deepEqual(sets(sim), [{ topic: 'ebusd/700/Z1DayTemp/set', payload: '22.5' }, { topic: 'ebusd/700/Z1OpMode/set', payload: 'night' }]);
  await stored;
  const after = await read();
  assert.equal(after.climateState.mode, 'REDUCED');
  assert.deepEqual(after.climateState.temperatureTargets[0], { mode: 'HEAT', temperature: 22.5 });

  // Refused at the door: a mode the controller has no word for, a setpoint beyond its range.
  const cool = await post('mode', { mode: 'COOL' });
  assert.equal(cool.status, 400);
  assert.match(JSON.stringify(await cool.json()), /no equivalent of mode COOL; it accepts AUTO, HEAT, REDUCED, OFF/);
  assert.equal((await post('temperature', { temperature: 35 })).status, 400);
  assert.equal((await hub.api(`/hvacs/${ZONE}/commands?state=ALL`)).status, 200);
  const listed = (await (await hub.api(`/hvacs/${ZONE}/commands?state=ALL`)).json()) as unknown[];
  assert.equal(listed.length, 2, 'refused commands are not stored');
  assert.equal(sets(sim).length, 2, 'nothing more reached ebusd');
});

test('ebusd: a write ebusd refuses publishes nothing, so it fails on its timeout; out-of-range values are never sent', async (t) => {
  const { hub, sim } = await setup(t, { commands: { confirmTimeoutSeconds: 1 } });
  sim.faults.rejecting = true;
  const refused = await hub.commandDone(hub.submit(ZONE, 'SET_TEMPERATURE', { temperature: 19 }).id);
  assert.equal(refused.state, 'FAILED');
  assert.match(refused.failedReason ?? '', /did not confirm within 1 s/);
  assert.equal(sim.messages.get('Z1DayTemp'), '21');

  const tooHot = await hub.commandDone(hub.submit(ZONE, 'SET_TEMPERATURE', { temperature: 35 }).id);
  assert.equal(tooHot.state, 'FAILED');
  assert.match(tooHot.failedReason ?? '', /outside what the device accepts \(5 to 30\)/);
  assert.deepEqual(sets(sim).map((m) => m.payload), ['19']);
});

test('ebusd: a week\'s schedule in UTC arrives as seven day programs in the controller\'s local time (Europe/Berlin)', async (t) => {
  const { hub, sim } = await setup(t);
  const weekdays = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'] as const;
  const schedules = [
    ...weekdays.flatMap((day) => [
      { mode: 'HEAT', start: { day, time: '04:00' }, end: { day, time: '06:00' }, temperature: 21 },
      { mode: 'HEAT', start: { day, time: '15:00' }, end: { day, time: '20:30' }, temperature: 21 },
    ]),
    ...(['SATURDAY', 'SUNDAY'] as const).map((day) => ({ mode: 'HEAT', start: { day, time: '06:00' }, end: { day, time: '21:00' } })),
    { mode: 'REDUCED', start: { day: 'SUNDAY', time: '21:00' }, temperature: 17 },
  ];
  const response = await hub.api(`/hvacs/${ZONE}/commands/schedule`, { method: 'POST', json: { schedules } });
  assert.equal(response.status, 200);
  const done = await hub.commandDone(((await response.json()) as { id: string }).id);
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');

  // Berlin is UTC+1 in winter and UTC+2 in summer; the controller keeps local times.
  const h = offsetMinutes('Europe/Berlin', Date.now()) / 60;
  const at = (hour: number, minute = '00') => `${String(hour + h).padStart(2, '0')}:${minute}`;
  const weekday = `${at(4)};${at(6)};${at(15)};${at(20, '30')};-:-;-:-`;
  const weekend = `${at(6)};${at(21)};-:-;-:-;-:-;-:-`;
  assert.deepEqual(sets(sim), [
    { topic: 'ebusd/700/Z1Timer_Monday/set', payload: weekday },
    { topic: 'ebusd/700/Z1Timer_Tuesday/set', payload: weekday },
    { topic: 'ebusd/700/Z1Timer_Wednesday/set', payload: weekday },
    { topic: 'ebusd/700/Z1Timer_Thursday/set', payload: weekday },
    { topic: 'ebusd/700/Z1Timer_Friday/set', payload: weekday },
    { topic: 'ebusd/700/Z1Timer_Saturday/set', payload: weekend },
    { topic: 'ebusd/700/Z1Timer_Sunday/set', payload: weekend },
  ]);
  assert.equal(sim.messages.get('Z1Timer_Sunday'), weekend);

  const odd = await hub.commandDone(hub.submit(ZONE, 'SET_SCHEDULE', { schedules: [{ mode: 'HEAT', start: { day: 'MONDAY', time: '06:05' }, end: { day: 'MONDAY', time: '08:00' } }] }).id);
  assert.equal(odd.state, 'FAILED');
  assert.match(odd.failedReason ?? '', /10-minute steps; MONDAY \d\d:05-\d\d:00 \(device time\)/);
  assert.equal(sets(sim).length, 7, 'a schedule the controller cannot hold is not sent');
});

test('ebusd: a heating window ending at midnight is written as 24:00 and confirmed by ebusd\'s -:- echo (TTM\'s replacement value)', async (t) => {
  const { hub, sim } = await setup(t);
  const h = offsetMinutes('Europe/Berlin', Date.now()) / 60;
  const utc = (hour: number) => `${String((hour - h + 24) % 24).padStart(2, '0')}:00`;
  // 18:00 to midnight local, every day.
  const schedules = (['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const)
    .map((day) => ({ mode: 'HEAT', start: { day, time: utc(18) }, end: { day, time: utc(24) } }));
  const done = await hub.commandDone(hub.submit(ZONE, 'SET_SCHEDULE', { schedules }).id);
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
  assert.equal(sets(sim).at(-1)!.payload, '18:00;24:00;-:-;-:-;-:-;-:-');
  assert.equal(sim.messages.get('Z1Timer_Sunday'), '18:00;-:-;-:-;-:-;-:-;-:-');
  hub.daemon.mqtt!.flush();
  assert.equal(hub.device(ZONE)!.state!['timerSunday'], '18:00;-:-;-:-;-:-;-:-;-:-');
});

test('ebusd, names auto: a time program written right after a start, before ebusd was heard, goes to the naming ebusd uses (learned by a read first)', async (t) => {
  const hub = await startMqttHub(t, {
    records: [drivenRecord('hvac', DHW, 'VAILLANT', { type: 'ebusd-vaillant-dhw', timeZone: 'Europe/Berlin' }, { type: 'DHW' })],
  });
  // The command is there before ebusd is: it runs the moment ebusd says it runs (global/running),
  // before ebusd has published any message, and so before the hub has heard its naming.
  const schedule = hub.submit(DHW, 'SET_SCHEDULE', { schedules: [{ mode: 'HEAT', start: { day: 'MONDAY', time: '04:00' }, end: { day: 'MONDAY', time: '05:00' } }] });
  // An ebusd with the archived names, that has read nothing yet, and takes a moment per read on the bus.
  const sim = new EbusdVaillantSim(hub.broker.url, { names: 'archived', preread: false });
  sim.faults.delayMs = 300;
  t.after(() => sim.stop());
  await sim.start();
  const done = await hub.commandDone(schedule.id, 40_000);
  assert.equal(done.state, 'EXECUTED', done.failedReason ?? '');
  const written = sets(sim).map((m) => m.topic);
  assert.deepEqual(written, ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'].map((d) => `ebusd/700/hwcTimer.${d}/set`),
    'every day written under the archived name, none under the generated one');
});
