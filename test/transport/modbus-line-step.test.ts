// A Modbus line across a step of the wall clock. Its pause between requests, its back-off and its
// requests' deadlines are measured on the monotonic clock: stepped back by two hours (Date faked
// here, as libfaketime steps it from outside), the line does not sleep for two hours.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ModbusSimServer, type SimUnit } from '../../src/sim/modbus-sim-server.ts';
import { ModbusLine, DEFAULT_LINE_OPTIONS } from '../../src/transport/modbus-line.ts';
import { silentLogger } from '../../src/log.ts';
import fc from 'fast-check';

const unit: SimUnit = {
  read: (_fn, address, count) => Array.from({ length: count }, (_, i) => address + i),
  write: () => true,
};

/** The promise, or a rejection after `ms` (a bound, not a sleep: it ends the test instead of hanging). */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  })]).finally(() => clearTimeout(timer));
}

for (const [name, stepMs] of [['back 2 h', -2 * 3_600_000], ['forward 26 h', 26 * 3_600_000]] as const) {
  test(`the wall clock stepped ${name} between two requests: the next one answers after its pause, not after the step`, async (t) => {
    const sim = await ModbusSimServer.tcp(new Map([[1, unit]]));
    const line = new ModbusLine({ kind: 'tcp', host: '127.0.0.1', port: sim.port }, { ...DEFAULT_LINE_OPTIONS, timeoutMs: 500, pauseBetweenMs: 50 }, silentLogger());
    t.after(async () => {
      await line.close();
      await sim.close();
    });
    assert.deepEqual(await line.readRegisters(1, 3, 10, 2), [10, 11]);
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() + stepMs });
    assert.deepEqual(await within(2_000, line.readRegisters(1, 3, 20, 1, { deadline: line.monotonic() + 1_000 })), [20]);
  });
}

test('a request whose deadline (on the line\'s monotonic clock) has passed while queued is not sent', async (t) => {
  const sim = await ModbusSimServer.tcp(new Map([[1, unit]]));
  const line = new ModbusLine({ kind: 'tcp', host: '127.0.0.1', port: sim.port }, { ...DEFAULT_LINE_OPTIONS, timeoutMs: 500 }, silentLogger());
  t.after(async () => {
    await line.close();
    await sim.close();
  });
  await assert.rejects(line.readRegisters(1, 3, 10, 1, { deadline: line.monotonic() - 1 }), /deadline passed while queued/);
  assert.equal(line.transactions, 0);
});

test('property: whatever steps the wall clock takes between requests (up to 30 days either way), each answers within its pause and timeout', async (t) => {
  const sim = await ModbusSimServer.tcp(new Map([[1, unit]]));
  const line = new ModbusLine({ kind: 'tcp', host: '127.0.0.1', port: sim.port }, { ...DEFAULT_LINE_OPTIONS, timeoutMs: 500, pauseBetweenMs: 20 }, silentLogger());
  t.after(async () => {
    await line.close();
    await sim.close();
  });
  const realNow = Date.now();
  t.mock.timers.enable({ apis: ['Date'], now: realNow });
  const DAY = 24 * 3_600_000;
  await fc.assert(fc.asyncProperty(fc.array(fc.integer({ min: -30 * DAY, max: 30 * DAY }), { minLength: 1, maxLength: 6 }), async (offsets) => {
    for (const [i, offsetMs] of offsets.entries()) {
      t.mock.timers.setTime(realNow + offsetMs);
      assert.deepEqual(await within(1_500, line.readRegisters(1, 3, i, 1, { deadline: line.monotonic() + 1_000 })), [i]);
    }
  }), { numRuns: 15, interruptAfterTimeLimit: 20_000 });
});
