import type { ApiDeps } from '../deps.ts';
import { OperationRouter } from '../operation.ts';
import { jsonText } from '../respond.ts';
import { idParams } from '../queries.ts';
import { Tariff } from '../../domain/schemas.ts';
import { findOr404 } from '../device-handlers.ts';
import { detailJson } from '../../runtime/present.ts';

export function tariffRoutes(deps: ApiDeps): OperationRouter {
  return new OperationRouter().add({
    method: 'get', path: '/users/{userId}/tariffs/{tariffId}', operationId: 'getUserTariff', tag: 'Tariffs',
    summary: 'Read one tariff of a user',
    params: idParams('userId', 'tariffId'),
    success: { status: 200, description: 'The tariff', schema: Tariff },
    errors: ['BAD_REQUEST', 'TARIFF_NOT_FOUND'],
  }, (c, { params }) => jsonText(detailJson(findOr404(deps, 'tariff', params.tariffId, params.userId))));
}
