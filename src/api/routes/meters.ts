import type { ApiDeps } from '../deps.ts';
import { OperationRouter } from '../operation.ts';
import { UserListQuery, idParams } from '../queries.ts';
import { Meter, MeterPage } from '../../domain/schemas.ts';
import { listPage } from '../device-handlers.ts';
import { addDeviceOperations, type KindResource } from '../device-operations.ts';

const METERS: KindResource = { kind: 'meter', tag: 'Meters', segment: 'meters', idName: 'meterId', noun: 'Meter', label: 'meter', schema: Meter, page: MeterPage };

export function meterRoutes(deps: ApiDeps): OperationRouter {
  const router = new OperationRouter().add({
    method: 'get', path: '/users/{userId}/meters', operationId: 'listUserMeters', tag: 'Meters',
    summary: 'List the meters of one user',
    params: idParams('userId'),
    query: UserListQuery,
    success: { status: 200, description: 'A page of meters', schema: MeterPage },
    errors: ['BAD_REQUEST'],
  }, (c, { query, reach }) => listPage(deps, 'meter', query, reach));
  return addDeviceOperations(router, deps, METERS, ['userDetail', 'userRefresh', 'userDelete']);
}
