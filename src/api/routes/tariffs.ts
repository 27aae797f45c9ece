import type { ApiDeps } from '../deps.ts';
import { OperationRouter } from '../operation.ts';
import { json, jsonText } from '../respond.ts';
import { ConsumptionQuery, idParams } from '../queries.ts';
import { ConsumptionPage, PriceList, Tariff, TariffPage } from '../../domain/schemas.ts';
import { tariffConsumption, tariffPrices } from '../../runtime/household/tariff-ledger.ts';
import { findOr404 } from '../device-handlers.ts';
import { addDeviceOperations, type KindResource } from '../device-operations.ts';
import { detailJson } from '../../runtime/values/present.ts';

const TARIFFS: KindResource = { kind: 'tariff', tag: 'Tariffs', segment: 'tariffs', idName: 'tariffId', noun: 'Tariff', label: 'tariff', schema: Tariff, page: TariffPage };

export function tariffRoutes(deps: ApiDeps): OperationRouter {
  const router = new OperationRouter().add({
    method: 'get', path: '/users/{userId}/tariffs/{tariffId}', operationId: 'getUserTariff', tag: 'Tariffs',
    summary: 'Read one tariff of a user',
    params: idParams('userId', 'tariffId'),
    success: { status: 200, description: 'The tariff', schema: Tariff },
    errors: ['BAD_REQUEST', 'TARIFF_NOT_FOUND'],
  }, (c, { params, reach }) => jsonText(detailJson(findOr404(deps, 'tariff', params.tariffId, reach))));
  addDeviceOperations(router, deps, TARIFFS, ['userList', 'userDelete']);
  for (const user of [false, true]) {
    const prefix = user ? '/users/{userId}/tariffs/{tariffId}' : '/tariffs/{tariffId}';
    const params = user ? idParams('userId', 'tariffId') : idParams('tariffId');
    router.add({
      method: 'get', path: `${prefix}/prices`, operationId: user ? 'getUserTariffPrices' : 'getTariffPrices', tag: 'Tariffs',
      summary: 'The prices of a tariff',
      description: 'The prices its source published over the last 48 hours and any it published for later, oldest first: each in force '
        + 'from `startDate` (the quarter hour it was published in) until the next. In the tariff\'s currency per kWh.',
      params, success: { status: 200, description: 'Prices, oldest first', schema: PriceList }, errors: ['BAD_REQUEST', 'TARIFF_NOT_FOUND'],
    }, (c, { params: p, reach }) => json(tariffPrices(deps.store, findOr404(deps, 'tariff', p.tariffId, reach).id, deps.clock.now())));
    router.add({
      method: 'get', path: `${prefix}/consumption`, operationId: user ? 'getUserTariffConsumption' : 'getTariffConsumption', tag: 'Tariffs',
      summary: 'Hourly consumption and its cost under a tariff',
      description: 'The household\'s grid import per hour, newest first, measured by the hub from its grid meter\'s import counter, and its cost at '
        + 'the prices in force (the mean of the hour\'s quarters). The grid meter is the user\'s meter whose binding says `role: grid`, else '
        + 'the user\'s only meter; without one the page is empty. An hour whose counter went back (a meter swap) is left out.',
      params, query: ConsumptionQuery,
      success: { status: 200, description: 'A page of hours', schema: ConsumptionPage }, errors: ['BAD_REQUEST', 'TARIFF_NOT_FOUND'],
    }, (c, { params: p, query, reach }) => json(tariffConsumption(deps.store, findOr404(deps, 'tariff', p.tariffId, reach), query.page, query.size)));
  }
  return router;
}
