// One Modbus connection (a TCP endpoint or a serial bus) shared by every unit id behind it.
// Requests are queued and sent one at a time: RS-485 allows nothing else, and many TCP devices
// misbehave when requests are pipelined. Commands jump ahead of polls. A connection that fails is
// reopened with exponential back-off; while backing off, requests fail at once instead of waiting,
// so a dead endpoint never holds up its callers.
import type ModbusSerial from 'modbus-serial';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import { describeEndpoint, type Endpoint } from './endpoint.ts';
import { ModbusConnectionError, ModbusExceptionError, ModbusNotConnectedError, ModbusTimeoutError } from './modbus-errors.ts';

export interface LineOptions {
  /** Per request, unless the request sets its own. modbus-serial has no default: always set. */
  timeoutMs: number;
  connectTimeoutMs: number;
  /** Quiet time between the end of one request and the next (slow gateways, RS-485 turnaround). */
  pauseBetweenMs: number;
  /** Some devices (Huawei SUN2000) drop the first requests that follow a connect. */
  pauseAfterConnectMs: number;
  backoffMinMs: number;
  backoffMaxMs: number;
  /** After this many timeouts in a row the connection is presumed stuck and reopened. */
  maxConsecutiveTimeouts: number;
}

export const DEFAULT_LINE_OPTIONS: LineOptions = {
  timeoutMs: 1000,
  connectTimeoutMs: 3000,
  pauseBetweenMs: 0,
  pauseAfterConnectMs: 0,
  backoffMinMs: 500,
  backoffMaxMs: 30_000,
  maxConsecutiveTimeouts: 2,
};

export type Priority = 'command' | 'poll';

export interface RequestOptions {
  timeoutMs?: number;
  priority?: Priority;
  /**
   * The line's monotonic ms (its `monotonic()`, performance.now() unless given) after which the
   * request is not worth sending any more (e.g. a refresh's bound). Never a wall-clock time: a step
   * of the wall clock would expire every queued request, or none.
   */
  deadline?: number;
}

type ModbusRtuClass = typeof ModbusSerial.default;
type Client = InstanceType<ModbusRtuClass>;

let loadingModbusSerial: Promise<ModbusRtuClass> | undefined;

/**
 * modbus-serial (and serialport under it) is loaded by the first connection, so a hub without
 * Modbus devices never holds it: about 8 MB of RSS on a gateway. It is CommonJS and re-exports
 * itself as `default`; this reads the same under tsx and tsc.
 */
function modbusRtu(): Promise<ModbusRtuClass> {
  loadingModbusSerial ??= import('modbus-serial').then((module) => module.default.default);
  return loadingModbusSerial;
}

/**
 * modbus-serial (8.0.25, index.js) files every request under `_transactions[transactionId]` with its
 * callback, closures and buffers, and never deletes it: over TCP the entry is only overwritten when
 * the transaction id comes round again (it counts to 256), so each connection ends up holding 256
 * finished requests, about 1 KB each, and a hub polling 100 devices grew by some 35 MB over its first
 * minutes (the soak's heap snapshots). A line sends one request at a time, so once it has settled
 * nothing in there is waiting: a late answer to a request that timed out finds no entry and is
 * dropped, as modbus-serial already does for ids it does not know.
 */
function forgetTransactions(client: Client): void {
  const transactions = (client as unknown as { _transactions?: Record<string, unknown> })._transactions;
  if (transactions) for (const id of Object.keys(transactions)) delete transactions[id];
}

interface Job {
  unitId: number;
  timeoutMs: number;
  deadline: number;
  run: (client: Client) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

export class ModbusLine {
  /** Requests put on the wire since the line was made; the bench divides this by polls. */
  transactions = 0;
  private client: Client | null = null;
  private readonly queues: Record<Priority, Job[]> = { command: [], poll: [] };
  private pumping = false;
  private closed = false;
  private backoffMs: number;
  /** On the line's monotonic clock, as every time it keeps. */
  private nextConnectAt = 0;
  private lastRequestEndAt = Number.NEGATIVE_INFINITY;
  private consecutiveTimeouts = 0;
  private onClientClose: (() => void) | null = null;

