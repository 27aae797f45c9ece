import type { ApiDeps } from '../deps.ts';
import { OperationRouter } from '../operation.ts';
import { UserListQuery, idParams } from '../queries.ts';
import { MeterPage } from '../../domain/schemas.ts';
import { listPage } from '../device-handlers.ts';

export function meterRoutes(deps: ApiDeps): OperationRouter {
  return new OperationRouter().add({
    method: 'get', path: '/users/{userId}/meters', operationId: 'listUserMeters', tag: 'Meters',
    summary: 'List the meters of one user',
    params: idParams('userId'),
    query: UserListQuery,
    success: { status: 200, description: 'A page of meters', schema: MeterPage },
    errors: ['BAD_REQUEST'],
  }, (c, { params, query }) => listPage(deps, 'meter', query, params.userId));
}
