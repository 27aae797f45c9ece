// A device served from a register dump (a real device's captured registers): hex words in order
// from a start address, `#` comments and blank lines ignored. Used by tests that replay captures.
import { readFileSync } from 'node:fs';
import { readHoldingRegisters, type SimUnit } from '../../src/sim/modbus-sim-server.ts';

export function dumpUnit(file: string, start: number): SimUnit {
  const registers = new Map<number, number>();
  let address = start;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const text = line.replace(/#.*/, '').trim();
    if (!text) continue;
    for (const word of text.split(/\s+/)) registers.set(address++, parseInt(word, 16));
  }
  return { read: (fn, at, count) => readHoldingRegisters(registers, fn, at, count) };
}
