import type { ApiDeps } from '../deps.ts';
import { ApiError } from '../errors.ts';
import { OperationRouter } from '../operation.ts';
import { CommandListQuery, VehicleListQuery, idParams } from '../queries.ts';
import { Command, CommandList, Vehicle, VehiclePage } from '../../domain/schemas.ts';
import { findOr404, listCommands, listPage, submitCommand } from '../device-handlers.ts';
import { addDeviceOperations, type KindResource } from '../device-operations.ts';

const IMAGE_CACHE_CONTROL = 'private, max-age=86400, must-revalidate';

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
  }, (c, { query }) => listPage(deps, 'vehicle', query));
  return addDeviceOperations(router, deps, VEHICLES, ['detail', 'refresh', 'userList', 'userDetail', 'userRefresh', 'userDelete'])
    .add({
      method: 'get', path: '/users/{userId}/vehicles/{vehicleId}/commands', operationId: 'listVehicleCommands', tag: 'Vehicles',
      summary: 'List the commands of a vehicle',
      description: 'By default the PENDING commands, in execution order; `state` widens the list.',
      params: idParams('userId', 'vehicleId'),
      query: CommandListQuery,
      success: { status: 200, description: 'Commands in execution order', schema: CommandList },
      errors: ['BAD_REQUEST', 'VEHICLE_NOT_FOUND'],
    }, (c, { params, query }) => listCommands(deps, 'vehicle', params.vehicleId, params.userId, query.state))
    .add({
      method: 'post', path: '/vehicles/{vehicleId}/commands/charging-stop', operationId: 'stopVehicleCharging', tag: 'Vehicles',
      summary: 'Stop charging a vehicle',
      description: 'Creates an asynchronous CHARGING_STOP command, stored before this answers. No request body.',
      params: idParams('vehicleId'),
      success: { status: 200, description: 'The new command, PENDING', schema: Command },
      errors: ['BAD_REQUEST', 'VEHICLE_NOT_FOUND'],
    }, (c, { params }) => submitCommand(deps, findOr404(deps, 'vehicle', params.vehicleId), 'CHARGING_STOP'))
    .add({
      method: 'get', path: '/users/{userId}/vehicles/{vehicleId}/image.png', operationId: 'getUserVehicleImage', tag: 'Vehicles',
      summary: 'The picture of a vehicle, as PNG',
      description: 'Served with ETag and Cache-Control; a matching If-None-Match gets 304 Not Modified.',
      params: idParams('userId', 'vehicleId'),
      success: { status: 200, description: 'The image', contentType: 'image/png', headers: ['ETag', 'Cache-Control', 'Content-Length'] },
      errors: ['BAD_REQUEST', 'VEHICLE_NOT_FOUND', 'DEVICE_IMAGE_NOT_FOUND'],
    }, (c, { params }) => {
      findOr404(deps, 'vehicle', params.vehicleId, params.userId);
      const image = deps.store.vehicleImages.get(params.vehicleId);
      if (!image) throw new ApiError('DEVICE_IMAGE_NOT_FOUND', `[VEHICLE] No image for vehicle ${params.vehicleId}`);
      // The 304 names the type too: the Node adapter would otherwise label it text/plain, and a cache
      // that updates its stored headers from a 304 (RFC 9111 §4.3.4) would relabel the picture.
      const headers = { ETag: image.etag, 'Cache-Control': IMAGE_CACHE_CONTROL, 'Content-Type': 'image/png' };
      if (etagMatches(c.req.header('if-none-match'), image.etag)) return c.body(null, 304, headers);
      return c.body(new Uint8Array(image.png), 200, { ...headers, 'Content-Length': String(image.png.length) });
    });
}

/** If-None-Match: `*`, or a list of (possibly weak) tags compared weakly (RFC 9110 §13.1.2). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => bare(tag) === bare(etag));
}
