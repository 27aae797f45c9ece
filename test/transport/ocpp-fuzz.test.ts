// Property-based: thousands of generated frames (any JSON, wrong message type ids, huge and deeply
// nested payloads, binary frames, invalid UTF-8, unknown actions, wrong payload types for known
// actions, valid-looking payloads of the charger's actions) over a real WebSocket to the OCPP
// endpoint of a whole hub, as its paired charger. After each frame a Heartbeat (a CALL of its own
// id) shows what the hub answered to the frame: OCPP-J 1.6 (§4.2) wants exactly one CALLRESULT or
// CALLERROR, in 1.6's codes, to any CALL; a CALLERROR to any other message it can answer; nothing to
// a CALLRESULT or CALLERROR; and WebSocket (RFC 6455 §7.4.1) closes a connection only for invalid
// UTF-8 in a text frame (1007) or a frame too big (1009). The hub stays up throughout, and a good
// charger connects, boots and is shown online afterwards. Bounded: OCPP_FUZZ_RUNS frames (2000).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import WebSocket from 'ws';
import { PASSWORD, ocppCharger, startOcppHub } from '../support/ocpp-hub.ts';
import { OCPP16_ERROR_CODES } from '../../src/transport/ocpp16-error-codes.ts';

const CHARGER = '0c000000-0000-4000-8000-00000000cf01';
const RUNS = Number(process.env['OCPP_FUZZ_RUNS'] ?? 2000);
const MAX_PAYLOAD = 256 * 1024; // the endpoint's maxPayload
const ANSWER_TIMEOUT_MS = 10_000;

/** What the charger's side sends: a text frame (its bytes as given) or a binary one. */
interface Frame {
  what: string;
  bytes: Buffer;
  binary: boolean;
}
/** How fast-check shows a frame that fails: what it is and its start, not megabytes of brackets. */
function shown(frame: Omit<Frame, typeof fc.toStringMethod>): Frame {
  return Object.assign(frame, { [fc.toStringMethod]: () => `${frame.what} (${frame.bytes.length} bytes${frame.binary ? ', binary' : ''}): ${JSON.stringify(frame.bytes.subarray(0, 120).toString('utf8'))}` });
}
const text = (what: string, s: string): Frame => shown({ what, bytes: Buffer.from(s, 'utf8'), binary: false });
const call = (id: string, action: string, payload: unknown) => JSON.stringify([2, id, action, payload]);

const CHARGER_ACTIONS = ['Authorize', 'BootNotification', 'DataTransfer', 'DiagnosticsStatusNotification', 'FirmwareStatusNotification',
  'Heartbeat', 'MeterValues', 'StartTransaction', 'StatusNotification', 'StopTransaction'];
const messageId = fc.oneof(fc.uuid(), fc.string({ minLength: 1, maxLength: 36 }));
const timestamp = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
const idTag = fc.string({ minLength: 1, maxLength: 20 });

