// Asynchronous commands: submission (stored PENDING before the answer), listing, ownership.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestHub, ids, json } from '../support/hub.ts';
import { demoRecords, DEMO_USER } from '../../src/demo/site.ts';
import type { CommandRecord } from '../../src/store/commands.ts';

const schedule = {
  schedules: [
    { mode: 'HEAT', start: { time: '06:00', day: 'MONDAY' }, end: { time: '08:30', day: 'MONDAY' }, temperature: 21.5 },
    { mode: 'REDUCED', start: { time: '22:00', day: 'SUNDAY' } },
  ],
};

function setup(t: { after: (fn: () => void) => void }) {
  const created: CommandRecord[] = [];
  const hub = createTestHub({
    runtime: { refresh: async (d) => d, commandCreated: (c) => created.push(c), deviceDeleted: () => {} },
  });
  t.after(hub.close);
  hub.seed(demoRecords(hub.clock.now()));
  return { hub, created };
}

test('POST /hvacs/{id}/commands/schedule stores a PENDING SET_SCHEDULE command before answering', async (t) => {
  const { hub, created } = setup(t);
  const res = await hub.request(`/hvacs/${ids.hvac}/commands/schedule`, { method: 'POST', json: schedule });
  assert.equal(res.status, 200);
  const body = await json(res);
  assert.equal(body.state, 'PENDING');
  assert.equal(body.type, 'SET_SCHEDULE');
  assert.equal(body.userId, DEMO_USER);
  assert.equal(body.deviceId, ids.hvac);
  assert.equal(body.createdAt, '2026-11-07T05:31:56Z');
  const stored = hub.store.commands.get(body.id);
  assert.ok(stored, 'the command is in the store');
  assert.deepEqual(stored.payload, schedule);
  assert.equal(created.length, 1, 'the runtime heard of it');
});

test('the schedule body is validated field by field and nothing is stored on error', async (t) => {
  const { hub } = setup(t);
  const bad = {
    schedules: [
      { mode: 'WARM', start: { time: '24:00', day: 'monday' }, temperature: 'hot' },
      { start: { time: '7:00' }, end: { time: '08:00', day: 'FUNDAY' } },
    ],
  };
  const res = await hub.request(`/hvacs/${ids.hvac}/commands/schedule`, { method: 'POST', json: bad });
  assert.equal(res.status, 400);
  const body = await json(res);
  assert.equal(body.errorCode, 'BAD_REQUEST');
  assert.deepEqual(body.validationErrors.map((e: { field: string }) => e.field).sort(), [
    'schedules[0].mode', 'schedules[0].start.day', 'schedules[0].start.time', 'schedules[0].temperature',
    'schedules[1].end.day', 'schedules[1].mode', 'schedules[1].start.day', 'schedules[1].start.time',
  ]);
  const empty = await json(await hub.request(`/hvacs/${ids.hvac}/commands/schedule`, { method: 'POST', json: { schedules: [] } }));
  assert.deepEqual(empty.validationErrors, [{ field: 'schedules', message: 'must have at least 1 item' }]);
  const missing = await json(await hub.request(`/hvacs/${ids.hvac}/commands/schedule`, { method: 'POST', json: {} }));
  assert.deepEqual(missing.validationErrors, [{ field: 'schedules', message: 'is required' }]);
  assert.equal(hub.store.commands.allPending().length, 0);
});

test('a schedule for an unknown HVAC is HVAC_NOT_FOUND; malformed JSON is 400; other types are 415', async (t) => {
  const { hub } = setup(t);
  const notFound = await json(await hub.request(`/hvacs/${ids.unknown}/commands/schedule`, { method: 'POST', json: schedule }));
  assert.equal(notFound.errorCode, 'HVAC_NOT_FOUND');
  assert.equal(notFound.message, `[HVAC] HVAC ${ids.unknown} not found`);
  const malformed = await hub.request(`/hvacs/${ids.hvac}/commands/schedule`, {
    method: 'POST', body: '{"schedules": [', headers: { 'content-type': 'application/json' },
  });
  assert.equal(malformed.status, 400);
  assert.deepEqual((await json(malformed)).validationErrors, [{ field: 'body', message: 'is not valid JSON' }]);
  const text = await hub.request(`/hvacs/${ids.hvac}/commands/schedule`, {
    method: 'POST', body: JSON.stringify(schedule), headers: { 'content-type': 'text/plain' },
  });
  assert.equal(text.status, 415);
  assert.equal((await json(text)).errorCode, 'UNSUPPORTED_MEDIA_TYPE');
  assert.equal(hub.store.commands.allPending().length, 0);
});

test('POST /vehicles/{id}/commands/charging-stop needs no body and creates CHARGING_STOP', async (t) => {
  const { hub } = setup(t);
  const res = await hub.request(`/vehicles/${ids.vehicle}/commands/charging-stop`, { method: 'POST' });
  assert.equal(res.status, 200);
  const body = await json(res);
  assert.equal(body.type, 'CHARGING_STOP');
  assert.equal(body.state, 'PENDING');
  assert.equal(body.deviceId, ids.vehicle);
  const missing = await json(await hub.request(`/vehicles/${ids.unknown}/commands/charging-stop`, { method: 'POST' }));
  assert.equal(missing.errorCode, 'VEHICLE_NOT_FOUND');
});

