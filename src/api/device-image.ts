// A device's picture (a vehicle's, an HVAC unit's), as the origin serves it at
// /users/{userId}/<kind>/{id}/image.png: the stored PNG with Content-Length, an ETag and a
// Cache-Control; a matching If-None-Match gets 304; no picture is 404 DEVICE_IMAGE_NOT_FOUND.
import type { Context } from 'hono';
import type { ApiDeps } from './deps.ts';
import { ApiError } from './errors.ts';
import { findOr404 } from './device-handlers.ts';
import type { Reach } from './reach.ts';
import { KIND_TAG, type DeviceKind } from '../domain/vocabulary.ts';

const IMAGE_CACHE_CONTROL = 'private, max-age=86400, must-revalidate';

/** Answers the picture of a device the key reaches; the device's own 404 when it reaches none. */
export function serveDeviceImage(c: Context, deps: ApiDeps, kind: DeviceKind, id: string, label: string, reach: Reach): Response {
  const device = findOr404(deps, kind, id, reach);
  const image = deps.store.deviceImages.get(device.id);
  if (!image) throw new ApiError('DEVICE_IMAGE_NOT_FOUND', `[${KIND_TAG[kind]}] No image for ${label} ${device.id}`);
  // The 304 names the type too: the Node adapter would otherwise label it text/plain, and a cache
  // that updates its stored headers from a 304 (RFC 9111 §4.3.4) would relabel the picture.
  const headers = { ETag: image.etag, 'Cache-Control': IMAGE_CACHE_CONTROL, 'Content-Type': 'image/png' };
  if (etagMatches(c.req.header('if-none-match'), image.etag)) return c.body(null, 304, headers);
  return c.body(new Uint8Array(image.png), 200, { ...headers, 'Content-Length': String(image.png.length) });
}

/** If-None-Match: `*`, or a list of (possibly weak) tags compared weakly (RFC 9110 §13.1.2). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => bare(tag) === bare(etag));
}