  /**
   * `monotonic` measures the pauses, back-offs and deadlines: a monotonic clock, so that a step of
   * the wall clock (NTP after a boot without a battery clock) neither puts the line to sleep for the
   * length of the step nor lets a request skip its pause.
   */
  constructor(readonly endpoint: Endpoint, readonly options: LineOptions, private readonly log: Logger,
    readonly monotonic: () => number = () => performance.now()) {
    this.backoffMs = options.backoffMinMs;
  }

  get name(): string {
    return describeEndpoint(this.endpoint);
  }

  get isConnected(): boolean {
    return this.client?.isOpen === true;
  }

  /** Function 3 (holding) or 4 (input) registers. */
  readRegisters(unitId: number, fn: 3 | 4, address: number, count: number, options: RequestOptions = {}): Promise<number[]> {
    return this.enqueue(unitId, options, async (client) => {
      const result = fn === 3 ? await client.readHoldingRegisters(address, count) : await client.readInputRegisters(address, count);
      if (result.data.length !== count) throw new ModbusConnectionError(`asked for ${count} registers, got ${result.data.length}`);
      return result.data;
    }) as Promise<number[]>;
  }

  /** Function 16 (write multiple registers). */
  async writeRegisters(unitId: number, address: number, values: number[], options: RequestOptions = {}): Promise<void> {
    await this.enqueue(unitId, { priority: 'command', ...options }, (client) => client.writeRegisters(address, values));
  }

  /** Fails what is queued, closes the connection; the line cannot be used again. */
  async close(): Promise<void> {
    this.closed = true;
    for (const queue of Object.values(this.queues)) {
      for (const job of queue.splice(0)) job.reject(new ModbusConnectionError('line closed'));
    }
    await this.dropClient();
  }

  private enqueue(unitId: number, options: RequestOptions, run: Job['run']): Promise<unknown> {
    if (this.closed) return Promise.reject(new ModbusConnectionError('line closed'));
    return new Promise((resolve, reject) => {
      const job: Job = {
        unitId,
        timeoutMs: options.timeoutMs ?? this.options.timeoutMs,
        deadline: options.deadline ?? Number.POSITIVE_INFINITY,
        run,
        resolve,
        reject,
      };
      this.queues[options.priority ?? 'poll'].push(job);
      if (!this.pumping) void this.pump();
    });
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      for (;;) {
        const job = this.queues.command.shift() ?? this.queues.poll.shift();
        if (!job) return;
        try {
          job.resolve(await this.execute(job));
        } catch (err) {
          job.reject(err as Error);
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  private async execute(job: Job): Promise<unknown> {
    if (this.closed) throw new ModbusConnectionError('line closed');
    if (this.monotonic() >= job.deadline) throw new ModbusTimeoutError('deadline passed while queued');
    const client = await this.connected();
    // At most one pause: the line's clock is monotonic, and the bound keeps any clock honest.
    const wait = Math.min(this.lastRequestEndAt + this.options.pauseBetweenMs - this.monotonic(), this.options.pauseBetweenMs);
    if (wait > 0) await delay(wait);
    const timeoutMs = Math.max(1, Math.min(job.timeoutMs, job.deadline - this.monotonic()));
    client.setID(job.unitId);
    client.setTimeout(timeoutMs);
    this.transactions++;
    try {
      const value = await this.guarded(client, job.run(client), timeoutMs);
      this.consecutiveTimeouts = 0;
      return value;
    } catch (err) {
      throw await this.classify(err);
    } finally {
      this.lastRequestEndAt = this.monotonic();
      forgetTransactions(client);
    }
  }

  /** Races the request against the connection closing and against our own timer: a destroyed
   * modbus-serial client cancels its timers and would otherwise leave the promise pending forever. */
  private guarded<T>(client: Client, request: Promise<T>, timeoutMs: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const onClose = () => finish(() => reject(new ModbusConnectionError('connection closed by peer')));
      const timer = setTimeout(() => finish(() => reject(new ModbusTimeoutError())), timeoutMs + 50);
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        (client as unknown as NodeJS.EventEmitter).removeListener('close', onClose);
        settle();
      };
      (client as unknown as NodeJS.EventEmitter).once('close', onClose);
      request.then((value) => finish(() => resolve(value)), (err: unknown) => finish(() => reject(err)));
    });
  }

