// Command-line options shared by `hub scan` and `hub devices add`: where the device is (a host or
// a serial port) and how to talk to it.
import type { DriverBinding } from '../domain/device.ts';

export type { CliIo } from './io.ts';

export type Flags = Record<string, string>;

/**
 * `--name value` pairs and bare words; throws on a flag without a value and, when `known` is given,
 * on a flag it does not list (a typo must not be ignored: `--usr` would add a device for nobody).
 */
export function parseArgs(args: string[], known?: readonly string[]): { flags: Flags; words: string[] } {
  const flags: Flags = {};
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) {
      words.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    if (known && !known.includes(name)) throw new Error(`unknown option --${name}; known: ${known.map((k) => `--${k}`).join(' ')}`);
    const value = inline ?? args[++i];
    if (value === undefined) throw new Error(`--${name} needs a value`);
    flags[name] = value;
  }
  return { flags, words };
}

export function int(flags: Flags, name: string, fallback?: number): number | undefined {
  const raw = flags[name];
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`--${name} must be a whole number`);
  return Number(raw);
}

/** The address part of a binding: `HOST[:PORT]` or a serial device path (`/dev/ttyUSB0`). */
export function addressBinding(target: string, flags: Flags): Omit<DriverBinding, 'type'> {
  if (target.startsWith('/')) {
    return {
      serialPort: target,
      baudRate: int(flags, 'baud', 9600)!,
      parity: flags['parity'] ?? 'none',
      stopBits: int(flags, 'stop-bits', 1)!,
    };
  }
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(target);
  if (!match) throw new Error(`not a host or serial port: ${target}`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port: int(flags, 'port', match[2] ? Number(match[2]) : 502)! };
}

export function unitList(raw: string | undefined, fallback: number[]): number[] {
  if (!raw) return fallback;
  const units: number[] = [];
  for (const part of raw.split(',')) {
    const [from, to] = part.split('-').map(Number) as [number, number | undefined];
    for (let u = from; u <= (to ?? from); u++) if (Number.isInteger(u) && u >= 0 && u <= 247) units.push(u);
  }
  if (units.length === 0) throw new Error('--units must list unit ids, e.g. 1,2,126 or 1-10');
  return units;
}