/** Payloads that pass the 1.6 schemas (or nearly), so that the hub's own handlers run on odd values. */
const wellFormed = fc.oneof(
  fc.record({ chargePointVendor: fc.string({ maxLength: 20 }), chargePointModel: fc.string({ maxLength: 20 }), firmwareVersion: fc.option(fc.string({ maxLength: 50 }), { nil: undefined }) }, { requiredKeys: ['chargePointVendor', 'chargePointModel'] })
    .map((p) => ['BootNotification', p] as const),
  fc.record({
    connectorId: fc.integer({ min: -5, max: 1000 }),
    errorCode: fc.constantFrom('NoError', 'GroundFailure', 'OtherError', 'PowerMeterFailure', 'EVCommunicationError'),
    status: fc.constantFrom('Available', 'Preparing', 'Charging', 'SuspendedEV', 'SuspendedEVSE', 'Finishing', 'Reserved', 'Unavailable', 'Faulted'),
    timestamp: fc.option(timestamp, { nil: undefined }), info: fc.option(fc.string({ maxLength: 50 }), { nil: undefined }),
  }, { requiredKeys: ['connectorId', 'errorCode', 'status'] }).map((p) => ['StatusNotification', p] as const),
  fc.record({
    connectorId: fc.integer({ min: -5, max: 1000 }), transactionId: fc.option(fc.integer(), { nil: undefined }),
    meterValue: fc.array(fc.record({
      timestamp,
      sampledValue: fc.array(fc.record({
        value: fc.oneof(fc.string({ maxLength: 12 }), fc.double().map(String), fc.constant('NaN'), fc.constant('-Infinity'), fc.constant('1e400')),
        measurand: fc.option(fc.constantFrom('Power.Active.Import', 'Energy.Active.Import.Register', 'Current.Import', 'Current.Offered', 'Voltage', 'SoC'), { nil: undefined }),
        unit: fc.option(fc.constantFrom('W', 'kW', 'Wh', 'kWh', 'A', 'V', 'Percent'), { nil: undefined }),
        phase: fc.option(fc.constantFrom('L1', 'L2', 'L3', 'N', 'L1-N'), { nil: undefined }),
        context: fc.option(fc.constantFrom('Sample.Periodic', 'Transaction.Begin', 'Transaction.End'), { nil: undefined }),
      }, { requiredKeys: ['value'] }), { maxLength: 5 }),
    }), { maxLength: 3 }),
  }, { requiredKeys: ['connectorId', 'meterValue'] }).map((p) => ['MeterValues', p] as const),
  fc.record({ connectorId: fc.integer({ min: -5, max: 10 }), idTag, meterStart: fc.integer(), timestamp, reservationId: fc.option(fc.integer(), { nil: undefined }) }, { requiredKeys: ['connectorId', 'idTag', 'meterStart', 'timestamp'] })
    .map((p) => ['StartTransaction', p] as const),
  fc.record({ transactionId: fc.integer(), meterStop: fc.integer(), timestamp, idTag: fc.option(idTag, { nil: undefined }), reason: fc.option(fc.constantFrom('Local', 'Remote', 'EVDisconnected', 'Other'), { nil: undefined }) }, { requiredKeys: ['transactionId', 'meterStop', 'timestamp'] })
    .map((p) => ['StopTransaction', p] as const),
  idTag.map((tag) => ['Authorize', { idTag: tag }] as const),
  fc.record({ vendorId: fc.string({ minLength: 1, maxLength: 255 }), messageId: fc.option(fc.string({ maxLength: 50 }), { nil: undefined }), data: fc.option(fc.string(), { nil: undefined }) }, { requiredKeys: ['vendorId'] })
    .map((p) => ['DataTransfer', p] as const),
  fc.constant(['Heartbeat', {}] as const),
);

const frames: fc.Arbitrary<Frame> = fc.oneof(
  fc.json().map((s) => text('any JSON', s)),
  fc.string({ unit: 'binary', maxLength: 200 }).map((s) => text('any text', s)),
  fc.tuple(fc.oneof(fc.integer({ min: -3, max: 9 }), fc.double(), fc.string({ maxLength: 3 })), fc.jsonValue(), fc.jsonValue(), fc.jsonValue())
    .map((a) => text('any message type id', JSON.stringify(a))),
  fc.tuple(messageId, fc.constantFrom(...CHARGER_ACTIONS), fc.jsonValue()).map(([id, action, payload]) => text('a known action, any payload', call(id, action, payload))),
  fc.tuple(messageId, fc.constantFrom(...CHARGER_ACTIONS), fc.dictionary(fc.constantFrom('connectorId', 'idTag', 'status', 'errorCode', 'meterStart', 'meterStop', 'transactionId', 'timestamp', 'meterValue', 'vendorId', 'chargePointVendor', 'chargePointModel'), fc.jsonValue()))
    .map(([id, action, payload]) => text('a known action, wrong field types', call(id, action, payload))),
  // Weighted: these reach the hub's own handlers (a transaction, meter values, a status), not only the schema check.
  { arbitrary: fc.tuple(messageId, wellFormed).map(([id, [action, payload]]) => text(`a ${action} as the schema has it`, call(id, action, payload))), weight: 8 },
  fc.tuple(messageId, fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom('RemoteStartTransaction', 'Reset', 'GetConfiguration', '__proto__', 'constructor', 'toString')), fc.jsonValue())
    .map(([id, action, payload]) => text('an unknown action', call(id, action, payload))),
  fc.tuple(fc.constantFrom(3, 4), messageId, fc.jsonValue(), fc.jsonValue()).map((a) => text('a result to no call', JSON.stringify(a))),
  fc.tuple(messageId, fc.array(fc.jsonValue(), { maxLength: 3 })).map(([id, rest]) => text('a CALL missing parts', JSON.stringify([2, id, ...rest.slice(0, 1)]))),
  fc.integer({ min: 1000, max: 60_000 }).map((depth) => text('a deeply nested payload', `[2,"deep-${depth}","DataTransfer",{"vendorId":"x","data":${'['.repeat(depth)}${']'.repeat(depth)}}]`)),
  fc.integer({ min: 1000, max: 200_000 }).map((depth) => text('deeply nested JSON', '['.repeat(depth) + ']'.repeat(depth))),
  fc.integer({ min: 100_000, max: MAX_PAYLOAD + 64 * 1024 }).map((n) => text('a huge payload', call(`big-${n}`, 'DataTransfer', { vendorId: 'x', data: 'a'.repeat(n) }))),
  fc.uint8Array({ maxLength: 300 }).map((b) => shown({ what: 'a binary frame', bytes: Buffer.from(b), binary: true })),
  messageId.map((id) => shown({ what: 'a CALL in a binary frame', bytes: Buffer.from(call(id, 'Heartbeat', {})), binary: true })),
  fc.tuple(fc.string({ maxLength: 20 }), fc.constantFrom([0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]))
    .map(([s, bad]) => shown({ what: 'invalid UTF-8 in a text frame', bytes: Buffer.concat([Buffer.from(`[2,"utf8","DataTransfer",{"vendorId":"${s.replace(/["\\]/g, '')}`), Buffer.from(bad), Buffer.from('"}]')]), binary: false })),
);

