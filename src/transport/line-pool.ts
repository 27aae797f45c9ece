// Hands out one ModbusLine per endpoint, so devices that share a gateway or an RS-485 bus share its
// single connection and its one-request-at-a-time queue.
import type { Logger } from 'pino';
import { endpointKey, type Endpoint } from './endpoint.ts';
import { DEFAULT_LINE_OPTIONS, ModbusLine, type LineOptions } from './modbus-line.ts';

export class LinePool {
  private readonly lines = new Map<string, ModbusLine>();

  /** `monotonic` is the lines' clock for pauses, back-offs and request deadlines (see ModbusLine). */
  constructor(private readonly log: Logger, private readonly defaults: LineOptions = DEFAULT_LINE_OPTIONS,
    readonly monotonic: () => number = () => performance.now()) {}

  /** The line for this endpoint. When devices on one line ask for different pauses, the most
   * patient wins: a pause one device needs is harmless to the others. */
  get(endpoint: Endpoint, wanted: Partial<LineOptions> = {}): ModbusLine {
    const key = endpointKey(endpoint);
    let line = this.lines.get(key);
    if (!line) {
      line = new ModbusLine(endpoint, { ...this.defaults, ...wanted }, this.log, this.monotonic);
      this.lines.set(key, line);
      return line;
    }
    const options = line.options as LineOptions;
    if (wanted.pauseAfterConnectMs !== undefined) options.pauseAfterConnectMs = Math.max(options.pauseAfterConnectMs, wanted.pauseAfterConnectMs);
    if (wanted.pauseBetweenMs !== undefined) options.pauseBetweenMs = Math.max(options.pauseBetweenMs, wanted.pauseBetweenMs);
    return line;
  }

  all(): ModbusLine[] {
    return [...this.lines.values()];
  }

  /** Requests sent on every line so far. */
  transactions(): number {
    let total = 0;
    for (const line of this.lines.values()) total += line.transactions;
    return total;
  }

  async release(endpoint: Endpoint): Promise<void> {
    const key = endpointKey(endpoint);
    const line = this.lines.get(key);
    this.lines.delete(key);
    await line?.close();
  }

  async closeAll(): Promise<void> {
    const lines = [...this.lines.values()];
    this.lines.clear();
    await Promise.all(lines.map((line) => line.close()));
  }
}
