// What an OCPP 1.6 charger reports, turned into the API's chargeState: StatusNotification's
// ChargePointStatus into `chargingState` and `isPlugged`, MeterValues' sampled values (in whatever
// measurands, units and phases the charger reports) into kW and A. Pure functions, no I/O.
//
// The status names and their meanings are OCPP 1.6 edition 2, §7.7 (ChargePointStatus); the
// measurands, units and phases §7.31–7.45 (SampledValue and its enumerations).

/** The API's charger state fields this mapping is the authority on. */
export interface ChargerValues {
  chargingState?: 'UNPLUGGED' | 'PREPARING' | 'CHARGING' | 'FINISHED' | 'STOPPED' | 'FAULT';
  isPlugged?: boolean;
  chargeRate?: number;
  chargeCurrentMax?: number;
  activePhases?: number;
}

export interface ConnectorStatus {
  status: string;
  errorCode: string;
}

/**
 * ChargePointStatus → chargingState:
 * - Available, Reserved: no vehicle → UNPLUGGED;
 * - Preparing (plugged or authorised, not yet charging) → PREPARING;
 * - Charging → CHARGING;
 * - SuspendedEV (the vehicle takes no energy, typically full) → FINISHED;
 * - SuspendedEVSE (the charger withholds energy: a limit, a pause) and Finishing (the transaction
 *   ended, the vehicle still plugged) → STOPPED;
 * - Unavailable (out of service, not a fault) → STOPPED; Faulted → FAULT.
 * `faultOnErrorCode`: a charger whose firmware never sends Faulted (some Zaptec firmware) tells of a
 * fault only through an errorCode other than NoError, which then counts as FAULT.
 */
export function valuesOfStatus(connector: ConnectorStatus, faultOnErrorCode: boolean): ChargerValues {
  if (connector.status === 'Faulted' || (faultOnErrorCode && connector.errorCode !== 'NoError')) return { chargingState: 'FAULT' };
  switch (connector.status) {
    case 'Available':
    case 'Reserved':
      return { chargingState: 'UNPLUGGED', isPlugged: false };
    case 'Preparing':
      return { chargingState: 'PREPARING', isPlugged: true };
    case 'Charging':
      return { chargingState: 'CHARGING', isPlugged: true };
    case 'SuspendedEV':
      return { chargingState: 'FINISHED', isPlugged: true };
    case 'SuspendedEVSE':
    case 'Finishing':
      return { chargingState: 'STOPPED', isPlugged: true };
    default: // Unavailable
      return { chargingState: 'STOPPED' };
  }
}

export interface SampledValue {
  value: string;
  measurand?: string;
  unit?: string;
  phase?: string;
  context?: string;
  format?: string;
  location?: string;
}

/** What one MeterValues message said, in the hub's units (W, Wh, A). */
export interface MeterReading {
  powerW?: number;
  energyWh?: number;
  offeredA?: number;
  /** Phases with a current above the threshold, when the charger reports currents per phase. */
  activePhases?: number;
}

/** Current per phase above which the phase counts as carrying the charge (a few hundred mA is noise). */
const PHASE_CURRENT_THRESHOLD_A = 1;

/** Reads the latest sample of a MeterValues message; values the charger did not report stay undefined. */
export function readMeterValues(meterValue: readonly { timestamp: string; sampledValue: readonly SampledValue[] }[]): MeterReading {
  const latest = [...meterValue].sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp)).at(-1);
  if (!latest) return {};
  const reading: MeterReading = {};
  const phasePower: number[] = [];
  const phaseCurrent = new Map<string, number>();
  const phaseOffered: number[] = [];
  for (const sample of latest.sampledValue) {
    // SignedData (a signed meter reading) carries no plain number; the Outlet/Cable/EV location is
    // still the charge, a Body or Inlet reading is not.
    if (sample.format === 'SignedData' || sample.location === 'Body' || sample.location === 'Inlet') continue;
    const number = Number(sample.value);
    if (!Number.isFinite(number)) continue;
    // The default measurand is Energy.Active.Import.Register (§7.31).
    const measurand = sample.measurand ?? 'Energy.Active.Import.Register';
    const perPhase = sample.phase !== undefined && sample.phase !== 'N';
    switch (measurand) {
      case 'Power.Active.Import': {
        const watts = sample.unit === 'kW' ? number * 1000 : number;
        if (perPhase) phasePower.push(watts);
        else reading.powerW = watts;
        break;
      }
      case 'Energy.Active.Import.Register':
        if (!perPhase) reading.energyWh = sample.unit === 'kWh' ? number * 1000 : number;
        break;
      case 'Current.Offered':
        if (perPhase) phaseOffered.push(number);
        else reading.offeredA = number;
        break;
      case 'Current.Import':
        if (perPhase) phaseCurrent.set(sample.phase!.slice(0, 2), number);
        break;
      default:
        break;
    }
  }
  if (reading.powerW === undefined && phasePower.length > 0) reading.powerW = phasePower.reduce((a, b) => a + b, 0);
  if (reading.offeredA === undefined && phaseOffered.length > 0) reading.offeredA = Math.max(...phaseOffered);
  if (phaseCurrent.size > 0) reading.activePhases = [...phaseCurrent.values()].filter((a) => a >= PHASE_CURRENT_THRESHOLD_A).length;
  return reading;
}

/** The API's values from a meter reading: kW with two decimals (never negative), A. */
export function valuesOfReading(reading: MeterReading): ChargerValues {
  const values: ChargerValues = {};
  if (reading.powerW !== undefined) values.chargeRate = Math.max(0, Math.round(reading.powerW / 10) / 100);
  if (reading.offeredA !== undefined) values.chargeCurrentMax = Math.max(0, Math.round(reading.offeredA * 10) / 10);
  if (reading.activePhases !== undefined) values.activePhases = reading.activePhases;
  return values;
}

/**
 * The connector whose state is the charger's: the API shows a charger as one device, and the hub's
 * chargers have one connector. With more, the one in a transaction, else the lowest numbered;
 * connector 0 is the charge point itself and counts only when it is Faulted.
 */
export function chargerValues(connectors: ReadonlyMap<number, ConnectorStatus>, busyConnector: number | undefined, faultOnErrorCode: boolean): ChargerValues {
  const whole = connectors.get(0);
  if (whole && valuesOfStatus(whole, faultOnErrorCode).chargingState === 'FAULT') return { chargingState: 'FAULT' };
  const numbers = [...connectors.keys()].filter((n) => n > 0).sort((a, b) => a - b);
  const main = busyConnector !== undefined && connectors.has(busyConnector) ? busyConnector : numbers[0];
  return main === undefined ? {} : valuesOfStatus(connectors.get(main)!, faultOnErrorCode);
}
