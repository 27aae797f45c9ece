// Zaptec Go, Go 2 and Pro in native ("box-level") OCPP 1.6J. Sources: Zaptec's "OCPP 1.6J compliance
// FAQ" and "Zaptec Pro OCPP 1.6J (box-level) release notes" (firmware 7.5.4.0), "Supported OCPP 1.6J
// cloud commands" and the "Zaptec Go OCPP 1.6J non-standard implementation guide" (docs.zaptec.com).
import type { OcppQuirks } from '../../src/runtime/ocpp/definition.ts';

export const zaptec: OcppQuirks = {
  name: 'zaptec',
  matches: (vendor) => /zaptec/i.test(vendor),
  heartbeatIntervalS: 300,
  bootConfiguration: [
    // HeartbeatInterval defaults to 86400 s (24 h) on the charger, whatever the boot answer says.
    { key: 'HeartbeatInterval', value: '300' },
    // MeterValueSampleInterval defaults to 0 (no meter values at all) on box-level firmware, and
    // to 2 minutes on the Go: 30 s keeps the charging power current.
    { key: 'MeterValueSampleInterval', value: '30' },
  ],
  // "Error conditions are not reported as faulted StatusNotification messages" (Pro 7.5.4.0
  // known issues; no Faulted on connector 0 either, compliance FAQ): an errorCode is the only sign.
  faultOnErrorCode: true,
  currentLimitProfile: 'tx',
  scheduleKind: 'Relative',
  sparesProfileWrites: false,
  // One connector (NumberOfConnectors = 1).
  connectorId: 1,
};