test('command lists show the PENDING commands in execution order; state widens them', async (t) => {
  const { hub } = setup(t);
  const first = await json(await hub.request(`/vehicles/${ids.vehicle}/commands/charging-stop`, { method: 'POST' }));
  hub.clock.advance(1000);
  const second = await json(await hub.request(`/vehicles/${ids.vehicle}/commands/charging-stop`, { method: 'POST' }));
  hub.store.commands.complete(first.id, 'FAILED', 'Vehicle asleep', hub.clock.now());

  const pending = await json(await hub.request(`/users/${DEMO_USER}/vehicles/${ids.vehicle}/commands`));
  assert.deepEqual(pending.map((c: { id: string }) => c.id), [second.id]);
  const all = await json(await hub.request(`/users/${DEMO_USER}/vehicles/${ids.vehicle}/commands?state=ALL`));
  assert.deepEqual(all.map((c: { id: string }) => c.id), [first.id, second.id]);
  const failed = await json(await hub.request(`/users/${DEMO_USER}/vehicles/${ids.vehicle}/commands?state=FAILED`));
  assert.equal(failed[0].failedReason, 'Vehicle asleep');
  assert.equal(failed[0].state, 'FAILED');

  const bad = await json(await hub.request(`/users/${DEMO_USER}/vehicles/${ids.vehicle}/commands?state=DONE`));
  assert.deepEqual(bad.validationErrors, [{ field: 'state', message: 'must be one of PENDING, EXECUTED, FAILED, ALL' }]);
  const other = await json(await hub.request(`/users/another-user/vehicles/${ids.vehicle}/commands`));
  assert.equal(other.errorCode, 'VEHICLE_NOT_FOUND');
});

test('HVAC command lists belong to the owner; unknown HVAC is HVAC_NOT_FOUND', async (t) => {
  const { hub } = setup(t);
  const created = await json(await hub.request(`/hvacs/${ids.hvac}/commands/schedule`, { method: 'POST', json: schedule }));
  const list = await json(await hub.request(`/users/${DEMO_USER}/hvacs/${ids.hvac}/commands`));
  assert.deepEqual(list.map((c: { id: string }) => c.id), [created.id]);
  assert.equal((await hub.request(`/users/another-user/hvacs/${ids.hvac}/commands`)).status, 404);
  const missing = await json(await hub.request(`/users/${DEMO_USER}/hvacs/${ids.unknown}/commands`));
  assert.equal(missing.errorCode, 'HVAC_NOT_FOUND');
});

test('deleting a device fails its pending commands with a reason', async (t) => {
  const { hub } = setup(t);
  const cmd = await json(await hub.request(`/vehicles/${ids.vehicle}/commands/charging-stop`, { method: 'POST' }));
  await hub.request(`/users/${DEMO_USER}/vehicles/${ids.vehicle}`, { method: 'DELETE' });
  const stored = hub.store.commands.get(cmd.id)!;
  assert.equal(stored.state, 'FAILED');
  assert.equal(stored.failedReason, 'Device was deleted');
});

test('command times are whole seconds in the POST answers and the lists; the store keeps the milliseconds', async (t) => {
  const { hub } = setup(t);
  const wholeSecond = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
  hub.clock.ms = Date.parse('2026-11-23T01:16:51Z') + 121;
  const schedule1 = await json(await hub.request(`/hvacs/${ids.hvac}/commands/schedule`, { method: 'POST', json: schedule }));
  hub.clock.advance(879); // 01:16:52.000: a later second, in the same order as created
  const stop = await json(await hub.request(`/vehicles/${ids.vehicle}/commands/charging-stop`, { method: 'POST' }));
  hub.clock.advance(999);
  const stop2 = await json(await hub.request(`/vehicles/${ids.vehicle}/commands/charging-stop`, { method: 'POST' }));
  assert.deepEqual([schedule1.createdAt, schedule1.lastUpdated], ['2026-11-23T01:16:51Z', '2026-11-23T01:16:51Z']);
  assert.deepEqual([stop.createdAt, stop2.createdAt], ['2026-11-23T01:16:52Z', '2026-11-23T01:16:52Z']);
  assert.equal(hub.store.commands.get(schedule1.id)!.createdAtMs % 1000, 121);

  hub.store.commands.complete(stop.id, 'EXECUTED', null, hub.clock.now() + 1500);
  const vehicle = await json(await hub.request(`/users/${DEMO_USER}/vehicles/${ids.vehicle}/commands?state=ALL`));
  assert.deepEqual(vehicle.map((c: { id: string }) => c.id), [stop.id, stop2.id], 'same second: still in the order they were made');
  assert.equal(vehicle[0].lastUpdated, '2026-11-23T01:16:54Z');
  const hvac = await json(await hub.request(`/users/${DEMO_USER}/hvacs/${ids.hvac}/commands`));
  for (const command of [...vehicle, ...hvac]) {
    assert.match(command.createdAt, wholeSecond);
    assert.match(command.lastUpdated, wholeSecond);
  }
});
