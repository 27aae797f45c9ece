// BMW and MINI cars through BMW CarData, BMW's official, free, read-only customer API for EU-registered
// cars (one backend and one set of keys for both brands; only the portal differs). The keys and their
// values follow evcc-io/evcc @b29b49e vehicle/bmw/cardata/provider.go and types.go, and
// kvanbiesen/bmw-cardata-ha @21802199 custom_components/cardata/const.py, whose meanings come from
// BMW's telematics data catalogue. The stream sends only the keys that changed, and only those the
// owner ticked in the portal's "Configure data stream": a key listed here that is not ticked never
// arrives, and its field stays empty.
//
// CarData has no commands: a BMW's CHARGING_START/STOP go through the charger the car is bound to.
import { defineCloudDriver } from '../../src/runtime/cloud/definition.ts';

// charging.status (NOCHARGING, INITIALIZATION, CHARGINGACTIVE, CHARGINGPAUSED, CHARGINGENDED,
// CHARGINGERROR) and its fallback hvStatus (INVALID, CHARGING, ERROR, NOT_CHARGING,
// WAITING_FOR_CHARGING, FINISHED_FULLY_CHARGED, FINISHED_NOT_FULL), in the origin's chargingState as
// evcc reads them (CHARGINGACTIVE/CHARGING: charging; the paused, waiting and ended ones: plugged in,
// not charging). NOCHARGING and NOT_CHARGING mean "no charging process", and say nothing about the
// plug (evcc takes the plug from the port keys alone). So they come last: the other key's more
// telling word (FINISHED_NOT_FULL) goes first, else "no charging process" is STOPPED; and a car whose
// port key says it is unplugged is UNPLUGGED whatever its charging word (vehicleFields in
// src/runtime/cloud/definition.ts), so an unplugged BMW is UNPLUGGED as an unplugged Volvo is.
const CHARGING_STATUS = {
  INITIALIZATION: 'PREPARING', CHARGINGACTIVE: 'CHARGING', CHARGINGPAUSED: 'STOPPED', CHARGINGENDED: 'FINISHED', CHARGINGERROR: 'FAULT',
} as const;
const HV_STATUS = {
  CHARGING: 'CHARGING', ERROR: 'FAULT', WAITING_FOR_CHARGING: 'PREPARING', FINISHED_FULLY_CHARGED: 'FINISHED', FINISHED_NOT_FULL: 'FINISHED',
} as const;

export default defineCloudDriver({
  type: 'bmw-cardata',
  protocol: 'bmw-cardata',
  title: 'BMW or MINI through BMW CarData (read-only, EU cars)',
  vendors: ['BMW', 'MINI'],
  keys: [
    // State of charge in %; the header value first, the displayed one as evcc's fallback.
    { key: 'vehicle.drivetrain.batteryManagement.header', rule: { field: 'stateOfCharge', as: 'number', digits: 0 } },
    { key: 'vehicle.powertrain.electric.battery.stateOfCharge.displayed', rule: { field: 'stateOfCharge', as: 'number', digits: 0 } },
    // Electric range in km; lastRemainingRange (electric plus fuel on a PHEV) only as the fallback.
    { key: 'vehicle.drivetrain.electricEngine.kombiRemainingElectricRange', rule: { field: 'rangeKm', as: 'number', digits: 0 } },
    { key: 'vehicle.drivetrain.lastRemainingRange', rule: { field: 'rangeKm', as: 'number', digits: 0 } },
    { key: 'vehicle.drivetrain.electricEngine.charging.status', rule: { field: 'chargingState', as: 'string', map: CHARGING_STATUS } },
    { key: 'vehicle.drivetrain.electricEngine.charging.hvStatus', rule: { field: 'chargingState', as: 'string', map: HV_STATUS } },
    // The last resort for chargingState: "no charging process" (see above).
    { key: 'vehicle.drivetrain.electricEngine.charging.status', rule: { field: 'chargingState', as: 'string', map: { NOCHARGING: 'STOPPED' } } },
    { key: 'vehicle.drivetrain.electricEngine.charging.hvStatus', rule: { field: 'chargingState', as: 'string', map: { NOT_CHARGING: 'STOPPED' } } },
    // Plugged: the port status (CONNECTED, DISCONNECTED; INVALID and -NA- say nothing), and on the
    // "New Class" cars (evcc #30938) a boolean.
    { key: 'vehicle.body.chargingPort.status', rule: { field: 'isPlugged', as: 'boolean', map: { CONNECTED: true, DISCONNECTED: false } } },
    { key: 'vehicle.powertrain.tractionBattery.charging.port.anyPosition.isPlugged', rule: { field: 'isPlugged', as: 'boolean' } },
    // Charging power in W, kept in kW as the API's chargeRate.
    { key: 'vehicle.powertrain.electric.battery.charging.power', rule: { field: 'chargeRate', as: 'number', scale: 0.001, digits: 2 } },
    { key: 'vehicle.powertrain.electric.battery.stateOfCharge.target', rule: { field: 'chargeLimit', as: 'number', digits: 0 } },
    { key: 'vehicle.drivetrain.electricEngine.charging.timeRemaining', rule: { field: 'chargingTimeRemainingMinutes', as: 'number', digits: 0 } },
    { key: 'vehicle.vehicle.travelledDistance', rule: { field: 'odometerKm', as: 'number', digits: 0 } },
    { key: 'vehicle.cabin.infotainment.navigation.currentLocation.latitude', rule: { field: 'latitude', as: 'number', digits: 6 } },
    { key: 'vehicle.cabin.infotainment.navigation.currentLocation.longitude', rule: { field: 'longitude', as: 'number', digits: 6 } },
  ],
});
