import type { ApiDeps } from '../deps.ts';
import { OperationRouter } from '../operation.ts';
import { jsonText } from '../respond.ts';
import { BatteryListQuery, UserListQuery, idParams } from '../queries.ts';
import { Battery, BatteryPage, DeletionResult } from '../../domain/schemas.ts';
import { deleteDevice, findOr404, listPage } from '../device-handlers.ts';
import { addDeviceOperations, type KindResource } from '../device-operations.ts';

const BATTERIES: KindResource = {
  kind: 'battery', tag: 'Batteries', segment: 'batteries', idName: 'batteryId', noun: 'Battery', label: 'battery', schema: Battery, page: BatteryPage,
};
import { detailJson } from '../../runtime/values/present.ts';

export function batteryRoutes(deps: ApiDeps): OperationRouter {
  const router = new OperationRouter()
    .add({
      method: 'get', path: '/batteries', operationId: 'listBatteries', tag: 'Batteries',
      summary: 'List all batteries of the subscription',
      description: 'Text filters match a case-insensitive substring. Ties in the sort order are broken by id.',
      query: BatteryListQuery,
      success: { status: 200, description: 'A page of batteries', schema: BatteryPage },
      errors: ['BAD_REQUEST'],
    }, (c, { query, reach }) => listPage(deps, 'battery', query, reach))
    .add({
      method: 'get', path: '/batteries/{batteryId}', operationId: 'getBattery', tag: 'Batteries',
      summary: 'Read one battery',
      params: idParams('batteryId'),
      success: { status: 200, description: 'The battery', schema: Battery },
      errors: ['BAD_REQUEST', 'BATTERY_NOT_FOUND'],
    }, (c, { params, reach }) => jsonText(detailJson(findOr404(deps, 'battery', params.batteryId, reach))))
    .add({
      method: 'delete', path: '/batteries/{batteryId}', operationId: 'deleteBattery', tag: 'Batteries',
      summary: 'Delete a battery for good',
      description: 'The battery stops being polled and its pending commands fail.',
      params: idParams('batteryId'),
      success: { status: 200, description: 'Deleted', schema: DeletionResult },
      errors: ['BAD_REQUEST', 'BATTERY_NOT_FOUND'],
    }, (c, { params, reach }) => deleteDevice(deps, 'battery', params.batteryId, reach));
  // "Batteries" in operationIds: listUserBatteries, not listUserBatterys.
  return addDeviceOperations(router, deps, BATTERIES, ['refresh', 'userDetail', 'userRefresh', 'userDelete'])
    .add({
      method: 'get', path: '/users/{userId}/batteries', operationId: 'listUserBatteries', tag: 'Batteries',
      summary: 'List the batteries of one user',
      params: idParams('userId'),
      query: UserListQuery,
      success: { status: 200, description: 'A page of batteries', schema: BatteryPage },
      errors: ['BAD_REQUEST'],
    }, (c, { query, reach }) => listPage(deps, 'battery', query, reach));
}
