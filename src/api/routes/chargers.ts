import type { ApiDeps } from '../deps.ts';
import { OperationRouter } from '../operation.ts';
import { jsonText } from '../respond.ts';
import { idParams } from '../queries.ts';
import { Charger, DeletionResult } from '../../domain/schemas.ts';
import { deleteDevice, findOr404, refreshDevice } from '../device-handlers.ts';
import { detailJson } from '../../runtime/present.ts';

export function chargerRoutes(deps: ApiDeps): OperationRouter {
  return new OperationRouter()
    .add({
      method: 'get', path: '/chargers/{chargerId}', operationId: 'getCharger', tag: 'Chargers',
      summary: 'Read one charger',
      params: idParams('chargerId'),
      success: { status: 200, description: 'The charger', schema: Charger },
      errors: ['BAD_REQUEST', 'CHARGER_NOT_FOUND'],
    }, (c, { params }) => jsonText(detailJson(findOr404(deps, 'charger', params.chargerId))))
    .add({
      method: 'get', path: '/chargers/{chargerId}/refresh', operationId: 'refreshCharger', tag: 'Chargers',
      summary: 'Read a charger live and return its fresh state',
      description: 'A device the hub has no driver for is returned as stored.',
      params: idParams('chargerId'),
      success: { status: 200, description: 'The charger', schema: Charger },
      errors: ['BAD_REQUEST', 'CHARGER_NOT_FOUND', 'DEVICE_IS_DISCONNECTED'],
    }, async (c, { params }) => jsonText(detailJson(await refreshDevice(deps, 'charger', params.chargerId))))
    .add({
      method: 'delete', path: '/chargers/{chargerId}', operationId: 'deleteCharger', tag: 'Chargers',
      summary: 'Delete a charger for good',
      params: idParams('chargerId'),
      success: { status: 200, description: 'Deleted', schema: DeletionResult },
      errors: ['BAD_REQUEST', 'CHARGER_NOT_FOUND'],
    }, (c, { params }) => deleteDevice(deps, 'charger', params.chargerId));
}
