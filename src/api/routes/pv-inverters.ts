import type { ApiDeps } from '../deps.ts';
import { OperationRouter } from '../operation.ts';
import { jsonText } from '../respond.ts';
import { UserListQuery, idParams } from '../queries.ts';
import { DeletionResult, PvInverter, PvInverterPage } from '../../domain/schemas.ts';
import { deleteDevice, listPage, refreshDevice } from '../device-handlers.ts';
import { addDeviceOperations, type KindResource } from '../device-operations.ts';

const PV_INVERTERS: KindResource = {
  kind: 'pvInverter', tag: 'PV inverters', segment: 'pv-inverters', idName: 'pvInverterId', noun: 'PvInverter', label: 'PV inverter',
  schema: PvInverter, page: PvInverterPage,
};
import { detailJson } from '../../runtime/values/present.ts';

export function pvInverterRoutes(deps: ApiDeps): OperationRouter {
  const router = new OperationRouter()
    .add({
      method: 'get', path: '/users/{userId}/pv-inverters', operationId: 'listUserPvInverters', tag: 'PV inverters',
      summary: 'List the PV inverters of one user',
      params: idParams('userId'),
      query: UserListQuery,
      success: { status: 200, description: 'A page of PV inverters', schema: PvInverterPage },
      errors: ['BAD_REQUEST'],
    }, (c, { query, reach }) => listPage(deps, 'pvInverter', query, reach))
    .add({
      method: 'get', path: '/pv-inverters/{pvInverterId}/refresh', operationId: 'refreshPvInverter', tag: 'PV inverters',
      summary: 'Read a PV inverter live and return its fresh state',
      description: 'A device the hub has no driver for is returned as stored.',
      params: idParams('pvInverterId'),
      success: { status: 200, description: 'The PV inverter', schema: PvInverter },
      errors: ['BAD_REQUEST', 'PV_INVERTER_NOT_FOUND', 'DEVICE_IS_DISCONNECTED'],
    }, async (c, { params, reach }) => jsonText(detailJson(await refreshDevice(deps, 'pvInverter', params.pvInverterId, reach))))
    .add({
      method: 'delete', path: '/pv-inverters/{pvInverterId}', operationId: 'deletePvInverter', tag: 'PV inverters',
      summary: 'Delete a PV inverter for good',
      params: idParams('pvInverterId'),
      success: { status: 200, description: 'Deleted', schema: DeletionResult },
      errors: ['BAD_REQUEST', 'PV_INVERTER_NOT_FOUND'],
    }, (c, { params, reach }) => deleteDevice(deps, 'pvInverter', params.pvInverterId, reach));
  return addDeviceOperations(router, deps, PV_INVERTERS, ['detail', 'userDetail', 'userRefresh', 'userDelete']);
}
