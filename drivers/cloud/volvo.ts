// Volvo cars through the Volvo Cars public API (official; Europe, the Middle East and Africa): the
// Energy API v2 `state` and the Connected Vehicle API v2 `odometer`. Fields and values follow
// home-assistant/core's `volvo` integration and its test fixtures
// (tests/components/volvo/fixtures/xc40_electric_2024/energy_state.json @4b2b4090, ex30_2024 @8468fe40,
// odometer.json @af2a5f76), evcc-io/evcc @b29b49e vehicle/volvo/connected/, and the value sets of
// Dielee/volvo2mqtt @f8b6f9cf src/const.py. Every field carries its own status: one with status ERROR
// (an EX30's chargingPower: PROPERTY_NOT_FOUND) is not available, the others still are.
//
// The public API has no charging command and no way to set the target level: a Volvo's
// CHARGING_START/STOP go through the charger it is bound to.
import { defineCloudDriver } from '../../src/runtime/cloud/definition.ts';

export default defineCloudDriver({
  type: 'volvo',
  protocol: 'volvo',
  title: 'Volvo through the Volvo Cars API (read-only)',
  vendors: ['VOLVO'],
  keys: [
    { key: 'batteryChargeLevel', rule: { field: 'stateOfCharge', as: 'number', digits: 0 } },
    // electricRange comes in km or mi, as the car is set up.
    { key: 'electricRange', rule: { field: 'rangeKm', as: 'number', units: { km: 1, mi: 1.609344 }, digits: 0 } },
    // chargerConnectionStatus: CONNECTED, DISCONNECTED, FAULT, UNSPECIFIED.
    { key: 'chargerConnectionStatus', rule: { field: 'isPlugged', as: 'boolean', map: { CONNECTED: true, DISCONNECTED: false } } },
    // chargingStatus: CHARGING, IDLE, DONE, SCHEDULED, FAULT, ERROR, DISCHARGING, UNSPECIFIED. IDLE is
    // not charging; a car whose connection status is DISCONNECTED is UNPLUGGED (volvo-poller.ts).
    { key: 'chargingStatus', rule: { field: 'chargingState', as: 'string', map: { CHARGING: 'CHARGING', IDLE: 'STOPPED', DONE: 'FINISHED', SCHEDULED: 'STOPPED', FAULT: 'FAULT', ERROR: 'FAULT' } } },
    { key: 'chargingPower', rule: { field: 'chargeRate', as: 'number', units: { watts: 0.001 }, digits: 2 } },
    { key: 'targetBatteryChargeLevel', rule: { field: 'chargeLimit', as: 'number', digits: 0 } },
    { key: 'estimatedChargingTimeToTargetBatteryChargeLevel', rule: { field: 'chargingTimeRemainingMinutes', as: 'number', digits: 0 } },
    { key: 'odometer', rule: { field: 'odometerKm', as: 'number', units: { km: 1, mi: 1.609344 }, digits: 0 } },
  ],
});
