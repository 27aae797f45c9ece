// The household's flows count each term once: the house is what the house itself draws (PV + grid −
// battery − car), the car is what online chargers draw, and a car's own rate only where no charger
// of the household serves it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestHub } from '../support/hub.ts';
import { householdFlows } from '../../src/runtime/household/household-flows.ts';
import type { DeviceRecord } from '../../src/domain/device.ts';

const USER = 'household-7';
const ids = {
  pv: '1e6d3b2f-0000-4000-8000-0000000000a7', grid: '2f7e4c3a-0000-4000-8000-0000000000b7', battery: '0d5c2a1e-0000-4000-8000-0000000000c7',
  goe: '4b9a6e5c-0000-4000-8000-0000000000e7', zaptec: '4b9a6e5c-0000-4000-8000-0000000000e8',
  tesla: '5cab7f6d-0000-4000-8000-0000000000f7', vw: '5cab7f6d-0000-4000-8000-0000000000f8', bmw: '5cab7f6d-0000-4000-8000-0000000000f9',
};

test('flows: the house without the car; online chargers\' power is the car, a car bound to a charger is not added again, a car no charger serves is', (t) => {
  const hub = createTestHub();
  t.after(hub.close);
  hub.seed([
    { kind: 'pvInverter', id: ids.pv, userId: USER, staticData: { vendor: 'SMA', model: 'Sunny Tripower 8.0' } },
    { kind: 'meter', id: ids.grid, userId: USER, staticData: { vendor: 'SMA', model: 'Home Manager 2.0' }, driver: { type: 'sma', host: '192.0.2.10', role: 'grid' } },
    { kind: 'battery', id: ids.battery, userId: USER, staticData: { vendor: 'SMA', model: 'Sunny Island' } },
    { kind: 'charger', id: ids.goe, userId: USER, staticData: { vendor: 'GO_E', model: 'Gemini' } },
    { kind: 'charger', id: ids.zaptec, userId: USER, staticData: { vendor: 'ZAPTEC', model: 'GO' } },
    { kind: 'vehicle', id: ids.tesla, userId: USER, staticData: { vendor: 'TESLA', model: 'Model 3' }, driver: { type: 'teslamate', carId: '1', chargerId: ids.goe } },
    { kind: 'vehicle', id: ids.vw, userId: USER, staticData: { vendor: 'VW', model: 'ID.4' }, driver: { type: 'charger', chargerId: ids.zaptec } },
    { kind: 'vehicle', id: ids.bmw, userId: USER, staticData: { vendor: 'BMW', model: 'i4' } },
  ]);
  const at = (id: string, state: Record<string, unknown>, isOnline = true): DeviceRecord => ({ ...hub.store.devices.get(id)!, state, isOnline });
  const devices = (zaptecOnline: boolean, bmwKw: number) => [
    at(ids.pv, { solarPower: 2 }),
    at(ids.grid, { power: 20 }),
    at(ids.battery, { chargeRate: -1 }),
    at(ids.goe, { chargeRate: 11.04 }),
    at(ids.zaptec, { chargeRate: 10.83 }, zaptecOnline),
    at(ids.tesla, { chargeRate: 11, stateOfCharge: 64 }),
    at(ids.vw, { chargeRate: 10.8 }),
    at(ids.bmw, { chargeRate: bmwKw, stateOfCharge: 50 }),
  ];
  // PV 2 + grid 20 = house + battery −1 + car (11.04 + 10.83, the Tesla's 11 and the VW's 10.8 being those).
  const both = householdFlows(devices(true, 0));
  assert.equal(both.carKw, 21.87);
  assert.equal(both.homeKw, 1.13);
  // An offline charger draws nothing: its last value is stale.
  const one = householdFlows(devices(false, 0));
  assert.equal(one.carKw, 11.04);
  // A car that charges where no charger of the household serves it counts its own rate.
  const away = householdFlows(devices(true, 3.7));
  assert.equal(away.carKw, 25.57);
  // Never below 0, whatever the devices say.
  assert.equal(householdFlows([at(ids.grid, { power: 1 }), at(ids.goe, { chargeRate: 11.04 })]).homeKw, 0);
});
