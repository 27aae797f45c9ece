// Conversions between compatible units, shared by every family's field and value rules.

const UNIT_FACTORS: Record<string, number> = { 'W>kW': 1e-3, 'kW>W': 1e3, 'Wh>kWh': 1e-3, 'kWh>Wh': 1e3 };

/** Converts between compatible units (W and kW, Wh and kWh); same unit or no unit passes through. */
export function convertUnit(value: number, from: string | undefined, to: string | undefined): number {
  if (!from || !to || from === to) return value;
  const factor = UNIT_FACTORS[`${from}>${to}`];
  if (factor === undefined) throw new Error(`cannot convert ${from} to ${to}`);
  return value * factor;
}
