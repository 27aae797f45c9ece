// /home/live with clients that stop reading (issue 34), over a real hub on a loopback socket and raw
// TCP clients: a paused client's stream keeps only the latest message per device and is closed after
// the write timeout (or past its byte bound), reading clients keep getting every change, and the
// places are shared between keys.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { once } from 'node:events';
import { setImmediate as turn } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { createApp } from '../../src/api/app.ts';
import { createHubServer } from '../../src/api/http-server.ts';
import { DEFAULT_API_SETTINGS } from '../../src/api/deps.ts';
import { LiveSlots, MAX_LIVE_STREAMS, type LiveSlotSettings } from '../../src/api/household/live-slots.ts';
import type { LiveStream } from '../../src/api/household/live-stream.ts';
import { Store } from '../../src/store/store.ts';
import { VendorCatalog } from '../../src/domain/vendors.ts';
import { storedStateRuntime } from '../../src/runtime/devices/live.ts';
import { HubEvents } from '../../src/runtime/events/hub-events.ts';
import { silentLogger } from '../../src/log.ts';
import { prepareImport } from '../../src/domain/import.ts';
import { builtInBindingDefaults } from '../../src/binding-defaults.ts';

const USER = 'household-34';
const DEVICES = 50;
const meterId = (i: number) => `5e1a0000-0000-4000-8000-${String(i).padStart(12, '0')}`;

async function liveHub(t: TestContext, settings: Partial<LiveSlotSettings>) {
  const store = Store.open(':memory:');
  const now = Date.now();
  const keys = ['page-a', 'page-b', 'page-c'].map((name) => store.apiKeys.create(name, now).key);
  const records = Array.from({ length: DEVICES }, (_, i) => ({
    kind: 'meter', id: meterId(i), userId: USER, isOnline: true, staticData: { vendor: 'SMA', model: 'Home Manager 2.0' },
  }));
  const prepared = prepareImport(records, now, (id) => store.devices.get(id)?.kind, () => undefined);
  store.importDevices(prepared.devices, prepared.images, now, prepared.ocppCredentials);
  const events = new HubEvents();
  const slots = new LiveSlots(settings);
  const { app } = createApp({
    store, log: silentLogger(), clock: { now: () => Date.now() }, vendors: new VendorCatalog(), runtime: storedStateRuntime, bindingDefaults: builtInBindingDefaults(),
    settings: { ...DEFAULT_API_SETTINGS, publicUrl: 'http://hub.test' }, household: { events, flowsOf: () => ({ pvKw: 0 }) as never, slots },
  });
  const server = createHubServer({ fetch: app.fetch, log: silentLogger(), bodyLimitBytes: DEFAULT_API_SETTINGS.bodyLimitBytes });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const clients: Socket[] = [];
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    for (const client of clients) client.destroy();
    for (const stream of slots.streams()) stream.close('client');
    server.closeAllConnections();
    server.close();
    store.close();
  };
  t.after(close);
  const port = (server.address() as AddressInfo).port;
  let round = 0;
  /** Every device reports a new power: one event each, as 50 meters publishing once would. */
  const reportAll = () => {
    round++;
    for (let i = 0; i < DEVICES; i++) {
      const device = store.devices.get(meterId(i))!;
      events.emit({ type: 'update', device: { ...device, state: { power: round + i / 1000 }, lastUpdatedMs: Date.now() }, atMs: Date.now() });
    }
    return round;
  };
  /** 50 new commands of the first device, each a message of its own (a command is not coalesced with another). */
  let commands = 0;
  const reportCommands = () => {
    let id = '';
    for (let i = 0; i < DEVICES; i++) {
      id = `c0a10000-0000-4000-8000-${String(++commands).padStart(12, '0')}`;
      const at = Date.now();
      events.emit({
        type: 'command', atMs: at, command: {
          seq: commands, id, deviceId: meterId(0), deviceKind: 'meter', userId: USER, type: 'SET_OPERATION_MODE' as never, state: 'FAILED', payload: null,
          createdAtMs: at, lastUpdatedMs: at, expiresAtMs: at + 60_000, failedReason: 'the meter takes no commands', startedAtMs: null, waitingReason: null,
        },
      });
    }
    return id;
  };
  /** A raw HTTP client of /home/live; `reading: false` pauses its socket as soon as the headers are in. */
  const openLive = async (key: string, reading: boolean) => {
    const socket = connect(port, '127.0.0.1');
    clients.push(socket);
    const closed = once(socket, 'close');
    socket.write(`GET /home/live?user=${USER} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${key}\r\n\r\n`);
    const client = { socket, closed, text: '', status: 0, until: (what: string) => until(socket, () => client.text.includes(what), what) };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      client.text += chunk;
      if (!reading && client.status === 0 && /\r\n\r\n/.test(client.text)) socket.pause();
      client.status ||= Number(/^HTTP\/1\.1 (\d+)/.exec(client.text)?.[1] ?? 0);
    });
    socket.on('error', () => {});
    await until(socket, () => client.status !== 0, 'the status line');
    return client;
  };
  return { slots, keys, reportAll, reportCommands, openLive, close };
}

