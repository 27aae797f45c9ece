// Where a Modbus line goes: a TCP endpoint or a serial bus. One connection per endpoint is shared by
// every unit id behind it, so the key leaves the unit id out.
import type { DriverBinding } from '../domain/device.ts';

export type Parity = 'none' | 'even' | 'odd';

export type Endpoint =
  | { kind: 'tcp'; host: string; port: number }
  | { kind: 'rtu'; path: string; baudRate: number; parity: Parity; stopBits: 1 | 2; dataBits: 7 | 8 };

export function endpointKey(endpoint: Endpoint): string {
  return endpoint.kind === 'tcp' ? `tcp://${endpoint.host}:${endpoint.port}` : `rtu://${endpoint.path}`;
}

export function describeEndpoint(endpoint: Endpoint): string {
  if (endpoint.kind === 'tcp') return `${endpoint.host}:${endpoint.port}`;
  const parity = endpoint.parity[0]!.toUpperCase();
  return `${endpoint.path} ${endpoint.baudRate} ${endpoint.dataBits}${parity}${endpoint.stopBits}`;
}

/** Modbus TCP's registered port, where a binding gives none. */
export const MODBUS_TCP_PORT = 502;

/** Reads the address part of a driver binding; throws with a message an installer understands. */
export function endpointOf(binding: DriverBinding): Endpoint {
  if (typeof binding['host'] === 'string' && binding['host'] !== '') {
    const port = binding['port'] ?? MODBUS_TCP_PORT;
    if (!Number.isInteger(port) || (port as number) < 1 || (port as number) > 65535) throw new Error('port must be 1-65535');
    return { kind: 'tcp', host: binding['host'], port: port as number };
  }
  if (typeof binding['serialPort'] === 'string' && binding['serialPort'] !== '') {
    const baudRate = binding['baudRate'] ?? 9600;
    const parity = binding['parity'] ?? 'none';
    const stopBits = binding['stopBits'] ?? 1;
    const dataBits = binding['dataBits'] ?? 8;
    if (!Number.isInteger(baudRate) || (baudRate as number) < 300) throw new Error('baudRate must be a whole number of at least 300');
    if (parity !== 'none' && parity !== 'even' && parity !== 'odd') throw new Error('parity must be none, even or odd');
    if (stopBits !== 1 && stopBits !== 2) throw new Error('stopBits must be 1 or 2');
    if (dataBits !== 7 && dataBits !== 8) throw new Error('dataBits must be 7 or 8');
    return { kind: 'rtu', path: binding['serialPort'], baudRate: baudRate as number, parity, stopBits, dataBits };
  }
  throw new Error('a Modbus binding needs host (TCP) or serialPort (RTU)');
}
