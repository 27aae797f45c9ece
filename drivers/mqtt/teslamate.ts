// Tesla vehicles through TeslaMate, the self-hosted Tesla data logger, which publishes what it logs
// over MQTT. Follows teslamate-org/teslamate @8a692e2 (2026-08-22): website/docs/integrations/mqtt.md
// and lib/teslamate/mqtt/pubsub/vehicle_subscriber.ex. One topic per value,
// `teslamate/cars/{car_id}/{key}` (`teslamate/{namespace}/cars/…` with an MQTT namespace), a plain
// payload (`88`, `true`, `Blue Thunder`), retained, QoS 1, published only when the value changes.
//
// TeslaMate is read-only: it subscribes to nothing, so this definition has no commands. A vehicle's
// CHARGING_START/STOP and SET_CHARGING_CURRENT go through the charger it is plugged into: the one the
// binding's `chargerId` names, else its owner's only online charger that reports a plugged-in car, and
// only while the hub can tell it is this car (its owner's only vehicle on the hub, not reporting itself
// unplugged); see the command worker.
import { defineMqttDriver } from '../../src/runtime/mqtt/definition.ts';

const topic = (key: string) => `{topicPrefix}/cars/{carId}/${key}`;

export default defineMqttDriver({
  protocol: 'mqtt',
  type: 'teslamate',
  title: 'Tesla through TeslaMate (read-only)',
  source: 'TeslaMate MQTT integration',
  vendors: [{ domain: 'vehicles', code: 'TESLA' }],
  kinds: ['vehicle'],
  settings: {
    carId: { required: true, pattern: '[0-9]+', description: 'TeslaMate\'s car id, as in its topics (usually 1 for the first car)' },
    topicPrefix: {
      default: 'teslamate', pattern: '[^/#+]+(/[^/#+]+)*',
      description: 'teslamate, or teslamate/<namespace> when TeslaMate\'s MQTT_NAMESPACE is set',
    },
    staleAfterSeconds: {
      default: '86400', pattern: '[0-9]+',
      description: 'silence after which the car is shown offline; TeslaMate publishes only changes, so a parked, sleeping car is quiet for hours',
    },
    chargerId: { description: 'the hub id of the charger the car charges at: its charging commands go through that charger' },
  },
  // healthy: TeslaMate's own health check of the car's logger (true/false), not retained since 2025
  // (vehicle_subscriber.ex @do_not_retain; an empty retained message clears older ones, and means
  // nothing here). So a hub that starts later does not hear it: the car's retained values, and
  // silence, decide until TeslaMate says it again. It registers no last will.
  availability: { topic: topic('healthy'), online: ['true'], offline: ['false'] },
  staleAfterSetting: 'staleAfterSeconds',
  // Vehicles have no state object in the API: these values are the car's telemetry, which keeps its
  // isOnline and lastUpdated true. Names follow the hub's charger vocabulary.
  state: [
    // battery_level: state of charge in %.
    { topic: topic('battery_level'), format: 'plain', fields: { stateOfCharge: { as: 'number' } } },
    // charge_limit_soc: the charge limit set in the car, in %.
    { topic: topic('charge_limit_soc'), format: 'plain', fields: { chargeLimit: { as: 'number' } } },
    {
      // charging_state (newer TeslaMate versions): the Tesla API's word, Disconnected, Starting,
      // Charging, Stopped, Complete, NoPower (plugged in, but the wallbox gives no power).
      topic: topic('charging_state'), format: 'plain',
      fields: {
        chargingState: {
          as: 'string',
          map: { Disconnected: 'UNPLUGGED', Starting: 'PREPARING', Charging: 'CHARGING', Stopped: 'STOPPED', Complete: 'FINISHED', NoPower: 'STOPPED' },
        },
      },
    },
    // plugged_in: true/false (a charge cable is in the car).
    { topic: topic('plugged_in'), format: 'plain', fields: { isPlugged: { as: 'boolean' } } },
    // charger_power: charging power in kW (empty when not charging).
    { topic: topic('charger_power'), format: 'plain', fields: { chargeRate: { as: 'number', digits: 2 } } },
    // charger_actual_current: the current the car draws, in A (empty when not charging).
    { topic: topic('charger_actual_current'), format: 'plain', fields: { chargeCurrent: { as: 'number', digits: 1 } } },
    // est_battery_range_km: estimated range in km.
    { topic: topic('est_battery_range_km'), format: 'plain', fields: { rangeKm: { as: 'number', digits: 1 } } },
    // time_to_full_charge: hours left until the charge limit (0 when not charging); kept in minutes.
    { topic: topic('time_to_full_charge'), format: 'plain', fields: { chargingTimeRemainingMinutes: { as: 'number', scale: 60, digits: 0 } } },
    // charge_current_request_max: the most current the car asks of a charger, in A.
    { topic: topic('charge_current_request_max'), format: 'plain', fields: { chargeCurrentMax: { as: 'number' } } },
    // scheduled_charging_start_time: when a scheduled charge starts (ISO 8601, UTC), empty when none.
    { topic: topic('scheduled_charging_start_time'), format: 'plain', fields: { scheduledChargingStartTime: { as: 'string' } } },
    // odometer: in km; latitude, longitude: the car's position in degrees.
    { topic: topic('odometer'), format: 'plain', fields: { odometerKm: { as: 'number', digits: 0 } } },
    { topic: topic('latitude'), format: 'plain', fields: { latitude: { as: 'number', digits: 6 } } },
    { topic: topic('longitude'), format: 'plain', fields: { longitude: { as: 'number', digits: 6 } } },
    // inside_temp: the cabin's temperature in °C; is_climate_on: true/false.
    { topic: topic('inside_temp'), format: 'plain', fields: { insideTemperature: { as: 'number', digits: 1 } } },
    { topic: topic('is_climate_on'), format: 'plain', fields: { isClimateOn: { as: 'boolean' } } },
    // display_name: the car's name; model: S, 3, X or Y (used when the car is added).
    { topic: topic('display_name'), format: 'plain', fields: { 'static.name': { as: 'string' } } },
    { topic: topic('model'), format: 'plain', fields: { 'static.model': { as: 'string' } } },
  ],
});