/** Resolves when `done()` holds after data from `socket` (checked on each 'data'); rejects after `ms`. */
function until(socket: Socket, done: () => boolean, what: string, ms = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!done()) return;
      clearTimeout(timer);
      socket.off('data', check);
      resolve();
    };
    const timer = setTimeout(() => {
      socket.off('data', check);
      reject(new Error(`timed out waiting for ${what}`));
    }, ms);
    socket.on('data', check);
    queueMicrotask(check);
  });
}

test('a client that stops reading keeps one message per device waiting and is closed after the write timeout; a reading client gets every change', { timeout: 60_000 }, async (t) => {
  const writeTimeoutMs = 1000;
  const { slots, keys, reportAll, openLive } = await liveHub(t, { writeTimeoutMs, maxBacklogBytes: 1024 * 1024 });
  const reader = await openLive(keys[0]!, true);
  const stalled = await openLive(keys[0]!, false);
  assert.equal(reader.status, 200);
  assert.equal(stalled.status, 200);
  const [, stalledStream] = slots.streams();
  let gone = false;
  stalledStream!.whenEnded(() => (gone = true));
  let most = { messages: 0, bytes: 0 };
  const start = performance.now();
  // Far more than the socket buffers hold: the paused client's socket fills, then its backlog.
  while (!gone) {
    assert.ok(performance.now() - start < 30_000, 'the paused client was never closed');
    reportAll();
    most = { messages: Math.max(most.messages, stalledStream!.backlogMessages), bytes: Math.max(most.bytes, stalledStream!.backlogBytes) };
    await turn();
  }
  assert.equal(stalledStream!.ended, 'stalled');
  stalled.socket.resume(); // a paused socket does not see its end: reading on, the client finds its connection closed
  await stalled.closed;
  assert.ok(performance.now() - start >= writeTimeoutMs, 'not before the write timeout');
  assert.ok(most.messages > 0, 'the paused client did have messages waiting');
  assert.ok(most.messages <= DEVICES + 2, `at most one message per device, the flows and a keepalive: ${most.messages}`);
  assert.ok(most.bytes <= 1024 * 1024, `within the byte bound: ${most.bytes}`);
  assert.equal(stalledStream!.backlogBytes, 0, 'a closed stream holds nothing');
  assert.deepEqual(slots.streams().length, 1, 'its place is free');
  // The reader is open and follows the latest change of every device.
  const last = reportAll();
  await reader.until(`"power":${last + (DEVICES - 1) / 1000}`);
  assert.equal(reader.socket.destroyed, false);
});

test('a paused client sent many distinct messages (commands) is closed at its byte bound; a reading client of the same flood stays', { timeout: 30_000 }, async (t) => {
  const maxBacklogBytes = 64 * 1024;
  const { slots, keys, reportCommands, openLive } = await liveHub(t, { writeTimeoutMs: 60_000, maxBacklogBytes });
  const reader = await openLive(keys[0]!, true);
  const stalled = await openLive(keys[1]!, false);
  const [, stream] = slots.streams();
  let gone = false;
  stream!.whenEnded(() => (gone = true));
  const start = performance.now();
  while (!gone) {
    assert.ok(performance.now() - start < 20_000, 'the paused client was never closed');
    reportCommands();
    assert.ok(stream!.backlogBytes <= maxBacklogBytes, `within the byte bound: ${stream!.backlogBytes}`);
    await turn();
  }
  assert.equal(stream!.ended, 'backlog');
  assert.ok(performance.now() - start < 60_000, 'long before the write timeout');
  stalled.socket.resume();
  await stalled.closed;
  assert.equal(slots.streams().length, 1);
  const last = reportCommands();
  await reader.until(`"id":"${last}"`);
});

