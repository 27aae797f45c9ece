// How a maker's OCPP 1.6J implementation departs from the standard, declared as data
// (drivers/ocpp/): what the hub configures after a BootNotification, how it reads faults, how it
// sends a current limit. A charger without a definition of its own gets the generic one.

export interface OcppQuirks {
  /** A name for logs. */
  readonly name: string;
  /** Whether this definition is for the charger that booted with this chargePointVendor (case-insensitive). */
  matches(chargePointVendor: string): boolean;
  /** The heartbeat interval the hub asks for in its BootNotification answer, in seconds. */
  heartbeatIntervalS: number;
  /**
   * Configuration keys the hub writes with ChangeConfiguration after each accepted boot (for a
   * charger that ignores the BootNotification interval, or samples meter values too rarely). A
   * key the charger rejects or does not know is logged and otherwise left alone.
   */
  bootConfiguration: readonly { key: string; value: string }[];
  /** A charger that reports faults only through errorCode (never status Faulted). */
  faultOnErrorCode: boolean;
  /**
   * How SET_CHARGING_CURRENT's limit is sent: `tx` a TxProfile for the running transaction, else a
   * TxDefaultProfile on connector 0 (the standard's way); `default` always a TxDefaultProfile on
   * connector 0 (for chargers without TxProfile); `max` a ChargePointMaxProfile on connector 0.
   */
  currentLimitProfile: 'tx' | 'default' | 'max';
  /** `Relative` (starts with the transaction) or `Absolute` (starts now) schedules. */
  scheduleKind: 'Relative' | 'Absolute';
  /**
   * The charger stores every profile in flash that wears: a limit its schedule shows already is
   * not written again (asked with GetCompositeSchedule first).
   */
  sparesProfileWrites: boolean;
  /** The connector the hub starts a transaction on. */
  connectorId: number;
}

export const GENERIC_OCPP_QUIRKS: OcppQuirks = {
  name: 'generic',
  matches: () => true,
  // Five minutes: the WebSocket pings (every 30 s) already tell a dead connection; the heartbeat
  // keeps the charger's clock set and is OCPP's own sign of life.
  heartbeatIntervalS: 300,
  bootConfiguration: [
    // Power and offered current while charging, every 30 s (OCPP 1.6 §9.1.17/§9.1.18: the keys
    // every charger has; a charger that does not take these values keeps its own).
    { key: 'MeterValueSampleInterval', value: '30' },
  ],
  faultOnErrorCode: false,
  currentLimitProfile: 'tx',
  scheduleKind: 'Relative',
  sparesProfileWrites: false,
  connectorId: 1,
};

/** The definition for a booted charger: the first that matches its vendor string, else the generic one. */
export function quirksFor(definitions: readonly OcppQuirks[], chargePointVendor: string | undefined): OcppQuirks {
  if (chargePointVendor === undefined) return GENERIC_OCPP_QUIRKS;
  return definitions.find((d) => d.matches(chargePointVendor)) ?? GENERIC_OCPP_QUIRKS;
}