/** The answers a frame must get: `call` (exactly one, to that id), `callError` (exactly one CALLERROR), `none`, or a close with `closes`. */
function expected(frame: Frame): { answer: { call: string } | 'callError' | 'none' | 'unknown'; closes?: number } {
  if (frame.bytes.length > MAX_PAYLOAD) return { answer: 'none', closes: 1009 };
  if (!frame.binary && !isUtf8(frame.bytes)) return { answer: 'none', closes: 1007 };
  const message = frame.bytes.toString('utf8');
  if (message.length === 0) return { answer: 'none' }; // ignored, as ocpp-rpc does for chargers that send empty frames
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return { answer: 'callError' };
  }
  if (!Array.isArray(parsed) || typeof parsed[0] !== 'number') return { answer: 'callError' };
  if (parsed[0] === 3 || parsed[0] === 4) return { answer: 'none' };
  if (parsed[0] === 2 && typeof parsed[1] === 'string') return { answer: { call: parsed[1] } };
  return { answer: 'callError' };
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The charger's side of one WebSocket: what the hub sends, and when it closes. */
class RawCharger {
  readonly received: unknown[][] = [];
  private readonly waiters = new Set<() => void>();
  closeCode: number | undefined;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString('utf8')) as unknown[];
      // The hub's own calls (after a BootNotification): declined, so that it does not wait for them.
      if (frame[0] === 2) ws.send(JSON.stringify([4, frame[1], 'NotImplemented', '', {}]));
      else this.received.push(frame);
      for (const wake of this.waiters) wake();
    });
    ws.on('close', (code: number) => {
      this.closeCode = code;
      for (const wake of this.waiters) wake();
    });
    ws.on('error', () => {});
  }

  static async connect(endpoint: string, identity: string): Promise<RawCharger> {
    const ws = new WebSocket(`${endpoint}/${identity}`, ['ocpp1.6'], { headers: { authorization: `Basic ${Buffer.from(`${identity}:${PASSWORD}`).toString('base64')}` } });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`handshake refused: ${res.statusCode}`)));
    });
    return new RawCharger(ws);
  }

  send(frame: Frame): void {
    // ws sends a Buffer as given, also as a text frame: invalid UTF-8 reaches the hub as it is.
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(frame.bytes, { binary: frame.binary });
  }

  /** Until the hub answered message `id`, or closed; a timeout is a failure (the hub is stuck). */
  until(id: string): Promise<'answered' | 'closed'> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.received.some((m) => m[1] === id)) done('answered');
        else if (this.closeCode !== undefined) done('closed');
      };
      const late = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`no answer to ${id} within ${ANSWER_TIMEOUT_MS} ms, and no close`));
      }, ANSWER_TIMEOUT_MS);
      const done = (how: 'answered' | 'closed') => {
        clearTimeout(late);
        this.waiters.delete(check);
        resolve(how);
      };
      this.waiters.add(check);
      check();
    });
  }

  close(): void {
    this.ws.terminate();
  }
}

