import { z } from 'zod';
import type { ApiDeps } from '../deps.ts';
import { OperationRouter } from '../operation.ts';
import { CommandListQuery, VehicleListQuery, idParams } from '../queries.ts';
import { Command, CommandList, Vehicle, VehiclePage, oneOf, schemaRegistry } from '../../domain/schemas.ts';
import { findOr404, listCommands, listPage, submitCommand, submitOfferedCommand, submitOrFailCommand } from '../device-handlers.ts';
import { WEEK_DAYS } from '../../domain/vocabulary.ts';
import { addDeviceOperations, type KindResource } from '../device-operations.ts';

const HHMM = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time HH:MM from 00:00 to 23:59');
const ChargingScheduleItem = z.object({
  type: z.string().min(1).max(50).describe('CHARGE (the only type the origin documents)'),
  stateOfChargeTarget: z.number().min(0).max(100).optional().describe('%'),
  location: z.object({ latitude: z.number().min(-90).max(90), longitude: z.number().min(-180).max(180) }).optional(),
  chargeRateMax: z.number().min(0).optional().describe('kW'),
  days: z.array(oneOf(WEEK_DAYS)).min(1).max(7),
  start: HHMM,
  end: HHMM.optional(),
});
schemaRegistry.add(ChargingScheduleItem, { id: 'VehicleChargingSchedule' });
const ChargingScheduleRequest = z.object({ schedules: z.array(ChargingScheduleItem).min(1).max(50) });
schemaRegistry.add(ChargingScheduleRequest, { id: 'VehicleChargingScheduleRequest', description: 'Times are in UTC.' });

/** Why a charging schedule fails at once where no driver takes one (decided: never left PENDING). */
export const NO_SCHEDULE_PATH = 'SET_CHARGING_SCHEDULE cannot be carried out: no local path of this hub sets a vehicle\'s charging schedule';

const VEHICLES: KindResource = {
  kind: 'vehicle', tag: 'Vehicles', segment: 'vehicles', idName: 'vehicleId', noun: 'Vehicle', label: 'vehicle', schema: Vehicle, page: VehiclePage,
};

export function vehicleRoutes(deps: ApiDeps): OperationRouter {
  const router = new OperationRouter().add({
    method: 'get', path: '/vehicles', operationId: 'listVehicles', tag: 'Vehicles',
    summary: 'List all vehicles of the subscription',
    description: 'Text filters (`vin` too) match a case-insensitive substring. Ties in the sort order are broken by id.',
    query: VehicleListQuery,
    success: { status: 200, description: 'A page of vehicles', schema: VehiclePage },
    errors: ['BAD_REQUEST'],
  }, (c, { query, reach }) => listPage(deps, 'vehicle', query, reach));
  addDeviceOperations(router, deps, VEHICLES, ['detail', 'refresh', 'userList', 'userDetail', 'userRefresh', 'userDelete', 'userImage']);
  for (const user of [false, true]) {
    const prefix = user ? '/users/{userId}/vehicles/{vehicleId}' : '/vehicles/{vehicleId}';
    const params = user ? idParams('userId', 'vehicleId') : idParams('vehicleId');
    router.add({
      method: 'post', path: `${prefix}/commands/charging-start`, operationId: user ? 'userStartVehicleCharging' : 'startVehicleCharging', tag: 'Vehicles',
      summary: 'Start charging a vehicle',
      description: 'Creates an asynchronous CHARGING_START command, stored before this answers, carried out by the vehicle\'s bridge or '
        + 'the charger it charges at. No request body. When neither can, it is a 400 and nothing is stored.',
      params,
      success: { status: 200, description: 'The new command, PENDING', schema: Command },
      errors: ['BAD_REQUEST', 'VEHICLE_NOT_FOUND'],
    }, (c, { params: p, reach }) => submitOfferedCommand(deps, findOr404(deps, 'vehicle', p.vehicleId, reach), 'CHARGING_START'));
    router.add({
      method: 'post', path: `${prefix}/commands/charging-schedule`, operationId: user ? 'userSetVehicleChargingSchedule' : 'setVehicleChargingSchedule', tag: 'Vehicles',
      summary: 'Set the charging schedule of a vehicle',
      description: 'Creates an asynchronous SET_CHARGING_SCHEDULE command. Times are in UTC. Where no driver of the hub can set the '
        + 'vehicle\'s schedule, the command is answered FAILED at once with the reason, never left PENDING.',
      params, body: ChargingScheduleRequest,
      success: { status: 200, description: 'The new command: PENDING, or FAILED with its reason', schema: Command },
      errors: ['BAD_REQUEST', 'VEHICLE_NOT_FOUND', 'UNSUPPORTED_MEDIA_TYPE'],
    }, (c, { params: p, body, reach }) => submitOrFailCommand(deps, findOr404(deps, 'vehicle', p.vehicleId, reach), 'SET_CHARGING_SCHEDULE', body, NO_SCHEDULE_PATH));
  }
  return router
    .add({
      method: 'post', path: '/users/{userId}/vehicles/{vehicleId}/commands/charging-stop', operationId: 'userStopVehicleCharging', tag: 'Vehicles',
      summary: 'Stop charging a vehicle of a user',
      description: 'Creates an asynchronous CHARGING_STOP command, stored before this answers. No request body.',
      params: idParams('userId', 'vehicleId'),
      success: { status: 200, description: 'The new command, PENDING', schema: Command },
      errors: ['BAD_REQUEST', 'VEHICLE_NOT_FOUND'],
    }, (c, { params, reach }) => submitCommand(deps, findOr404(deps, 'vehicle', params.vehicleId, reach), 'CHARGING_STOP'))
    .add({
      method: 'get', path: '/users/{userId}/vehicles/{vehicleId}/commands', operationId: 'listVehicleCommands', tag: 'Vehicles',
      summary: 'List the commands of a vehicle',
      description: 'By default the PENDING commands, in execution order; `state` widens the list.',
      params: idParams('userId', 'vehicleId'),
      query: CommandListQuery,
      success: { status: 200, description: 'Commands in execution order', schema: CommandList },
      errors: ['BAD_REQUEST', 'VEHICLE_NOT_FOUND'],
    }, (c, { params, query, reach }) => listCommands(deps, 'vehicle', params.vehicleId, reach, query.state))
    .add({
      method: 'post', path: '/vehicles/{vehicleId}/commands/charging-stop', operationId: 'stopVehicleCharging', tag: 'Vehicles',
      summary: 'Stop charging a vehicle',
      description: 'Creates an asynchronous CHARGING_STOP command, stored before this answers. No request body.',
      params: idParams('vehicleId'),
      success: { status: 200, description: 'The new command, PENDING', schema: Command },
      errors: ['BAD_REQUEST', 'VEHICLE_NOT_FOUND'],
    }, (c, { params, reach }) => submitCommand(deps, findOr404(deps, 'vehicle', params.vehicleId, reach), 'CHARGING_STOP'));
}