test('the places are shared between keys: one key fills an idle hub, another key still gets its share', { timeout: 30_000 }, async (t) => {
  const { slots, keys, openLive } = await liveHub(t, {});
  const [a, b] = keys as [string, string];
  const aStreams = [];
  for (let i = 0; i < MAX_LIVE_STREAMS; i++) aStreams.push(await openLive(a, true));
  assert.ok(aStreams.every((s) => s.status === 200), 'a key alone may take every place');
  assert.equal((await openLive(a, true)).status, 429, 'not more than the places');
  const share = MAX_LIVE_STREAMS / 2;
  for (let i = 0; i < share; i++) {
    const opened = await openLive(b, true);
    assert.equal(opened.status, 200, `the other key's stream ${i + 1} of its share`);
    await aStreams[i]!.until('\r\n0\r\n\r\n'); // the first key's oldest gave way: its response ended
  }
  assert.equal((await openLive(b, true)).status, 429, 'past its share, the second key waits');
  assert.equal((await openLive(a, true)).status, 429, 'at its share, the first key does not take places back');
  assert.equal(slots.streams().length, MAX_LIVE_STREAMS);
  for (const s of aStreams.slice(share)) assert.equal(s.socket.destroyed, false, 'the first key keeps its share');
});

test('any sequence of opens and hang-ups by three keys keeps the sharing rule (fast-check, real sockets)', { timeout: 120_000 }, async (t) => {
  const maxStreams = 4;
  // Opens three times as often as hang-ups, so the hub is full most of the time.
  const action = fc.record({ open: fc.integer({ min: 0, max: 3 }).map((n) => n > 0), key: fc.integer({ min: 0, max: 2 }) });
  await fc.assert(fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 20 }), async (actions) => {
    const hub = await liveHub(t, { maxStreams });
    const open: { key: number; stream: LiveStream; socket: Socket }[] = [];
    const held = () => {
      const count = new Map<number, number>();
      for (const entry of open) count.set(entry.key, (count.get(entry.key) ?? 0) + 1);
      return count;
    };
    try {
      for (const { open: opens, key } of actions) {
        if (!opens) { // the client of this key's oldest stream hangs up
          const entry = open.find((e) => e.key === key);
          if (!entry) continue;
          const ended = new Promise((resolve) => entry.stream.whenEnded(resolve));
          entry.socket.destroy();
          await ended;
          open.splice(open.indexOf(entry), 1);
        } else {
          const count = held();
          const share = Math.ceil(maxStreams / new Set([...count.keys(), key]).size);
          const most = Math.max(0, ...count.values());
          const expected = open.length < maxStreams ? 200 : (count.get(key) ?? 0) < share && most > share ? 200 : 429;
          const client = await hub.openLive(hub.keys[key]!, true);
          assert.equal(client.status, expected, `key ${key} holding ${count.get(key) ?? 0} of ${open.length} (share ${share}, most ${most})`);
          const displaced = open.filter((e) => e.stream.ended === 'displaced');
          if (expected === 200 && open.length === maxStreams) {
            assert.equal(displaced.length, 1, 'a full hub makes room by closing one stream');
            const [victim] = displaced;
            assert.equal(count.get(victim!.key), most, 'of a key holding the most');
            assert.equal(open.find((e) => e.key === victim!.key), victim, 'its oldest');
            open.splice(open.indexOf(victim!), 1);
          } else {
            assert.equal(displaced.length, 0);
          }
          if (client.status === 200) open.push({ key, stream: hub.slots.streams().at(-1)!, socket: client.socket });
        }
        assert.deepEqual(hub.slots.streams(), open.map((e) => e.stream), 'the hub holds the streams the model holds, oldest first');
      }
    } finally {
      hub.close();
    }
  }), { numRuns: 25 });
});
