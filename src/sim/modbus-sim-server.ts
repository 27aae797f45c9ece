// A Modbus server for simulated devices, over TCP (modbus-serial's ServerTCP) or a serial line
// (its ServerSerial), with faults on demand: silence, exceptions, slowness, dropped connections and
// garbage frames. Each unit id behind the server is one simulated device.
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { ServerSerial, ServerTCP, type IServiceVector } from 'modbus-serial';

/** What a simulated device does with a request. */
export type Fault =
  | { kind: 'none' }
  | { kind: 'silence' }
  | { kind: 'exception'; code: number }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'drop' }
  | { kind: 'garbage' };

export interface SimUnit {
  /** The registers asked for, or null when any of them does not exist (exception 2). */
  read(fn: 3 | 4, address: number, count: number): number[] | null;
  /** Writes registers; false when they do not exist or are read-only (exception 2). */
  write?(address: number, values: number[]): boolean;
}

/** Reads holding registers (function 3) from a register map: null when any is missing (exception 2). */
export function readHoldingRegisters(registers: ReadonlyMap<number, number>, fn: 3 | 4, address: number, count: number): number[] | null {
  if (fn !== 3) return null;
  const out: number[] = [];
  for (let a = address; a < address + count; a++) {
    const value = registers.get(a);
    if (value === undefined) return null;
    out.push(value);
  }
  return out;
}

export interface SimServerOptions {
  host?: string;
  port?: number;
  /** What a unit id nobody answers to gets: gateways say exception 11, bare devices stay silent. */
  unknownUnit?: 'exception' | 'silence';
}

type Callback<T> = (err: { modbusErrorCode: number } | null, value?: T) => void;

interface Closable {
  close(cb: (err: Error | null) => void): void;
  socks: Map<{ destroy?: () => void; write?: (b: Buffer) => unknown }, 0>;
}

export class ModbusSimServer {
  /** Requests received, by unit id; tests and the bench compare it with what the hub sent. */
  readonly requests = new Map<number, number>();
  private readonly faults = new Map<number, Fault>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private server: Closable | undefined;
  private serialWrite: ((b: Buffer) => void) | undefined;
  port = 0;

  constructor(readonly units: Map<number, SimUnit>, private readonly unknownUnit: 'exception' | 'silence' = 'exception') {}

  static async tcp(units: Map<number, SimUnit>, options: SimServerOptions = {}): Promise<ModbusSimServer> {
    const sim = new ModbusSimServer(units, options.unknownUnit);
    await sim.listenTcp(options.host ?? '127.0.0.1', options.port ?? 0);
    return sim;
  }

  static async serial(units: Map<number, SimUnit>, path: string, baudRate = 9600): Promise<ModbusSimServer> {
    const sim = new ModbusSimServer(units, 'silence');
    await new Promise<void>((resolve, reject) => {
      const server = new ServerSerial(sim.vector(), {
        path, baudRate, unitID: 255, openCallback: (err: Error | null) => (err ? reject(err) : resolve()),
      } as never);
      sim.server = server as unknown as Closable;
      const port = (server as unknown as { _serverPath: { write(b: Buffer): void } })._serverPath;
      sim.serialWrite = (b) => port.write(b);
    });
    return sim;
  }

  /** Sets the fault of one unit, or of every unit with 'all'. */
  setFault(unitId: number | 'all', fault: Fault): void {
    const ids = unitId === 'all' ? [...this.units.keys()] : [unitId];
    for (const id of ids) this.faults.set(id, fault);
  }

  /** Closes every client connection now (the server keeps listening). */
  dropConnections(): void {
    for (const sock of this.server?.socks.keys() ?? []) sock.destroy?.();
  }

  get connections(): number {
    return this.server?.socks.size ?? 0;
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async listenTcp(host: string, wantedPort: number): Promise<void> {
    // ServerTCP treats port 0 as "use 502", so a free port is found first; a rare race with another
    // process taking it in between is retried.
    for (let attempt = 0; ; attempt++) {
      const port = wantedPort || (await freePort(host));
      try {
        await new Promise<void>((resolve, reject) => {
          const server = new ServerTCP(this.vector(), { host, port, unitID: 255 });
          server.on('initialized', () => resolve());
          server.on('serverError', (err: Error | null) => {
            server.close(() => {});
            reject(err ?? new Error('server error'));
          });
          server.on('socketError', () => {});
          this.server = server as unknown as Closable;
        });
        this.port = port;
        return;
      } catch (err) {
        if (wantedPort || attempt >= 5) throw err;
      }
    }
  }

  private vector(): IServiceVector {
    const answer = (fn: 3 | 4) => (address: number, length: number, unitId: number, cb: Callback<number[]>) =>
      this.handle(unitId, cb, (unit) => {
        const values = unit.read(fn, address, length);
        return values === null ? { error: 2 } : { value: values };
      });
    const single = (fn: 3 | 4) => (address: number, unitId: number, cb: Callback<number>) =>
      this.handle(unitId, cb, (unit) => {
        const values = unit.read(fn, address, 1);
        return values === null ? { error: 2 } : { value: values[0]! };
      });
    return {
      getMultipleHoldingRegisters: answer(3),
      getMultipleInputRegisters: answer(4),
      getHoldingRegister: single(3),
      getInputRegister: single(4),
      setRegisterArray: (address: number, values: number[], unitId: number, cb: Callback<void>) =>
        this.handle(unitId, cb, (unit) => (unit.write?.(address, values) ? { value: undefined } : { error: 2 })),
      setRegister: (address: number, value: number, unitId: number, cb: Callback<void>) =>
        this.handle(unitId, cb, (unit) => (unit.write?.(address, [value]) ? { value: undefined } : { error: 2 })),
    } as IServiceVector;
  }

  private handle<T>(unitId: number, cb: Callback<T>, run: (unit: SimUnit) => { value: T } | { error: number }): void {
    this.requests.set(unitId, (this.requests.get(unitId) ?? 0) + 1);
    const unit = this.units.get(unitId);
    if (!unit) {
      if (this.unknownUnit === 'exception') cb({ modbusErrorCode: 11 });
      return;
    }
    const respond = () => {
      const result = run(unit);
      if ('error' in result) cb({ modbusErrorCode: result.error });
      else cb(null, result.value);
    };
    const fault = this.faults.get(unitId) ?? { kind: 'none' };
    switch (fault.kind) {
      case 'none': return respond();
      case 'silence': return;
      case 'exception': return cb({ modbusErrorCode: fault.code });
      case 'slow': {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          respond();
        }, fault.delayMs);
        this.timers.add(timer);
        return;
      }
      case 'drop': return this.dropConnections();
      case 'garbage': return this.sendGarbage();
    }
  }

  /** Bytes that are no valid answer: a broken MBAP header on TCP, a bad CRC on a serial line. */
  private sendGarbage(): void {
    const junk = Buffer.concat([Buffer.from([0x00, 0x01, 0x00, 0x00, 0x00, 0xff]), randomBytes(7)]);
    if (this.serialWrite) this.serialWrite(junk);
    else for (const sock of this.server?.socks.keys() ?? []) sock.write?.(junk);
  }
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
