// The Modbus line over real loopback sockets against the simulator, with each fault on demand.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { ModbusSimServer, type SimUnit } from '../../src/sim/modbus-sim-server.ts';
import { ModbusLine, DEFAULT_LINE_OPTIONS, type LineOptions } from '../../src/transport/modbus-line.ts';
import { ModbusConnectionError, ModbusExceptionError, ModbusTimeoutError } from '../../src/transport/modbus-errors.ts';
import { silentLogger } from '../../src/log.ts';

/** A unit whose holding register n holds n, and which remembers what it was asked, in order. */
class CountingUnit implements SimUnit {
  readonly log: string[] = [];
  read(fn: 3 | 4, address: number, count: number): number[] {
    this.log.push(`read ${address}`);
    return Array.from({ length: count }, (_, i) => (address + i) & 0xffff);
  }
  write(address: number, values: number[]): boolean {
    this.log.push(`write ${address}=${values.join(',')}`);
    return true;
  }
}

async function rig(t: TestContext, options: Partial<LineOptions> = {}) {
  const unit = new CountingUnit();
  const sim = await ModbusSimServer.tcp(new Map([[1, unit]]));
  const line = new ModbusLine({ kind: 'tcp', host: '127.0.0.1', port: sim.port },
    { ...DEFAULT_LINE_OPTIONS, timeoutMs: 150, backoffMinMs: 50, ...options }, silentLogger());
  t.after(async () => {
    await line.close();
    await sim.close();
  });
  return { unit, sim, line };
}

test('reads registers, and one connection carries every request', async (t) => {
  const { sim, line } = await rig(t);
  assert.deepEqual(await line.readRegisters(1, 3, 100, 3), [100, 101, 102]);
  assert.deepEqual(await line.readRegisters(1, 4, 7, 1), [7]);
  assert.equal(sim.connections, 1);
  assert.equal(line.transactions, 2);
});

test('a finished request leaves nothing behind in modbus-serial\'s transaction table (it kept 256 per connection)', async (t) => {
  const { line, sim } = await rig(t);
  sim.setFault('all', { kind: 'none' });
  for (let i = 0; i < 300; i++) await line.readRegisters(1, 3, i, 2);
  await assert.rejects(line.readRegisters(1, 3, 9999, 2000), ModbusExceptionError);
  const client = (line as unknown as { client: { _transactions: Record<string, unknown> } }).client;
  assert.equal(Object.keys(client._transactions).length, 0);
});

test('an exception answer is a ModbusExceptionError with its code, and the line stays usable', async (t) => {
  const { sim, line } = await rig(t);
  sim.setFault(1, { kind: 'exception', code: 6 });
  await assert.rejects(line.readRegisters(1, 3, 0, 1), (err: unknown) => err instanceof ModbusExceptionError && err.code === 6);
  sim.setFault(1, { kind: 'none' });
  assert.deepEqual(await line.readRegisters(1, 3, 5, 1), [5]);
  await assert.rejects(line.readRegisters(9, 3, 0, 1), (err: unknown) => err instanceof ModbusExceptionError && err.code === 11);
});

test('silence times out after the request timeout; repeated timeouts reopen the connection', async (t) => {
  const { sim, line } = await rig(t);
  await line.readRegisters(1, 3, 0, 1);
  sim.setFault(1, { kind: 'silence' });
  const started = Date.now();
  await assert.rejects(line.readRegisters(1, 3, 0, 1), ModbusTimeoutError);
  assert.ok(Date.now() - started < 1000);
  await assert.rejects(line.readRegisters(1, 3, 0, 1), ModbusTimeoutError);
  assert.equal(line.isConnected, false, 'two timeouts in a row: the connection is dropped');
  sim.setFault(1, { kind: 'none' });
  assert.deepEqual(await line.readRegisters(1, 3, 1, 1), [1]);
});

test('a slow device: answered within the timeout it succeeds; a late answer never lands on the next request', async (t) => {
  const { sim, line } = await rig(t, { maxConsecutiveTimeouts: 5 });
  sim.setFault(1, { kind: 'slow', delayMs: 60 });
  assert.deepEqual(await line.readRegisters(1, 3, 10, 1), [10]);
  sim.setFault(1, { kind: 'slow', delayMs: 250 });
  await assert.rejects(line.readRegisters(1, 3, 20, 1), ModbusTimeoutError);
  sim.setFault(1, { kind: 'none' });
  assert.deepEqual(await line.readRegisters(1, 3, 30, 1), [30]);
  assert.deepEqual(await line.readRegisters(1, 3, 40, 1), [40]);
});

test('a dropped connection fails the request at once and the next one reconnects', async (t) => {
  const { sim, line } = await rig(t, { timeoutMs: 5000 });
  await line.readRegisters(1, 3, 0, 1);
  sim.setFault(1, { kind: 'drop' });
  const started = Date.now();
  await assert.rejects(line.readRegisters(1, 3, 0, 1), ModbusConnectionError);
  assert.ok(Date.now() - started < 1000, 'did not wait for the 5 s timeout');
  sim.setFault(1, { kind: 'none' });
  assert.deepEqual(await line.readRegisters(1, 3, 2, 1), [2]);
});

test('garbage frames fail the request, and the line resynchronises on a fresh connection', async (t) => {
  const { sim, line } = await rig(t);
  await line.readRegisters(1, 3, 0, 1);
  sim.setFault(1, { kind: 'garbage' });
  await assert.rejects(line.readRegisters(1, 3, 0, 1));
  await assert.rejects(line.readRegisters(1, 3, 0, 1));
  sim.setFault(1, { kind: 'none' });
  assert.deepEqual(await line.readRegisters(1, 3, 3, 2), [3, 4]);
});

test('an endpoint nobody listens on fails fast, then waits out its back-off without trying', async (t) => {
  const { sim, line } = await rig(t, { backoffMinMs: 10_000 });
  await sim.close();
  await assert.rejects(line.readRegisters(1, 3, 0, 1), /cannot connect/);
  await assert.rejects(line.readRegisters(1, 3, 0, 1), /next attempt in/);
});

test('one request in flight at a time, and commands go ahead of queued polls', async (t) => {
  const { unit, sim, line } = await rig(t, { timeoutMs: 1000 });
  sim.setFault(1, { kind: 'slow', delayMs: 30 });
  const started = Date.now();
  const polls = [1, 2, 3].map((n) => line.readRegisters(1, 3, n, 1));
  const command = line.writeRegisters(1, 500, [7]);
  await Promise.all([...polls, command]);
  assert.ok(Date.now() - started >= 4 * 30 - 5, 'requests were not sent concurrently');
  assert.deepEqual(unit.log, ['read 1', 'write 500=7', 'read 2', 'read 3']);
});