  private async classify(err: unknown): Promise<Error> {
    const e = err as { modbusCode?: number; name?: string; message?: string };
    if (typeof e.modbusCode === 'number') {
      this.consecutiveTimeouts = 0;
      return new ModbusExceptionError(e.modbusCode, e.message ?? '');
    }
    if (err instanceof ModbusTimeoutError || e.name === 'TransactionTimedOutError') {
      if (++this.consecutiveTimeouts >= this.options.maxConsecutiveTimeouts) {
        // A stream that stays silent may be stuck behind a half frame: start afresh.
        this.log.debug({ line: this.name }, 'modbus: repeated timeouts, reopening the connection');
        await this.dropClient();
      }
      return err instanceof ModbusTimeoutError ? err : new ModbusTimeoutError();
    }
    // CRC errors, wrong lengths, unexpected frames, closed ports: the byte stream can no longer be
    // trusted, so the connection is reopened before the next request.
    await this.dropClient();
    return err instanceof ModbusConnectionError ? err : new ModbusConnectionError(e.message ?? String(err));
  }

  private async connected(): Promise<Client> {
    if (this.client?.isOpen) return this.client;
    await this.dropClient();
    const now = this.monotonic();
    if (now < this.nextConnectAt) {
      throw new ModbusNotConnectedError(`${this.name} unreachable, next attempt in ${this.nextConnectAt - now} ms`);
    }
    const ModbusRTU = await modbusRtu();
    const client = new ModbusRTU();
    // modbus-serial re-emits port errors; without a listener an 'error' event would end the process.
    client.on('error', () => {});
    try {
      await this.open(client);
    } catch (err) {
      client.destroy(() => {});
      this.nextConnectAt = this.monotonic() + this.backoffMs;
      this.backoffMs = Math.min(this.backoffMs * 2, this.options.backoffMaxMs);
      const message = (err as Error).message || String(err);
      this.log.debug({ line: this.name, err: message }, 'modbus: connect failed');
      throw new ModbusNotConnectedError(`cannot connect to ${this.name}: ${message}`);
    }
    this.client = client;
    this.onClientClose = () => {
      if (this.client === client) this.client = null;
    };
    (client as unknown as NodeJS.EventEmitter).once('close', this.onClientClose);
    this.backoffMs = this.options.backoffMinMs;
    this.nextConnectAt = 0;
    this.consecutiveTimeouts = 0;
    this.log.debug({ line: this.name }, 'modbus: connected');
    if (this.options.pauseAfterConnectMs > 0) await delay(this.options.pauseAfterConnectMs);
    return client;
  }

  private open(client: Client): Promise<void> {
    const endpoint = this.endpoint;
    const opening = endpoint.kind === 'tcp'
      ? client.connectTCP(endpoint.host, { port: endpoint.port })
      : client.connectRTUBuffered(endpoint.path, {
        baudRate: endpoint.baudRate, parity: endpoint.parity, stopBits: endpoint.stopBits, dataBits: endpoint.dataBits,
      });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('connect timed out')), this.options.connectTimeoutMs);
    });
    return Promise.race([opening, timeout]).finally(() => clearTimeout(timer));
  }

  private dropClient(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (!client) return Promise.resolve();
    if (this.onClientClose) (client as unknown as NodeJS.EventEmitter).removeListener('close', this.onClientClose);
    return new Promise((resolve) => {
      try {
        if (this.endpoint.kind === 'tcp') client.destroy(() => resolve());
        else client.close(() => resolve());
      } catch {
        resolve();
      }
    });
  }
}
