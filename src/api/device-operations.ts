// The reads and deletions every device kind has, declared once for all kinds: a detail, a live
// refresh and a deletion, at the subscription level (`/vehicles/{vehicleId}`) and at the user level
// (`/users/{userId}/vehicles/{vehicleId}`, where another user's device is not found), and a user's
// list. A resource file names which of them its kind has (the origin documents different sets per
// kind) and adds its own operations beside them.
import type { z } from 'zod';
import type { ApiDeps } from './deps.ts';
import type { ErrorCode } from './errors.ts';
import type { OperationRouter } from './operation.ts';
import { UserListQuery, idParams } from './queries.ts';
import { DeletionResult } from '../domain/schemas.ts';
import { KIND_TAG, type DeviceKind } from '../domain/vocabulary.ts';
import { deleteDevice, detail, findOr404, listPage, refreshDevice } from './device-handlers.ts';
import { serveDeviceImage } from './device-image.ts';

export interface KindResource {
  kind: DeviceKind;
  /** The docs page's group (`Vehicles`). */
  tag: string;
  /** The URL segment (`vehicles`) and the path parameter of an id (`vehicleId`). */
  segment: string;
  idName: string;
  /** The operationId's noun (`Vehicle`, making getVehicle, refreshUserVehicle…) and the summaries' (`vehicle`). */
  noun: string;
  label: string;
  /** The detail response, and the user list's page. */
  schema: z.ZodType;
  page?: z.ZodType;
}

export type DeviceOperation = 'detail' | 'refresh' | 'delete' | 'userList' | 'userDetail' | 'userRefresh' | 'userDelete' | 'userImage';

const REFRESH_DESCRIPTION = 'Reads the device now through its driver, stores what it read and returns it. '
  + 'A device the hub has no driver for is returned as stored; one it cannot reach now is a 503.';

/** Adds the named operations of a kind to `router`, in the order given. */
export function addDeviceOperations(router: OperationRouter, deps: ApiDeps, r: KindResource, which: readonly DeviceOperation[]): OperationRouter {
  const notFound = `${KIND_TAG[r.kind]}_NOT_FOUND` as ErrorCode;
  const base = `/${r.segment}/{${r.idName}}`;
  const userBase = `/users/{userId}/${r.segment}/{${r.idName}}`;
  const one = idParams(r.idName);
  const owned = idParams('userId', r.idName);
  const id = (params: Record<string, string>) => params[r.idName]!;
  for (const op of which) {
    switch (op) {
      case 'detail':
        router.add({
          method: 'get', path: base, operationId: `get${r.noun}`, tag: r.tag, summary: `Read one ${r.label}`,
          params: one, success: { status: 200, description: `The ${r.label}`, schema: r.schema }, errors: ['BAD_REQUEST', notFound],
        }, (c, { params, reach }) => detail(deps, findOr404(deps, r.kind, id(params), reach)));
        break;
      case 'userDetail':
        router.add({
          method: 'get', path: userBase, operationId: `getUser${r.noun}`, tag: r.tag, summary: `Read one ${r.label} of a user`,
          params: owned, success: { status: 200, description: `The ${r.label}`, schema: r.schema }, errors: ['BAD_REQUEST', notFound],
        }, (c, { params, reach }) => detail(deps, findOr404(deps, r.kind, id(params), reach)));
        break;
      case 'refresh':
        router.add({
          method: 'get', path: `${base}/refresh`, operationId: `refresh${r.noun}`, tag: r.tag,
          summary: `Read a ${r.label} live and return its fresh state`, description: REFRESH_DESCRIPTION,
          params: one, success: { status: 200, description: `The ${r.label}`, schema: r.schema },
          errors: ['BAD_REQUEST', notFound, 'DEVICE_IS_DISCONNECTED'],
        }, async (c, { params, reach }) => detail(deps, await refreshDevice(deps, r.kind, id(params), reach)));
        break;
      case 'userRefresh':
        router.add({
          method: 'get', path: `${userBase}/refresh`, operationId: `refreshUser${r.noun}`, tag: r.tag,
          summary: `Read a ${r.label} of a user live and return its fresh state`, description: REFRESH_DESCRIPTION,
          params: owned, success: { status: 200, description: `The ${r.label}`, schema: r.schema },
          errors: ['BAD_REQUEST', notFound, 'DEVICE_IS_DISCONNECTED'],
        }, async (c, { params, reach }) => detail(deps, await refreshDevice(deps, r.kind, id(params), reach)));
        break;
      case 'delete':
      case 'userDelete': {
        const user = op === 'userDelete';
        router.add({
          method: 'delete', path: user ? userBase : base, operationId: `delete${user ? 'User' : ''}${r.noun}`, tag: r.tag,
          summary: `Delete a ${r.label}${user ? ' of a user' : ''} for good`,
          description: 'The device stops being polled, its pending commands fail, and a device declared in the configuration does not come back.',
          params: user ? owned : one, success: { status: 200, description: 'Deleted', schema: DeletionResult },
          errors: ['BAD_REQUEST', notFound],
        }, (c, { params, reach }) => deleteDevice(deps, r.kind, id(params as Record<string, string>), reach));
        break;
      }
      case 'userList':
        router.add({
          method: 'get', path: `/users/{userId}/${r.segment}`, operationId: `listUser${r.noun}s`, tag: r.tag,
          summary: `List the ${r.label}s of one user`, params: idParams('userId'), query: UserListQuery,
          success: { status: 200, description: `A page of ${r.label}s`, schema: r.page! }, errors: ['BAD_REQUEST'],
        }, (c, { query, reach }) => listPage(deps, r.kind, query, reach));
        break;
      case 'userImage':
        router.add({
          method: 'get', path: `${userBase}/image.png`, operationId: `getUser${r.noun}Image`, tag: r.tag,
          summary: `The picture of a ${r.label}, as PNG`,
          description: 'Served with ETag and Cache-Control; a matching If-None-Match gets 304 Not Modified. '
            + 'The picture is set with `hub image set`; without one the answer is 404 DEVICE_IMAGE_NOT_FOUND.',
          params: owned,
          success: { status: 200, description: 'The image', contentType: 'image/png', headers: ['ETag', 'Cache-Control', 'Content-Length'] },
          errors: ['BAD_REQUEST', notFound, 'DEVICE_IMAGE_NOT_FOUND'],
        }, (c, { params, reach }) => serveDeviceImage(c, deps, r.kind, id(params), r.label, reach));
        break;
    }
  }
  return router;
}
