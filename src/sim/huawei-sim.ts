// A simulated Huawei SUN2000 with a LUNA2000 battery and a DTSU666-H meter, laid out from Huawei's
// "SUN2000 MODBUS Interface Definitions": only the documented blocks exist, anything else answers
// exception 2, as the real inverter does.
import { readHoldingRegisters, type SimUnit } from './modbus-sim-server.ts';
import type { SiteSource } from './household-model.ts';

/** Documented register blocks [first, last] that this simulator serves. */
const BLOCKS: ReadonlyArray<[number, number]> = [
  [30000, 30024], // model name, serial number
  [32064, 32107], // input power … accumulated energy yield
  [37100, 37125], // power meter
  [37758, 37767], // energy storage unit 1
  [47075, 47086], // energy storage settings
];

export class HuaweiUnit implements SimUnit {
  private readonly registers = new Map<number, number>();
  onRead: (() => void) | undefined;

  constructor() {
    for (const [first, last] of BLOCKS) for (let a = first; a <= last; a++) this.registers.set(a, 0);
  }

  setString(address: number, words: number, text: string): void {
    const bytes = Buffer.alloc(words * 2);
    bytes.write(text.slice(0, words * 2), 'latin1');
    for (let i = 0; i < words; i++) this.registers.set(address + i, bytes.readUInt16BE(i * 2));
  }

  set16(address: number, value: number): void {
    this.registers.set(address, value & 0xffff);
  }

  /** 32-bit values, high word first. */
  set32(address: number, value: number): void {
    const v = value >>> 0;
    this.registers.set(address, v >>> 16);
    this.registers.set(address + 1, v & 0xffff);
  }

  read(fn: 3 | 4, address: number, count: number): number[] | null {
    if (fn !== 3) return null;
    this.onRead?.();
    return readHoldingRegisters(this.registers, fn, address, count);
  }

  write(address: number, values: number[]): boolean {
    // Only the settings block is writable.
    if (address < 47075 || address + values.length - 1 > 47086) return false;
    values.forEach((v, i) => this.registers.set(address + i, v & 0xffff));
    return true;
  }
}

export function huaweiSun2000(site: SiteSource, model = 'SUN2000-5KTL-L1', options: { meter?: boolean } = {}): HuaweiUnit {
  const unit = new HuaweiUnit();
  // 37100 [Power meter] Meter status: 0 offline (none attached), 1 normal.
  unit.set16(37100, options.meter === false ? 0 : 1);
  unit.setString(30000, 15, model);
  unit.setString(30015, 10, 'HV2150123456');
  unit.set32(37758, site.batteryCapacityWh);
  unit.set32(47075, site.batteryMaxW);
  unit.set32(47077, site.batteryMaxW);
  unit.set16(47081, 1000); // charge to 100.0 %
  unit.set16(47082, 50); // keep 5.0 %
  unit.set16(47086, 0); // adaptive
  unit.onRead = () => {
    const now = site.read();
    unit.set32(32064, now.pvW);
    unit.set32(32080, now.pvW - now.batteryW);
    unit.set16(32089, now.pvW > 0 ? 0x0200 : 0xa000);
    unit.set32(32106, Math.round(now.pvEnergyWh / 10));
    unit.set32(37113, -now.gridW);
    unit.set16(37118, 5002);
    unit.set32(37119, Math.round(now.gridExportWh / 10));
    unit.set32(37121, Math.round(now.gridImportWh / 10));
    unit.set16(37760, Math.round(now.socPct * 10));
    unit.set16(37762, 2);
    unit.set32(37765, now.batteryW);
  };
  return unit;
}
