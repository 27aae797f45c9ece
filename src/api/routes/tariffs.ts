import type { ApiDeps } from '../deps.ts';
import { OperationRouter } from '../operation.ts';
import { jsonText } from '../respond.ts';
import { idParams } from '../queries.ts';
import { Tariff, TariffPage } from '../../domain/schemas.ts';
import { findOr404 } from '../device-handlers.ts';
import { addDeviceOperations, type KindResource } from '../device-operations.ts';
import { detailJson } from '../../runtime/present.ts';

const TARIFFS: KindResource = { kind: 'tariff', tag: 'Tariffs', segment: 'tariffs', idName: 'tariffId', noun: 'Tariff', label: 'tariff', schema: Tariff, page: TariffPage };

export function tariffRoutes(deps: ApiDeps): OperationRouter {
  const router = new OperationRouter().add({
    method: 'get', path: '/users/{userId}/tariffs/{tariffId}', operationId: 'getUserTariff', tag: 'Tariffs',
    summary: 'Read one tariff of a user',
    params: idParams('userId', 'tariffId'),
    success: { status: 200, description: 'The tariff', schema: Tariff },
    errors: ['BAD_REQUEST', 'TARIFF_NOT_FOUND'],
  }, (c, { params }) => jsonText(detailJson(findOr404(deps, 'tariff', params.tariffId, params.userId))));
  return addDeviceOperations(router, deps, TARIFFS, ['userList', 'userDelete']);
}
