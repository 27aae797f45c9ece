import { z } from 'zod';
import type { ApiDeps } from '../deps.ts';
import { OperationRouter } from '../operation.ts';
import { json } from '../respond.ts';
import { idParams, intParam } from '../queries.ts';
import { HouseholdSeries } from '../../domain/schemas.ts';
import { householdSeriesJson } from '../../runtime/values/present.ts';

const SeriesQuery = z.object({ hours: intParam(1, 48, 48) });

/** The household as a whole: its 5-minute curves (a hub addition; the household page draws them). */
export function householdRoutes(deps: ApiDeps): OperationRouter {
  return new OperationRouter().add({
    method: 'get', path: '/users/{userId}/household/series', operationId: 'getHouseholdSeries', tag: 'Household',
    summary: 'The household\'s 5-minute curves',
    description: 'PV production, the house\'s consumption (the car left out), grid, battery and car power (means over each 5 minutes, kW; '
      + 'PV + grid = battery + car + house), the batteries\' charge level and the price in force, for the last `hours` (at most 48), '
      + 'worked out by the hub from its devices\' live values. '
      + 'The 5 minutes under way are not in it yet. A user the hub knows no devices of has no points. A hub addition.',
    hubAddition: true,
    params: idParams('userId'),
    query: SeriesQuery,
    success: { status: 200, description: 'The points, oldest first', schema: HouseholdSeries },
    errors: ['BAD_REQUEST'],
  }, (c, { params, query, reach }) => json(householdSeriesJson(params.userId,
    // Another household's curves, to a key scoped to one: none, as for a user the hub does not know.
    reach.foreign ? [] : deps.store.householdSeries.read(params.userId, deps.clock.now() - query.hours * 3_600_000))));
}
