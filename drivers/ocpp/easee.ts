// Easee chargers in native OCPP 1.6J (commissioned through Easee's local-OCPP API, connectivity mode
// DualProtocol). Sources: Easee developer documentation, "OCPP Commands" and "Smart Charging &
// Profiles" (developer.easee.com / developer.easee.cloud).
import type { OcppQuirks } from '../../src/runtime/ocpp/definition.ts';

export const easee: OcppQuirks = {
  name: 'easee',
  matches: (vendor) => /easee/i.test(vendor),
  heartbeatIntervalS: 300,
  // Only some Core keys are writable ("Change configuration is supported for a very limited number of
  // configuration keys"); HeartbeatInterval and MeterValueSampleInterval are among them.
  bootConfiguration: [
    { key: 'HeartbeatInterval', value: '300' },
    { key: 'MeterValueSampleInterval', value: '30' },
  ],
  faultOnErrorCode: false,
  // Smart charging: ChargePointMaxProfile and TxDefaultProfile only; "TxProfile not supported",
  // "chargingProfileKind relative not supported", connectorId at most 2.
  currentLimitProfile: 'default',
  scheduleKind: 'Absolute',
  // Profiles are written to flash: "Daily recommended maximum writes: 25 schedules", 100,000 in the
  // charger's life. A limit already in force is not written again.
  sparesProfileWrites: true,
  connectorId: 1,
};