test('generated OCPP frames get CALLERRORs or a close as OCPP-J 1.6 says; the hub stays up and a good charger works afterwards', { timeout: 600_000 }, async (t) => {
  const hub = await startOcppHub(t, [ocppCharger(CHARGER, 'ZAP-001', { freeCharging: true })]);
  let charger = await RawCharger.connect(hub.endpoint, 'ZAP-001');
  t.after(() => charger.close());
  const seen = new Map<string, number>();

  await fc.assert(fc.asyncProperty(frames, async (frame) => {
    seen.set(frame.what, (seen.get(frame.what) ?? 0) + 1);
    if (charger.closeCode !== undefined) charger = await RawCharger.connect(hub.endpoint, 'ZAP-001');
    const from = charger.received.length;
    const sentinel = `sentinel-${randomUUID()}`;
    charger.send(frame);
    charger.send(text('sentinel', call(sentinel, 'Heartbeat', {})));
    const how = await charger.until(sentinel);
    const want = expected(frame);
    const answers = charger.received.slice(from).filter((m) => m[1] !== sentinel);
    if (how === 'closed') {
      assert.equal(charger.closeCode, want.closes, `${frame.what}: closed with ${charger.closeCode}; expected ${want.closes ?? 'no close'}`);
      return;
    }
    assert.equal(want.closes, undefined, `${frame.what}: the connection should have closed with ${want.closes}`);
    for (const answer of answers) {
      assert.ok(answer[0] === 3 || answer[0] === 4, `${frame.what}: answered ${JSON.stringify(answer).slice(0, 200)}`);
      if (answer[0] === 4) {
        assert.ok((OCPP16_ERROR_CODES as readonly unknown[]).includes(answer[2]), `${frame.what}: CALLERROR code ${String(answer[2])} is not OCPP 1.6's`);
        assert.equal(typeof answer[3], 'string');
        assert.ok(typeof answer[4] === 'object' && answer[4] !== null && !Array.isArray(answer[4]), `${frame.what}: CALLERROR details is an object`);
        assert.deepEqual(answer[4], {}, `${frame.what}: the charger's payload is not echoed back`);
        // A message as the schema has it is the hub's to handle: an InternalError is a fault of the hub's.
        if (frame.what.endsWith('as the schema has it')) assert.notEqual(answer[2], 'InternalError', `${frame.what}: ${String(answer[3])}`);
      }
    }
    if (want.answer === 'none') assert.equal(answers.length, 0, `${frame.what}: answered ${JSON.stringify(answers).slice(0, 200)}`);
    else if (want.answer === 'callError') {
      assert.equal(answers.length, 1, `${frame.what}: ${answers.length} answers`);
      assert.equal(answers[0]![0], 4);
    } else if (want.answer !== 'unknown') {
      assert.equal(answers.length, 1, `${frame.what}: ${answers.length} answers to ${want.answer.call}`);
      assert.equal(answers[0]![1], want.answer.call);
    }
  }), { numRuns: RUNS, interruptAfterTimeLimit: 300_000, markInterruptAsFailure: false });

  const kinds = [...seen.entries()].sort((a, b) => b[1] - a[1]).map(([what, n]) => `${what} ${n}`).join(', ');
  t.diagnostic(`frames sent by kind: ${kinds}`);
  assert.ok([...seen.values()].reduce((a, b) => a + b, 0) >= Math.min(RUNS, 1000), 'thousands of frames were sent');

  // The hub is up and a good charger connects, boots and shows online.
  charger.close();
  assert.equal((await hub.api(`/chargers/${CHARGER}`)).status, 200);
  const good = hub.sim('ZAP-001');
  await good.connect();
  await hub.online(CHARGER, true);
  await good.sendStatus('Available');
  assert.equal(good.isOpen, true);
});
